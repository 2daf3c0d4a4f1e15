"""Benchmark replay: load + verify and the fold of a 10,000-event recording.

A realistic mix of a human's and a model's events (browse actions with back/forward and
filters, queries with observations, model calls, answer edits, pauses) is written to a temp
dir, then timed::

    .venv/bin/python benchmarks/bench_replay.py                # 10,000 events, 5 repeats
    .venv/bin/python benchmarks/bench_replay.py --events 2000 --repeat 3

Target: load + verify under 300 ms (issue 6). The fold is reported beside it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from crmtui.record import Recorder, load
from crmtui.review.replay import replay

TARGET_MS = 300.0
HEADER: dict[str, Any] = {
    "actor": {"kind": "model", "id": "bench/model", "strategy": "react"},
    "instance": {"idx": 1, "task": "handle_time", "query": "q", "reward_metric": "exact_match"},
    "org": {"path": "/orgs/sample.db", "digest": "0" * 64, "name": "sample"},
    "tasks_source": "bench",
}
OBJECTS = ["Case", "Account", "Order", "Contact"]


def _event(i: int, rng: random.Random) -> tuple[str, dict[str, Any]]:
    obj = rng.choice(OBJECTS)
    rid = f"500{rng.randrange(10**12):012d}"
    select = f"SELECT Id, Name, Status FROM {obj}"
    kind = i % 12
    if kind == 0:
        return "open_object", {"object": obj, "query": select}
    if kind == 1:
        return "sort", {"object": obj, "field": "Name", "descending": True, "query": select}
    if kind == 2:
        value = rng.choice(["New", "Closed", "O'Brien"])
        return "filter", {
            "object": obj,
            "field": "Status",
            "op": "=",
            "value": value,
            "query": f"{select} WHERE Status = '{value}'",
        }
    if kind == 3:
        return "open_record", {"object": obj, "id": rid, "query": f"{select} WHERE Id = '{rid}'"}
    if kind == 4:
        return "back", {"query": select}
    if kind == 5:
        return "forward", {"query": select}
    if kind == 6:
        return "model_call", {
            "prompt_tokens": 1800,
            "completion_tokens": 120,
            "cost": 0.0021,
            "latency_ms": 840.5,
            "content": "Thought: I should look at the cases. " * 8,
        }
    if kind == 7:
        return "thought", {"text": "Group the cases by owner and compare handle times."}
    if kind in (8, 9):
        failed = kind == 9 and rng.random() < 0.3
        return "run_query", {
            "text": f"SELECT OwnerId, COUNT(Id) FROM Case WHERE AccountId = '{rid}' "
            "GROUP BY OwnerId",
            "kind": "soql",
            "rows": 0 if failed else rng.randrange(50),
            "ms": 3.2,
            "error_code": "INVALID_FIELD" if failed else None,
            "error": "INVALID_FIELD: no such column" if failed else None,
            "observation": "[{'OwnerId': '005...', 'expr0': 3}]" * 4,
        }
    if kind == 10:
        return "answer_edit", {"text": rid}
    return ("pause", {}) if (i // 12) % 2 == 0 else ("resume", {})


def write_recording(path: Path, count: int, seed: int = 7) -> Path:
    """Write a ``count``-event recording (no fsync) and return its path."""
    rng = random.Random(seed)
    moment = dt.datetime(2026, 1, 2, tzinfo=dt.UTC)
    mono = [0.0]

    def wall() -> dt.datetime:
        return moment + dt.timedelta(seconds=mono[0])

    def monotonic() -> float:
        mono[0] += 0.25
        return mono[0]

    recorder = Recorder.create(
        path, **HEADER, wall=wall, monotonic=monotonic, fsync=False, session_id="b" * 32
    )
    for i in range(count - 1):
        recorder.emit(*_event(i, rng))
    recorder.close("finished")
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = write_recording(Path(tmp) / "bench.jsonl", args.events)
        size = path.stat().st_size
        loads, folds = [], []
        for _ in range(args.repeat):
            start = time.perf_counter()
            recording = load(path)
            loaded = time.perf_counter()
            result = replay(recording)
            folds.append((time.perf_counter() - loaded) * 1000)
            loads.append((loaded - start) * 1000)
        assert len(result.frames) == args.events
    best_load, best_fold = min(loads), min(folds)
    print(f"recording: {args.events:,} events, {size / 1e6:.1f} MB")
    print(
        f"load + verify: best {best_load:.0f} ms, median {statistics.median(loads):.0f} ms "
        f"(target < {TARGET_MS:.0f} ms: {'OK' if best_load < TARGET_MS else 'MISSED'})"
    )
    print(
        f"fold ({len(result.frames):,} frames): best {best_fold:.0f} ms, "
        f"median {statistics.median(folds):.0f} ms"
    )
    print(f"load + verify + fold: best {best_load + best_fold:.0f} ms")


if __name__ == "__main__":
    main()
