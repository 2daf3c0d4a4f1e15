"""Check the generated tasks' calibration targets on fresh orgs (run from the repository root).

Usage::

    python scripts/check_calibration.py                      # full orgs of seeds 7, 11, 23
    python scripts/check_calibration.py --seeds 7 --scale small
    python scripts/check_calibration.py --real ../shared/crmarena/crmarena_tasks.json
    python scripts/check_calibration.py --org-type b2b b2c  # CRMArena-Pro orgs (issue #32)
    python scripts/check_calibration.py --org-type b2b b2c --task invalid_config

Builds each org exactly as ``crmtui org build`` does (into a temporary directory), then prints
``crmtui tasks stats`` for it: the figures per task type, the careful reading and the named
shortcuts (issue #24), and the calibration targets. With
``--real``, the real task file's table comes first and its None shares are the anchors the
targets compare with. With ``--task``, only those types' rows and targets are shown and
counted. Exits with status 1 when any target shown is missed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from rich.console import Console

from crmtui.commands.tasks_stats import build_report, readings_table, stats_table, targets_table
from crmtui.org.build import build_org
from crmtui.org.task_stats import check_targets


def main(argv: list[str] | None = None) -> int:
    """Build, measure and report; the exit status says whether every target is met."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[7, 11, 23])
    parser.add_argument("--scale", default="full", choices=("small", "full", "stress"))
    parser.add_argument("--real", type=Path, help="the real CRMArena task file, for reference")
    parser.add_argument(
        "--org-type",
        nargs="+",
        choices=("b2b", "b2c"),
        help="build CRMArena-Pro orgs of these types instead of CRMArena orgs",
    )
    parser.add_argument(
        "--task",
        nargs="+",
        metavar="TYPE",
        help="show and count only these task types (codes such as invalid_config)",
    )
    args = parser.parse_args(argv)
    console = Console(width=150, highlight=False)
    anchors = None
    if args.real is not None:
        real = build_report(str(args.real), None)
        console.print(stats_table(real))
        anchors = {item.task: item.none_share for item in real.types}
    missed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for org_type, seed in [(t, s) for t in args.org_type or [None] for s in args.seeds]:
            label = f"{org_type}-{args.scale}" if org_type else args.scale
            out = Path(tmp) / f"{label}-{seed}.db"
            built = build_org(out, seed=seed, scale=args.scale, org_type=org_type)
            report = build_report(None, str(out))
            if args.task:
                report.types = [item for item in report.types if item.task in args.task]
            report.targets = check_targets(report.types, anchors)
            console.print(stats_table(report))
            console.print(readings_table(report))
            console.print(targets_table(report))
            failed = [c for c in report.targets if not c.ok]
            missed += len(failed)
            console.print(
                f"{label} seed {seed}: built in {built.seconds:.1f} s, "
                f"{len(report.targets) - len(failed)}/{len(report.targets)} targets met\n"
            )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
