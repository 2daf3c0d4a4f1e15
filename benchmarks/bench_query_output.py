"""Benchmark ``crmtui query`` printing a big result: wall time, CPU and peak memory.

Target (issue #25): the CLI's output budget covers encoding and printing, not only the query.
The 7-column join over all 71,000 OrderItems of the ``full`` org ran 51 s with a 971 MB peak
as ``--format json`` (load average unknown) and minutes as a table. Each format runs as a
fresh ``crmtui query`` child writing into a file, for this tree and (``--baseline REF``) for
a commit's ``crmtui/`` extracted with ``git archive``, interleaved, ``--rounds`` times; the
figures are medians, with the load average::

    .venv/bin/python benchmarks/bench_query_output.py                     # org full, main
    .venv/bin/python benchmarks/bench_query_output.py --org full-7 --baseline 5876b40
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HEAVY = (
    "SELECT Id, Quantity, UnitPrice, Order.Status, Order.EffectiveDate, Product2.Name, "
    "Order.Account.Name FROM OrderItem"
)
FORMATS = ("json", "table", "observation")


def _tree(ref: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "crmtui"], capture_output=True, check=True
    ).stdout
    into.mkdir(parents=True, exist_ok=True)
    (into / "a.tar").write_bytes(archive)
    with tarfile.open(into / "a.tar") as tar:
        tar.extractall(into, filter="data")
    return into


def run_once(tree: Path, org: Path, fmt: str, out: Path) -> dict[str, Any]:
    """One ``crmtui query`` child: wall s, CPU s, peak RSS MB, bytes written, status."""
    env = {**os.environ, "PYTHONPATH": str(tree), "COLUMNS": "160"}
    argv = [sys.executable, "-m", "crmtui.cli", "query", "--org", str(org), "--format", fmt, HEAVY]
    started = time.perf_counter()
    with out.open("wb") as sink:
        child = subprocess.Popen(argv, stdout=sink, stderr=subprocess.PIPE, env=env, cwd=tree)
        _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    err = child.stderr.read().decode("utf-8", "replace") if child.stderr else ""
    return {
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024,
        "bytes": out.stat().st_size,
        "status": os.waitstatus_to_exitcode(status),
        "stderr": err.strip()[-200:],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--org", default="full", help="org name or path (default: full)")
    parser.add_argument("--baseline", default=None, help="also run this commit's crmtui/")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--formats", default=",".join(FORMATS))
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from crmtui.org.sample import open_org_or_sample

    org = Path(open_org_or_sample(args.org).path)
    results: dict[str, dict[str, list[dict[str, Any]]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"this tree": ROOT}
        if args.baseline:
            trees[f"baseline {args.baseline}"] = _tree(args.baseline, Path(tmp) / "base")
        for _ in range(args.rounds):
            for fmt in args.formats.split(","):
                for label, tree in trees.items():
                    run = run_once(tree, org, fmt, Path(tmp) / "out")
                    results.setdefault(fmt, {}).setdefault(label, []).append(run)
    print(f"org {org}; load average {os.getloadavg()}")
    for fmt, by_tree in results.items():
        for label, runs in by_tree.items():
            med = {k: statistics.median(r[k] for r in runs) for k in ("wall_s", "cpu_s", "peak_mb")}
            statuses = sorted({r["status"] for r in runs})
            print(
                f"{fmt:12} {label:22} wall {med['wall_s']:6.1f} s  cpu {med['cpu_s']:6.1f} s  "
                f"peak {med['peak_mb']:6.0f} MB  out {runs[-1]['bytes'] / 1e6:6.1f} MB  "
                f"status {statuses}"
            )
            if runs[-1]["stderr"]:
                print(f"{'':36}stderr: {runs[-1]['stderr']}")
    print(json.dumps({"load_average": os.getloadavg()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
