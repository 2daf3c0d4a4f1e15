"""Benchmark: ``crmtui tasks stats`` on a fresh ``full`` org (target < 2 s).

Builds the org once into a temporary directory (like ``crmtui org build --scale full``), then
times, best of N:

* ``stats``: :func:`crmtui.commands.tasks_stats.build_report` (read the task and solutions
  files, read the org's tables, re-run every table solver, re-read every instance with the
  independent readings, compute the figures and targets) plus rendering the three rich
  tables (its CPU time is printed too);
* ``cli``: the whole command in a fresh process, ``crmtui tasks stats --org PATH`` (adds the
  interpreter start and imports).

Best-of-N wall time is compared with the target (the median is printed too; on a shared
machine it includes waiting for the CPU). Exit status 1 if the target is missed.

Usage::

    .venv/bin/python benchmarks/bench_stats.py [--seed 7] [--repeat 3]
"""

from __future__ import annotations

import argparse
import io
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console

from crmtui.commands.tasks_stats import (
    build_report,
    readings_table,
    stats_table,
    targets_table,
)
from crmtui.org.build import build_org

TARGET_S = 2.0


def _time(run: object, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()  # type: ignore[operator]
        times.append(time.perf_counter() - started)
    return times


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    repeat = max(1, args.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        org = Path(tmp) / f"full-{args.seed}.db"
        build_org(org, seed=args.seed, scale="full")

        def in_process() -> None:
            report = build_report(None, str(org))
            console = Console(file=io.StringIO(), width=150)
            console.print(stats_table(report))
            console.print(readings_table(report))
            console.print(targets_table(report))

        def fresh_process() -> None:
            crmtui = Path(sys.executable).with_name("crmtui")
            command = [str(crmtui), "tasks", "stats", "--org", str(org)]
            subprocess.run(command, check=True, capture_output=True)

        cpu_started = time.process_time()
        results = {"stats": _time(in_process, repeat)}
        cpu = (time.process_time() - cpu_started) / repeat
        results["cli"] = _time(fresh_process, repeat)
    print(f"stats  CPU {cpu:.2f} s per run (in process)")
    missed = False
    for name, times in results.items():
        best = min(times)
        verdict = "ok" if best < TARGET_S else "MISSED"
        missed |= best >= TARGET_S
        print(
            f"{name:<6} best {best:.2f} s   median {statistics.median(times):.2f} s   "
            f"target < {TARGET_S:.0f} s: {verdict}"
        )
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
