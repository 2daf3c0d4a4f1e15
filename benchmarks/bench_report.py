"""Time ``crmtui report`` over 1,000 recordings and loading a 10,000-event recording.

Recordings are written with the real :class:`~crmtui.record.Recorder` (frozen clocks, no
fsync) into a temporary folder: 6 actors (3 humans, 3 models) x instances spread over the
nine task types, 10-30 events each, seeded. Then:

* ``report``: :func:`crmtui.review.report.report_folder` (verify + summarize every file)
  plus the rich table rendering; target < 3 s.
* ``load``: :func:`crmtui.record.load` (parse + verify the hash chain) of one recording
  with 10,000 events; target < 300 ms.

Best-of-N wall time is compared with the targets (the median is printed too; on a shared
machine it includes waiting for the CPU). Exit status 1 if a target is missed.

Usage::

    .venv/bin/python benchmarks/bench_report.py [--recordings 1000] [--events 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from crmtui.data.tasktypes import TASK_ORDER
from crmtui.record import Recorder, load
from crmtui.review.report import report_folder
from crmtui.review.report_format import to_table_text

ACTORS = (
    {"kind": "human", "id": "alice"},
    {"kind": "human", "id": "bob"},
    {"kind": "human", "id": "carol"},
    {"kind": "model", "id": "gpt-4o", "strategy": "react"},
    {"kind": "model", "id": "gpt-4o-mini", "strategy": "act"},
    {"kind": "model", "id": "o1", "strategy": "tool_call"},
)
ORG = {"path": "/orgs/sample.db", "digest": "d" * 64, "name": "sample"}
START = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


class _Clock:
    def __init__(self, start: dt.datetime) -> None:
        self.now, self.mono = start, 0.0

    def tick(self, seconds: float) -> None:
        self.now += dt.timedelta(seconds=seconds)
        self.mono += seconds


def _event(rng: random.Random, model: bool, n: int) -> tuple[str, dict[str, Any]]:
    case_id = f"500Ws{rng.randrange(10**10):010d}AAA"
    if model and n % 2 == 0:
        return "model_call", {
            "prompt_tokens": rng.randrange(500, 4000),
            "completion_tokens": rng.randrange(10, 300),
            "cost": round(rng.random() / 100, 6),
            "latency_ms": 300.0,
            "content": "Thought: look at the cases.\n<execute>SELECT Id FROM Case</execute>",
        }
    choice = rng.randrange(3) if not model else 2
    if choice == 0:
        return "open_object", {"object": "Case", "query": "SELECT Id, Subject FROM Case"}
    if choice == 1:
        return "open_record", {
            "object": "Case",
            "id": case_id,
            "query": f"SELECT Id, Subject FROM Case WHERE Id = '{case_id}'",
        }
    return "run_query", {
        "text": f"SELECT Id, OwnerId FROM Case WHERE AccountId = '001Ws{n:010d}AAA'",
        "kind": "soql",
        "rows": rng.randrange(20),
        "ms": 2.5,
        "error_code": None,
        "error": None,
    }


def write_recording(
    root: Path, rng: random.Random, actor: dict[str, Any], idx: int, events: int, n: int
) -> Path:
    """One finished, submitted session with ``events`` events in total (header excluded)."""
    task = TASK_ORDER[idx % len(TASK_ORDER)]
    clock = _Clock(START + dt.timedelta(minutes=n))
    recorder = Recorder.create(
        root,
        actor=actor,
        instance={
            "idx": idx,
            "task": task,
            "query": f"Question {idx}",
            "reward_metric": "fuzzy_match" if task == "knowledge_qa" else "exact_match",
        },
        org=ORG,
        tasks_source="sample",
        session_id=f"{n:032x}",
        wall=lambda: clock.now,
        monotonic=lambda: clock.mono,
        fsync=False,
    )
    model = actor["kind"] == "model"
    for step in range(events - 2):
        clock.tick(rng.uniform(0.5, 20.0))
        recorder.emit(*_event(rng, model, step))
    clock.tick(2.0)
    reward = float(rng.random() < 0.5)
    recorder.emit("submit", {"answer": "CA", "reward": reward, "scoring": "strict", "gold": "CA"})
    clock.tick(0.5)
    recorder.close("finished", reward)
    return recorder.path


def _timed(func: Callable[[], object], repeat: int) -> tuple[list[float], list[float]]:
    """Wall and process-CPU milliseconds of each of ``repeat`` calls."""
    wall, cpu = [], []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        func()
        wall.append((time.perf_counter() - w) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    return wall, cpu


def _line(what: str, wall: list[float], cpu: list[float], target: float) -> str:
    runs = ", ".join(f"{t:.0f}" for t in wall)
    return (
        f"{what}: best {min(wall):.0f} ms, median {statistics.median(wall):.0f} ms wall "
        f"(runs {runs}); CPU {min(cpu):.0f} ms; target < {target:.0f} ms"
    )


def main(argv: list[str] | None = None) -> int:
    """Generate the recordings, time both operations and print the numbers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recordings", type=int, default=1000)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    rng = random.Random(20260101)
    with tempfile.TemporaryDirectory(prefix="crmtui-bench-report-") as tmp:
        root = Path(tmp) / "recordings"
        start = time.perf_counter()
        total_events = 0
        for n in range(args.recordings):
            events = rng.randrange(10, 31)
            total_events += events
            actor = ACTORS[n % len(ACTORS)]
            write_recording(root, rng, actor, idx=n // len(ACTORS), events=events, n=n)
        print(
            f"wrote {args.recordings} recordings ({total_events} events) "
            f"in {time.perf_counter() - start:.1f} s"
        )
        report_wall, report_cpu = _timed(lambda: to_table_text(report_folder(root)), args.repeat)
        big = write_recording(Path(tmp) / "big", rng, ACTORS[3], 0, args.events, 10**6)
        size_mb = big.stat().st_size / 1e6
        load_wall, load_cpu = _timed(lambda: load(big), args.repeat)
    print(_line(f"report over {args.recordings} recordings", report_wall, report_cpu, 3000))
    print(
        _line(
            f"load+verify {args.events}-event recording ({size_mb:.1f} MB)",
            load_wall,
            load_cpu,
            300,
        )
    )
    # Best-of-N is the uncontended cost; the machine running this may be shared.
    ok = min(report_wall) < 3000 and min(load_wall) < 300
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
