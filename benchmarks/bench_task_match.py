"""Time the tasks-belong-to-the-org check on the ``full`` org (target: < 300 ms).

Builds the ``full`` org (seed 7) with its 1,170 tasks in a temporary ``CRMTUI_HOME`` and
times :func:`crmtui.org.task_match.check_task_ids` for its own tasks (every Id found) and,
when ``../shared/crmarena/crmarena_tasks.json`` is present, for the real CRMArena tasks
(every Id missing: the refusal case).

Usage::

    .venv/bin/python benchmarks/bench_task_match.py [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REAL_TASKS = Path(__file__).resolve().parents[2] / "shared" / "crmarena" / "crmarena_tasks.json"


def main(argv: list[str] | None = None) -> int:
    """Build ``full``, then print the median and max milliseconds of each check."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="crmtui-bench-") as tmp:
        os.environ["CRMTUI_HOME"] = str(Path(tmp) / "home")
        from crmtui.data.loaders import load_tasks
        from crmtui.org.build import build_org
        from crmtui.org.store import Org
        from crmtui.org.task_match import check_task_ids

        started = time.perf_counter()
        built = build_org(Path(tmp) / "full-7.db", seed=7, scale="full", name="full-7")
        print(f"built full-7 in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        org = Org.open(built.path)
        sources = [("own tasks of full-7", load_tasks(str(built.tasks_path)))]
        if REAL_TASKS.exists():
            sources.append(("real CRMArena tasks", load_tasks(str(REAL_TASKS))))
        print(f"{'tasks':24} {'n':>6} {'Ids':>6} {'found':>6} {'median ms':>10} {'max ms':>8}")
        for name, tasks in sources:
            times = []
            for _ in range(args.repeat):
                check = check_task_ids(tasks, org)
                times.append(check.seconds * 1000)
            print(
                f"{name:24} {len(tasks):6} {check.mentioned:6} {check.found:6} "
                f"{statistics.median(times):10.1f} {max(times):8.1f}"
            )
    print("target: < 300 ms for 1,170 instances on full")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
