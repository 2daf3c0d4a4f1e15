"""What ``crmtui tasks stats`` reads and prints: a task set, its solutions and org, as tables.

The figures come from :func:`crmtui.org.task_stats.task_stats`; this module only finds the
inputs (a task file, the ``.solutions.json`` beside it, the org the solvers re-run on) and
renders the result as a rich table or JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.table import Table

from crmtui.data.instances import TaskSet
from crmtui.data.tasktypes import abbreviation
from crmtui.errors import ConfigError, OrgError
from crmtui.org.task_stats import TargetCheck, TypeStats, check_targets, task_stats


@dataclass
class StatsReport:
    """Everything ``tasks stats`` shows.

    Attributes:
        source: Where the tasks came from.
        org: The org the solvers were re-run on (None: no org).
        solutions: Where the recorded solutions came from (None: none found).
        types: Figures per task type.
        targets: Calibration checks (empty without solutions).
    """

    source: str
    org: str | None
    solutions: str | None
    types: list[TypeStats]
    targets: list[TargetCheck]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {
            "source": self.source,
            "org": self.org,
            "solutions": self.solutions,
            "types": [item.to_json() for item in self.types],
            "targets": [vars(check) for check in self.targets],
        }


def solutions_beside(tasks_file: Path) -> Path | None:
    """``X.solutions.json`` for ``X.tasks.json`` (or ``X.json``), when it exists."""
    name = tasks_file.name
    stem = name.removesuffix(".tasks.json") if name.endswith(".tasks.json") else tasks_file.stem
    candidate = tasks_file.with_name(f"{stem}.solutions.json")
    return candidate if candidate.exists() else None


def build_report(source: str | None, org_spec: str | None) -> StatsReport:
    """Load the inputs ``--tasks`` / ``--org`` name and compute the figures.

    Without ``--tasks``, the tasks are the ones generated beside the org (the sample org by
    default). With ``--tasks`` alone, only what the file holds is used: the gold distribution,
    plus the rankings recorded in a ``.solutions.json`` beside it if there is one.

    Raises:
        ConfigError: The org has no generated tasks beside it.
        OrgError: The org cannot be opened.
    """
    from crmtui.data.loaders import SAMPLE_SOURCE, load_tasks
    from crmtui.org.sample import open_org_or_sample, sample_tasks_path

    if source is not None and source.strip() == SAMPLE_SOURCE and org_spec is None:
        source = None  # the sample's own tasks: beside the sample org, with its solutions
    org = None
    if org_spec is not None or source is None:
        org = open_org_or_sample(org_spec)
    if source is None:
        assert org is not None
        tasks_file = org.path.with_suffix(".tasks.json")
        if not tasks_file.exists():
            raise ConfigError(
                f"org {org.name!r} has no generated tasks beside it ({tasks_file}); "
                "pass --tasks with a task file"
            )
        rows = json.loads(tasks_file.read_text(encoding="utf-8"))
        task_set = TaskSet.from_rows(rows, source=str(tasks_file))
    else:
        task_set = load_tasks(source, sample_tasks=sample_tasks_path)
        local = Path(source).expanduser()
        if source.strip() == SAMPLE_SOURCE:
            tasks_file = sample_tasks_path()
        else:
            tasks_file = local if local.is_file() else None
    solutions_path = solutions_beside(tasks_file) if tasks_file is not None else None
    solutions = None
    if solutions_path is not None:
        solutions = json.loads(solutions_path.read_text(encoding="utf-8"))
    index = subjects = pro = rows = None
    if org is not None and solutions is not None:
        index, subjects, pro, rows = _org_index(org)
    types = task_stats(task_set, solutions, index, subjects, pro_index=pro, rows=rows)
    return StatsReport(
        source=task_set.source or str(source),
        org=str(org.path) if org is not None and index is not None else None,
        solutions=str(solutions_path) if solutions_path is not None else None,
        types=types,
        targets=check_targets(types) if solutions is not None else [],
    )


def _org_index(org: Any) -> tuple[Any, list[str], Any, Any]:
    """The org's service index, case subjects, (for a CRMArena-Pro org) sales index, and its
    rows for the independent readings (which share no code with the solvers)."""
    from crmtui.org.readings import OrgRows
    from crmtui.org.readings.pro_rows import PRO_READING_FIELDS
    from crmtui.org.solvers import index_tables
    from crmtui.org.solvers.pro import pro_index
    from crmtui.org.task_stats import PRO_ORG_FIELDS, read_org_tables

    objects = {obj.name: [field.name for field in obj.fields] for obj in org.schema}
    for obj in objects.values():
        obj.append("Id")
    is_pro = "Opportunity" in objects
    conn = org.connect()
    try:
        tables = read_org_tables(conn, objects)
        sales = read_org_tables(conn, objects, PRO_ORG_FIELDS) if is_pro else None
        sales_rows = read_org_tables(conn, objects, PRO_READING_FIELDS) if is_pro else None
    except Exception as exc:  # sqlite3 errors on a damaged file
        raise OrgError(f"cannot read org {org.path}: {exc}") from exc
    finally:
        conn.close()
    subjects = [str(row["Subject"]) for row in tables.get("Case", ()) if row.get("Subject")]
    pro = pro_index(sales) if sales is not None else None
    return index_tables(tables), subjects, pro, OrgRows.from_tables(tables, sales_rows)


CAPTION = (
    "None: share of gold None. distinct, top-3: gold values among the answered. single: "
    "one candidate only. close: best and second within 1% or one. evidence: median records "
    "per answer."
)


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


def _notes(item: TypeStats) -> str:
    extras = item.extras
    notes = []
    if "winner_3_cases" in extras:
        notes.append(f"winner on ≥3 cases {_pct(extras['winner_3_cases'])}")
    if "months_3" in extras:
        notes.append(f"≥3 months {_pct(extras['months_3'])}")
    if "rule_1" in extras:
        rules = "/".join(f"{100 * extras[f'rule_{r}']:.0f}" for r in (1, 2, 3))
        notes.append(f"rule 1/2/3 {rules}%")
    if "subject_reused" in extras:
        notes.append(f"reused subjects {extras['subject_reused']:.0f}")
    if item.mismatches:
        notes.append(f"{item.mismatches} golds differ on re-run")
    return "; ".join(notes)


def stats_table(report: StatsReport) -> Table:
    """Figures per task type as a rich table."""
    table = Table(title=f"Task statistics: {report.source}", caption=CAPTION)
    for name, justify in (
        ("type", "left"),
        ("n", "right"),
        ("answered", "right"),
        ("None", "right"),
        ("distinct", "right"),
        ("top-3", "right"),
        ("single", "right"),
        ("close", "right"),
        ("ties", "right"),
        ("evidence", "right"),
    ):
        table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    table.add_column("notes", min_width=16)
    for item in report.types:
        table.add_row(
            abbreviation(item.task),
            str(item.instances),
            str(item.answered),
            _pct(item.none_share),
            str(item.distinct),
            _pct(item.top3_share),
            _pct(item.single_share),
            _pct(item.close_share),
            "—" if item.ties is None else str(item.ties),
            "—" if item.evidence_median is None else f"{item.evidence_median:g}",
            _notes(item),
        )
    return table


READINGS_CAPTION = (
    "careful: gold answers the independent careful reading gives. undecidable: instances "
    "whose text does not fix one answer. dated None: instances about a period whose None the "
    "date alone gives away (the period lies outside the org's data). close / near: best and "
    "second within 1% or one / within 10%. shortcut: expected accuracy of a solver taking it "
    "(n: instances it applies to)."
)


def has_readings(report: StatsReport) -> bool:
    """Whether the report holds readings (an org and solutions were given)."""
    return any(item.careful_share is not None or item.shortcuts for item in report.types)


def readings_table(report: StatsReport) -> Table:
    """Per type: careful agreement, undecidable share, both margins and each shortcut."""
    from crmtui.org.readings import SHORTCUTS

    table = Table(title="Careful reading and shortcuts", caption=READINGS_CAPTION)
    for name, justify in (
        ("type", "left"),
        ("careful", "right"),
        ("undecidable", "right"),
        ("dated None", "right"),
        ("close", "right"),
        ("near", "right"),
        ("shortcut", "left"),
        ("accuracy", "right"),
        ("n", "right"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for item in report.types:
        labels = dict(SHORTCUTS.get(item.task, ()))
        figures: list[tuple[str, dict[str, float] | None]] = list(item.shortcuts.items())
        figures = figures or [("", None)]
        for position, (code, figure) in enumerate(figures):
            first = position == 0
            table.add_row(
                abbreviation(item.task) if first else "",
                _pct(item.careful_share) if first else "",
                _pct(item.undecidable_share) if first else "",
                _pct(item.date_none_share) if first else "",
                _pct(item.close_share) if first else "",
                _pct(item.near_share) if first else "",
                labels.get(code, code) if figure else "—",
                _pct(figure["share"]) if figure else "—",
                f"{figure['n']:.0f}" if figure else "",
            )
    return table


def targets_table(report: StatsReport) -> Table:
    """The calibration checks as a rich table."""
    failed = sum(1 for check in report.targets if not check.ok)
    title = "Calibration targets: " + ("all met" if not failed else f"{failed} not met")
    table = Table(title=title)
    table.add_column("type")
    table.add_column("target")
    table.add_column("value", justify="right")
    table.add_column("bound", justify="right")
    table.add_column("ok")
    for check in report.targets:
        count = check.target in ("exact ties", "new-case subjects equal to an org subject")
        value = f"{check.value:.0f}" if count else _pct(check.value)
        bound = f"{check.limit:.0f}" if count else _pct(check.limit)
        table.add_row(
            abbreviation(check.task),
            check.target,
            value,
            f"{check.op} {bound}",
            "yes" if check.ok else "NO",
        )
    return table
