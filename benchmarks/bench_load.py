"""Time loading the 1,170-row CRMArena task file as JSON, JSONL and Parquet.

Each format is loaded through :func:`crmtui.data.loaders.load_tasks` (the ``datasets`` code
path plus row validation) twice: first with an empty ``datasets`` cache, then cached. A plain
``json.load`` + validation of the same file is shown for comparison.

Usage::

    .venv/bin/python benchmarks/bench_load.py [PATH_TO_crmarena_tasks.json] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

DEFAULT_SOURCE = Path(__file__).resolve().parents[2] / "shared" / "crmarena" / "crmarena_tasks.json"


def _timed(func: Callable[[], object], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append((time.perf_counter() - start) * 1000)
    return times


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print a table of milliseconds per load."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--repeat", type=int, default=5, help="cached loads to time")
    args = parser.parse_args(argv)
    if not args.source.exists():
        print(f"task file not found: {args.source}", file=sys.stderr)
        return 1

    with tempfile.TemporaryDirectory(prefix="crmtui-bench-") as tmp:
        return _run(args.source, args.repeat, Path(tmp))


def _run(source: Path, repeat: int, work: Path) -> int:
    # A private CRMTUI_HOME so the first load really starts with an empty datasets cache.
    os.environ["CRMTUI_HOME"] = str(work / "home")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    start = time.perf_counter()
    # Imported only now: the environment above must be set first.
    from crmtui.data import loaders
    from crmtui.data.instances import TaskSet

    loaders._import_datasets()
    import_ms = (time.perf_counter() - start) * 1000

    rows = json.loads(source.read_text(encoding="utf-8"))
    jsonl = work / "tasks.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    parquet = work / "tasks.parquet"
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(rows), parquet)

    results: list[tuple[str, int, float, float]] = []
    for label, path in (("JSON", source), ("JSONL", jsonl), ("Parquet", parquet)):
        first = _timed(lambda p=path: loaders.load_tasks(p), 1)[0]
        cached = _timed(lambda p=path: loaders.load_tasks(p), repeat)
        count = len(loaders.load_tasks(path))
        results.append((label, count, first, statistics.median(cached)))
    plain = _timed(
        lambda: TaskSet.from_rows(json.loads(source.read_text(encoding="utf-8"))),
        repeat,
    )
    results.append(("json.load only", len(rows), float("nan"), statistics.median(plain)))

    print(f"source: {source} ({source.stat().st_size / 1e6:.2f} MB)")
    print(f"import datasets: {import_ms:.0f} ms (once per process)")
    print(f"{'format':<16}{'rows':>6}{'first ms':>10}{'cached ms':>11}")
    for label, count, first_ms, cached_ms in results:
        first_text = "-" if first_ms != first_ms else f"{first_ms:.1f}"
        print(f"{label:<16}{count:>6}{first_text:>10}{cached_ms:>11.1f}")
    print(f"(cached = median of {repeat} loads)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
