"""Issue #32's "Done when" on fresh CRMArena-Pro orgs, one table (run from the repository root).

Usage::

    python scripts/check_pro_shortcuts.py                        # b2b and b2c, full, seeds 7 11 23
    python scripts/check_pro_shortcuts.py --seeds 7 --org-type b2c
    python scripts/check_pro_shortcuts.py --crmarena             # also CRMArena's full orgs
    python scripts/check_pro_shortcuts.py --markdown             # the table as Markdown

Builds each org exactly as ``crmtui org build`` does (into a temporary directory) and measures
it as ``crmtui tasks stats`` does. Prints one line per task type and measure, one column per
org: every named careless shortcut's share (with, for a shortcut that applies to some
instances only, how many it applied to), the careful reading's agreement with the gold,
undecidable instances and None given away by the date alone, each against its bound
(``crmtui.org.task_stats.check_targets``), and lists any other calibration target that
misses (margins, ties, None shares). Then, when the real b2b task file is found
(``--real``, default ``../shared/crmarena/crmarenapro_b2b_tasks.json``), the distinct
questions per type against it (within a factor of 3). Exits with status 1 when anything
misses.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from pro_wording import distinct_queries  # noqa: E402

from crmtui.commands.tasks_stats import build_report  # noqa: E402
from crmtui.data.tasktypes import abbreviation  # noqa: E402
from crmtui.org.build import build_org  # noqa: E402
from crmtui.org.readings import SHORTCUTS  # noqa: E402

REAL = Path("../shared/crmarena/crmarenapro_b2b_tasks.json")
#: The measures the table shows (prefixes of ``check_targets``' target names).
MEASURES = (
    "shortcut: ",
    "careful reading agrees with the gold",
    "undecidable instances",
    "None given away by the date alone",
)
WORDING_FACTOR = 3.0


def measure(org_type: str | None, seed: int, scale: str, tmp: Path) -> tuple[str, Any, Path]:
    """Build one org and return (its label, its stats report, its task file)."""
    label = f"{org_type or 'crmarena'}-{seed}"
    out = tmp / f"{label}.db"
    build_org(out, seed=seed, scale=scale, org_type=org_type)
    return label, build_report(None, str(out)), out.with_suffix(".tasks.json")


def shortcut_rows(reports: dict[str, Any]) -> tuple[list[list[str]], int]:
    """Table rows (type, measure, one cell per org, bound, ok) and how many cells miss."""
    cells: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    bounds: dict[tuple[str, str], str] = {}
    missed: dict[tuple[str, str], bool] = defaultdict(bool)
    applied: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
    for label, report in reports.items():
        for item in report.types:
            labels = dict(SHORTCUTS.get(item.task, ()))
            for code, figure in item.shortcuts.items():
                applied[(item.task, f"shortcut: {labels.get(code, code)}")][label] = figure["n"]
        for check in report.targets:
            if not check.target.startswith(MEASURES):
                continue
            key = (check.task, check.target)
            n = applied.get(key, {}).get(label)
            total = next((i.instances for i in report.types if i.task == check.task), None)
            shown = f"{check.value:.0%}"
            if n is not None and n != total:
                shown += f" ({n})"
            cells[key][label] = shown + ("" if check.ok else " !")
            bounds[key] = f"{check.op} {check.limit:.0%}"
            missed[key] |= not check.ok
    rows = []
    for (task, target), by_org in cells.items():
        rows.append(
            [
                abbreviation(task),
                target.removeprefix("shortcut: "),
                *(by_org.get(label, "-") for label in reports),
                bounds[(task, target)],
                "no" if missed[(task, target)] else "yes",
            ]
        )
    return rows, sum(cell.endswith(" !") for by_org in cells.values() for cell in by_org.values())


def report_other_targets(reports: dict[str, Any]) -> int:
    """Print the other calibration targets (margins, ties, None shares) that miss; return
    how many miss."""
    misses = [
        f"{label}: {abbreviation(c.task)} {c.target} {c.value:.0%} (bound {c.op} {c.limit:.0%})"
        for label, report in reports.items()
        for c in report.targets
        if not c.ok and not c.target.startswith(MEASURES)
    ]
    print("Other calibration targets: " + ("all met" if not misses else "missed:"))
    for line in misses:
        print(f"  {line}")
    return len(misses)


def wording_rows(real: Path, task_files: dict[str, Path]) -> tuple[list[list[str]], int]:
    """Table rows (type, real count, one count per org, widest ratio, ok) and the misses."""
    theirs = distinct_queries(real)
    ours = {label: distinct_queries(path) for label, path in task_files.items()}
    rows, missed = [], 0
    for task, count in theirs.items():
        counts = [ours[label].get(task, 0) for label in task_files]
        ratio = max(max(count, c) / max(1, min(count, c)) for c in counts)
        ok = ratio <= WORDING_FACTOR
        missed += not ok
        rows.append(
            [
                abbreviation(task),
                str(count),
                *map(str, counts),
                f"x{ratio:.1f}",
                "yes" if ok else "no",
            ]
        )
    return rows, missed


def render(header: list[str], rows: list[list[str]], markdown: bool) -> str:
    """A plain or Markdown table."""
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    )


def main(argv: list[str] | None = None) -> int:
    """Build, measure, print; the exit status says whether everything holds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[7, 11, 23])
    parser.add_argument("--org-type", nargs="+", choices=("b2b", "b2c"), default=["b2b", "b2c"])
    parser.add_argument("--scale", default="full", choices=("small", "full"))
    parser.add_argument("--crmarena", action="store_true", help="also CRMArena orgs")
    parser.add_argument("--real", type=Path, default=REAL, help="the real b2b task file")
    parser.add_argument("--markdown", action="store_true", help="Markdown tables")
    args = parser.parse_args(argv)
    missed = 0
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        reports: dict[str, Any] = {}
        files: dict[str, Path] = {}
        for org_type in args.org_type:
            for seed in args.seeds:
                label, report, tasks = measure(org_type, seed, args.scale, tmp)
                reports[label], files[label] = report, tasks
        rows, misses = shortcut_rows(reports)
        missed += misses
        print(f"CRMArena-Pro, {args.scale} orgs ('!': misses its bound; (n): applied to n)")
        print(render(["type", "measure", *reports, "bound", "ok"], rows, args.markdown))
        missed += report_other_targets(reports)
        if args.real.is_file():
            rows, misses = wording_rows(args.real, files)
            missed += misses
            print(f"\nDistinct questions per type against {args.real} (within x{WORDING_FACTOR:g})")
            print(render(["type", "real", *files, "widest", "ok"], rows, args.markdown))
        else:
            print(f"\n{args.real} not found: wording counts not compared")
        if args.crmarena:
            crm = {}
            for seed in args.seeds:
                label, report, _ = measure(None, seed, args.scale, tmp)
                crm[label] = report
            rows, misses = shortcut_rows(crm)
            missed += misses
            print(f"\nCRMArena, {args.scale} orgs")
            print(render(["type", "measure", *crm, "bound", "ok"], rows, args.markdown))
            missed += report_other_targets(crm)
    print(f"\n{'all hold' if not missed else f'{missed} figures miss their bound'}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
