"""Benchmark: CRMArena-Pro sample org builds and the time each task type's solver takes.

Usage::

    .venv/bin/python benchmarks/bench_pro_build.py                  # b2b and b2c, small and full
    .venv/bin/python benchmarks/bench_pro_build.py --org-type b2b --scale small --repeat 3
    .venv/bin/python benchmarks/bench_pro_build.py --no-solvers     # builds only

Reports, per org type and scale: the whole build (generate + write org + build tasks), wall
and CPU seconds of this process, best of ``--repeat``; then, on each org, the one-off time to
index its tables and, per task type, the median and slowest time of re-running an instance's
reference solver on those indexes (each instance run ``--runs`` times, its median kept). The
load average is printed before and after, since the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from crmtui.org.build import build_org
from crmtui.org.generator.pro import generate_pro
from crmtui.org.generator.pro.config import pro_scale
from crmtui.org.pro_tasks import PRO_TASK_ORDER, build_pro_tasks
from crmtui.org.solvers import TABLE_SOLVERS, TRUTH_SOLVERS, index_tables, run_solver
from crmtui.org.solvers.pro import PRO_TABLE_SOLVERS, pro_index, run_pro_solver


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (5 min {five:.1f})"


def bench_build(org_type: str, scale: str, seed: int, repeat: int) -> None:
    """Time whole builds of one org."""
    walls, cpus = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for index in range(repeat):
            out = Path(tmp) / f"{org_type}-{scale}-{index}.db"
            cpu = time.process_time()
            result = build_org(out, seed=seed, scale=scale, org_type=org_type)
            cpus.append(time.process_time() - cpu)
            walls.append(result.seconds)
            size = out.stat().st_size / 1e6
    rows = sum(result.counts.values())
    print(
        f"== build {org_type} {scale} (seed {seed}, best of {repeat}): {min(walls):.2f} s wall, "
        f"{min(cpus):.2f} s CPU; {rows:,} rows, {size:.1f} MB; {_load()}"
    )


def bench_solvers(org_type: str, scale: str, seed: int, runs: int) -> None:
    """Median solver time per task type on one org."""
    cfg = pro_scale(scale)
    generated = generate_pro(seed=seed, scale=scale, org_type=org_type)
    rows, solutions = build_pro_tasks(
        generated, seed=seed, per_type=cfg.per_type, per_privacy=cfg.per_privacy
    )
    started = time.perf_counter()
    service = index_tables(generated.tables)
    sales = pro_index(generated.tables)
    indexed = time.perf_counter() - started
    per_type: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        solution = solutions[str(row["idx"])]
        times = []
        for _ in range(runs):
            began = time.perf_counter()
            _run(solution, service, sales, generated.truth)
            times.append(time.perf_counter() - began)
        per_type[row["task"]].append(statistics.median(times))
    print(
        f"== solvers {org_type} {scale}: indexing the org once {indexed * 1000:.0f} ms; "
        f"per instance (median of {runs} runs), by type; {_load()}"
    )
    print(f"   {'task type':<34}{'n':>5}{'median ms':>11}{'max ms':>9}")
    worst = 0.0
    for task in PRO_TASK_ORDER:
        values = per_type[task]
        median = statistics.median(values) * 1000
        worst = max(worst, median)
        print(f"   {task:<34}{len(values):>5}{median:>11.3f}{max(values) * 1000:>9.2f}")
    print(f"   slowest type median: {worst:.3f} ms (target < 50 ms)")


def _run(solution: dict[str, Any], service: Any, sales: Any, truth: Any) -> Any:
    name, params = solution["solver"], solution["params"]
    if name in PRO_TABLE_SOLVERS:
        return run_pro_solver(name, params, tables=sales)
    if name in TABLE_SOLVERS:
        return run_solver(name, params, tables=service)
    if name in TRUTH_SOLVERS:
        return run_solver(name, params, truth=truth)
    return run_pro_solver(name, params, truth=truth)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--org-type", action="append", choices=["b2b", "b2c"])
    parser.add_argument("--scale", action="append", choices=["small", "full"])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-solvers", action="store_true", help="time the builds only")
    args = parser.parse_args(argv)
    print(f"start: {_load()}")
    for org_type in args.org_type or ["b2b", "b2c"]:
        for scale in args.scale or ["small", "full"]:
            bench_build(org_type, scale, args.seed, max(1, args.repeat))
            if not args.no_solvers:
                bench_solvers(org_type, scale, args.seed, max(1, args.runs))
    print(f"end: {_load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
