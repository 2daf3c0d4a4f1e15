"""Time ``crmtui study status`` over 10,000 recordings (target < 2 s).

A study of 50 annotators x 200 instances each is created on an in-memory task set (9 task
types), then one recording per (annotator, instance) is written with the real
:class:`~crmtui.record.Recorder` (frozen clocks, no fsync): 10-30 events each (browse
actions, queries, answer edits, a pause and resume in some, an idle in some), most
submitted and ended, some left unfinished. Then the status is read (every file's header,
last line and timing lines) and rendered as the command's tables, best of N.

Usage::

    .venv/bin/python benchmarks/bench_study_status.py [--recordings 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from crmtui.data.instances import TaskSet
from crmtui.data.tasktypes import TASK_ORDER
from crmtui.play.workspace import Workspace
from crmtui.record import Recorder
from crmtui.study import StudyRequest, create_study, load_study, study_status
from crmtui.study.definition import Settings

ORG = {"path": "/orgs/sample.db", "digest": "d" * 64, "name": "sample"}
START = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
TARGET_S = 2.0


def task_set(per_type: int) -> TaskSet:
    rows = [
        {
            "idx": block * 1000 + n,
            "task": code,
            "query": f"Question {n} of {code}?",
            "answer": "CA",
            "metadata": {"required": "- Today's date: 2024-03-01", "optional": ""},
            "reward_metric": "fuzzy_match" if code == "knowledge_qa" else "exact_match",
        }
        for block, code in enumerate(TASK_ORDER)
        for n in range(per_type)
    ]
    return TaskSet.from_rows(rows, "bench")


def write(root: Path, instance: Any, annotator: str, rng: random.Random, n: int) -> None:
    now = [START + dt.timedelta(minutes=n), 0.0]

    def tick(seconds: float) -> None:
        now[0] += dt.timedelta(seconds=seconds)
        now[1] += seconds

    recorder = Recorder.create(
        root,
        actor={"kind": "human", "id": annotator},
        instance=instance,
        org=ORG,
        tasks_source="sample",
        today=instance.today,
        mode="default",
        wall=lambda: now[0],
        monotonic=lambda: now[1],
        fsync=False,
    )
    for step in range(rng.randrange(8, 28)):
        tick(rng.uniform(0.5, 20))
        kind = step % 4
        if kind == 0:
            recorder.emit("open_object", {"object": "Case", "query": "SELECT Id FROM Case"})
        elif kind == 1:
            recorder.emit(
                "run_query",
                {
                    "text": "SELECT Id FROM Case LIMIT 5",
                    "kind": "soql",
                    "rows": 5,
                    "ms": 2.0,
                    "error_code": None,
                    "error": None,
                },
            )
        elif kind == 2:
            recorder.emit("answer_edit", {"text": "C" * (step % 5 + 1)})
        elif rng.random() < 0.3:
            recorder.emit("pause", {})
            tick(30)
            recorder.emit("resume", {})
        else:
            recorder.emit("idle", {"seconds": 65.0})
    if rng.random() < 0.9:
        recorder.emit("submit", {"answer": "CA", "reward": 1.0, "scoring": "strict", "gold": "CA"})
        recorder.close("next", 1.0)
    else:
        recorder.suspend()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recordings", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one run")
    args = parser.parse_args()
    annotators = [f"ann{i:02d}" for i in range(50)]
    per_annotator = max(1, args.recordings // len(annotators))
    per_type = -(-per_annotator // len(TASK_ORDER))
    tasks = task_set(per_type)
    with tempfile.TemporaryDirectory(prefix="crmtui-bench-study-") as tmp:
        os.environ["CRMTUI_STUDIES"] = tmp
        study, _ = create_study(
            StudyRequest(
                name="bench",
                annotators=annotators,
                idx=tasks.idxs[:per_annotator],
                shared=1.0,
                overlap=len(annotators),
                settings=Settings(),
            ),
            workspace=Workspace(org=ORG, tasks=tasks, tasks_label="sample"),
        )
        rng = random.Random(7)
        started = time.perf_counter()
        n = 0
        for name in annotators:
            for idx in study.assignments[name].instances:
                write(study.recordings, tasks.get(idx), name, rng, n)
                n += 1
        print(f"wrote {n:,} recordings in {time.perf_counter() - started:.1f} s")
        from rich.console import Console

        from crmtui.study.render import print_grids, status_grids

        times, cpu = [], []
        for _ in range(args.repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            status = study_status(load_study("bench"))
            print_grids(status_grids(status), Console(file=io.StringIO(), width=160))
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        if args.profile:
            import cProfile
            import pstats

            cProfile.runctx("study_status(load_study('bench'))", globals(), locals(), "/tmp/p")
            pstats.Stats("/tmp/p").sort_stats("cumulative").print_stats(15)
        assert status.files == n, (status.files, n)
        from crmtui.study.status import FactsCache

        cache: FactsCache = {}
        study_status(load_study("bench"), cache=cache)
        t0 = time.perf_counter()
        study_status(load_study("bench"), cache=cache)
        warm = time.perf_counter() - t0
        print(f"refresh with nothing changed (the status screen's cache): {warm:.2f} s")
        best = min(times)
        print(
            f"study status over {n:,} recordings: best {best:.2f} s, median "
            f"{statistics.median(times):.2f} s (runs {', '.join(f'{t:.2f}' for t in times)}; "
            f"CPU best {min(cpu):.2f} s); "
            f"target < {TARGET_S:.0f} s; {status.done:,} done of {status.assigned:,}"
        )
        return 0 if best < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
