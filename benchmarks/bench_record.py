"""Benchmark the recorder: emit cost with and without fsync, and load + verify time.

A realistic mix of events (browse actions with their SOQL, queries, model calls with a few
hundred characters of content, answer edits) is written to a temp dir::

    .venv/bin/python benchmarks/bench_record.py               # 10,000 events
    .venv/bin/python benchmarks/bench_record.py --events 2000 --repeat 5

Targets: load + verify of a 10,000-event recording under 300 ms; per-event emit cost small
enough that fsync-per-event can stay the default.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from crmtui.record import Recorder, load, verify
from crmtui.record.equivalent import soql_for_filter, soql_for_open_object, soql_for_record

HEADER: dict[str, Any] = {
    "actor": {"kind": "model", "id": "bench/model", "strategy": "react"},
    "instance": {"idx": 1, "task": "handle_time", "query": "q", "reward_metric": "exact_match"},
    "org": {"path": "/orgs/sample.db", "digest": "0" * 64, "name": "sample"},
    "tasks_source": "bench",
}


def _events(count: int, seed: int = 7) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(seed)
    out: list[tuple[str, dict[str, Any]]] = []
    for i in range(count):
        roll = i % 6
        if roll == 0:
            out.append(
                (
                    "open_object",
                    {"object": "Case", "query": soql_for_open_object("Case", ["Id", "Subject"])},
                )
            )
        elif roll == 1:
            rid = f"500{rng.randrange(10**12):012d}"
            out.append(
                (
                    "open_record",
                    {"object": "Case", "id": rid, "query": soql_for_record("Case", rid, ["Id"])},
                )
            )
        elif roll == 2:
            value = rng.choice(["New", "Closed", "O'Brien"])
            query = soql_for_filter("Case", ["Id"], "Status", "=", value)
            out.append(
                (
                    "filter",
                    {
                        "object": "Case",
                        "field": "Status",
                        "op": "=",
                        "value": value,
                        "query": query,
                    },
                )
            )
        elif roll == 3:
            out.append(
                (
                    "run_query",
                    {
                        "text": "SELECT COUNT(Id) FROM Case WHERE Status = 'Closed'",
                        "kind": "soql",
                        "rows": rng.randrange(100),
                        "ms": round(rng.random() * 20, 3),
                        "error_code": None,
                        "error": None,
                    },
                )
            )
        elif roll == 4:
            out.append(
                (
                    "model_call",
                    {
                        "prompt_tokens": rng.randrange(5000),
                        "completion_tokens": rng.randrange(300),
                        "cost": round(rng.random() / 100, 6),
                        "latency_ms": round(rng.random() * 3000, 3),
                        "content": "<thought>look at the cases</thought>"
                        + "x" * rng.randrange(400),
                    },
                )
            )
        else:
            out.append(("answer_edit", {"text": f"005{rng.randrange(10**12):012d}"}))
    return out


def bench_write(
    directory: Path, events: list[tuple[str, dict[str, Any]]], fsync: bool
) -> tuple[Path, float]:
    """Write all events; return the file and microseconds per event."""
    rec = Recorder.create(directory / f"bench-fsync-{fsync}.jsonl", **HEADER, fsync=fsync)
    start = time.perf_counter()
    for kind, payload in events:
        rec.emit(kind, payload)
    elapsed = time.perf_counter() - start
    rec.close("bench")
    return rec.path, elapsed / len(events) * 1e6


def bench_read(path: Path, repeat: int) -> tuple[float, float]:
    """Best-of-``repeat`` milliseconds for verify() and for load()."""
    verify_times, load_times = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        report = verify(path)
        verify_times.append((time.perf_counter() - start) * 1000)
        assert report.ok, report.describe()
        start = time.perf_counter()
        load(path)
        load_times.append((time.perf_counter() - start) * 1000)
    return min(verify_times), min(load_times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    events = _events(args.events)
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        path, no_sync = bench_write(directory, events, fsync=False)
        _, with_sync = bench_write(directory, events, fsync=True)
        size_mb = path.stat().st_size / 1e6
        verify_ms, load_ms = bench_read(path, args.repeat)
        per_event = [verify_ms / (args.events + 1) * 1000]
    print(f"events: {args.events:,}   file: {size_mb:.2f} MB")
    print(f"emit, fsync off: {no_sync:8.1f} us/event")
    print(f"emit, fsync on : {with_sync:8.1f} us/event (default)")
    print(f"verify         : {verify_ms:8.1f} ms  ({statistics.fmean(per_event):.1f} us/line)")
    print(f"load (verify + events): {load_ms:8.1f} ms  (target < 300 ms)")


if __name__ == "__main__":
    main()
