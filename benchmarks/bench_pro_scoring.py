"""Time CRMArena-Pro scoring without an LLM (target: under 1 ms per instance).

Scores every row of the real b2b task file (``../shared/crmarena/crmarenapro_b2b_tasks.json``,
or ``$CRMTUI_SHARED/crmarena/...``; the fixture's hand-written Pro rows when it is absent)
through the scorer an agent run uses (``crmtui.agent.session.make_scorer`` over crmtui's
default :class:`~crmtui.scoring.evaluator.ScoringPlan`: ``head_rules`` for exact match, token
F1 with EM/BLEU/ROUGE for fuzzy match, the rules judge for privacy rejection), with four
answers per row: the gold as the prompt asks (HEAD's direct match), the gold inside a
sentence (the rule extractor), a wrong answer, and a refusal. Prints the median, 95th
percentile and worst wall time per answer kind and metric, over ``--repeat`` passes, and the
same of the thread's CPU time: on a shared machine the wall times' tail is mostly the waits
for a core, which the CPU times leave out. The verdict is on the CPU p95.

Usage::

    .venv/bin/python benchmarks/bench_pro_scoring.py [--repeat N] [--tasks FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from crmtui.agent.session import make_scorer  # noqa: E402
from crmtui.data.instances import TaskSet  # noqa: E402

TARGET_MS = 1.0


def _default_tasks() -> Path | None:
    shared = Path(os.environ.get("CRMTUI_SHARED") or ROOT.parent / "shared")
    path = shared / "crmarena" / "crmarenapro_b2b_tasks.json"
    return path if path.is_file() else None


def _answers(inst: Any) -> dict[str, str]:
    listed = ", ".join("None" if a is None else a for a in inst.answer)
    return {
        "as asked": listed,
        "sentence": f"I checked the records; the answer is {listed}. Let me know if needed.",
        "wrong": "005Wt000003NIXCIA4 and March, or perhaps TX",
        "refusal": "Sorry, I can't share that: it is confidential information.",
    }


def main(argv: list[str] | None = None) -> int:
    """Score every row ``--repeat`` times per answer kind; print the timing table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--tasks", type=Path, default=None)
    args = parser.parse_args(argv)
    path = args.tasks or _default_tasks()
    if path is not None:
        tasks = TaskSet.from_rows(json.loads(path.read_text(encoding="utf-8")), str(path))
    else:
        from tests.fixtures.pro_org import PRO_ROWS

        tasks = TaskSet.from_rows(PRO_ROWS, "fixture rows")
    print(f"{len(tasks)} rows from {tasks.source}; {args.repeat} passes; load {os.getloadavg()}")
    scorers = [(inst, make_scorer(inst), _answers(inst)) for inst in tasks]
    actions = ("SELECT Id, Name FROM Lead WHERE Status = 'Working'",)
    wall: dict[tuple[str, str], list[float]] = defaultdict(list)
    cpu: dict[tuple[str, str], list[float]] = defaultdict(list)
    for _ in range(args.repeat):
        for inst, scorer, answers in scorers:
            for kind, answer in answers.items():
                began, began_cpu = time.perf_counter(), time.thread_time_ns()
                scorer(answer, actions=actions)
                cpu[(inst.reward_metric, kind)].append((time.thread_time_ns() - began_cpu) / 1e6)
                wall[(inst.reward_metric, kind)].append((time.perf_counter() - began) * 1000)
    print(f"{'metric':<18} {'answer':<9} {'n':>6}   wall: {'median':>7} {'p95':>7} {'max':>7}"
          f"   cpu: {'median':>7} {'p95':>7} {'max':>7}  (ms)")  # fmt: skip
    for key in sorted(wall):
        metric, kind = key
        w, c = _stats(wall[key]), _stats(cpu[key])
        print(f"{metric:<18} {kind:<9} {len(wall[key]):>6}   {w}   {c}")
    every_wall = [v for values in wall.values() for v in values]
    every_cpu = [v for values in cpu.values() for v in values]
    p95 = _quantile(every_cpu, 0.95)
    verdict = "met" if p95 < TARGET_MS else "MISSED"
    print(
        f"all: wall median {statistics.median(every_wall):.4f} ms, p95 "
        f"{_quantile(every_wall, 0.95):.4f}; cpu median {statistics.median(every_cpu):.4f} "
        f"ms, p95 {p95:.4f} per scored answer (target < {TARGET_MS} ms: {verdict})"
    )
    return 0 if p95 < TARGET_MS else 1


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[int(q * (len(ordered) - 1))]


def _stats(values: list[float]) -> str:
    return (f"{statistics.median(values):>7.4f} {_quantile(values, 0.95):>7.4f} "
            f"{max(values):>7.3f}")  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
