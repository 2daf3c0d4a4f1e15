"""Renderings of a :class:`~crmtui.review.report.Report`: rich tables, CSV, JSON, Markdown."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from crmtui.data.tasktypes import abbreviation
from crmtui.review import render
from crmtui.review.dialogue_report import DIALOGUE_RULES, dialogue_tables
from crmtui.review.recheck import DIFFERS, OUTCOMES
from crmtui.review.render import DASH, md_escape, md_table
from crmtui.review.report import AGREEMENT_KINDS, OVERALL, ActorRow, Cell, Report
from crmtui.sanitise import printable, printable_json, printable_text

if TYPE_CHECKING:
    from rich.console import Console

FORMATS = ("table", "csv", "json", "md")

RULES = (
    "A person's first submission of an instance counts (later ones are flagged, not counted);"
    " a model's latest finished, submitted session counts.",
    "Accuracy = mean reward (exact match 0/1; KQA and SIM: mean token F1; privacy rejection: "
    "share judged refused); (n) = instances.",
    "Overall accuracy = unweighted mean of the task columns that have data.",
    "Skill accuracy (CRMArena-Pro) = unweighted mean of that skill's task columns with data "
    "(task-to-skill mapping: crmtui's reading, see crmtui/data/skills.py).",
    "Active time excludes pauses and idle periods; queries = typed queries + browse actions.",
)


def _label(column: str) -> str:
    return column if column == OVERALL else abbreviation(column)


# Annotator names, task codes, paths and reasons come from recordings: in every rendering
# for people (table, Markdown, CSV) a control or bidi character in them is shown escaped
# (\x1b[31m, \u202e), never written raw; JSON keeps them exactly, as its own \u escapes.
def _shown(rows: list[list[str]]) -> list[list[str]]:
    return [[printable(cell) for cell in row] for row in rows]


def _accuracy(cell: Cell) -> str:
    return DASH if cell.value is None else f"{cell.value * 100:.1f} ({cell.n})"


def _time(cell: Cell) -> str:
    return render.duration(cell.value)


def _queries(cell: Cell) -> str:
    return render.number(cell.value)


def _tokens(cell: Cell) -> str:
    return render.number(cell.value, 0) if cell.n else DASH


def _cost(cell: Cell) -> str:
    return render.cost(cell.value) if cell.n else DASH


# (title, row attribute, formatter, only this kind of actor)
_TABLES: tuple[tuple[str, str, Callable[[Cell], str], str | None], ...] = (
    ("Accuracy % (KQA, SIM: mean F1 x 100), instances in parentheses", "accuracy", _accuracy, None),
    ("Median active time per instance (M:SS)", "active_seconds", _time, None),
    (
        "Median time away from the terminal per instance (M:SS, not subtracted from active)",
        "away_seconds",
        _time,
        "human",
    ),
    ("Median queries per instance", "queries", _queries, None),
    ("Tokens per instance (mean)", "tokens", _tokens, "model"),
    ("Cost per instance (mean, USD)", "cost", _cost, "model"),
)


SKILL_TITLE = "Accuracy % per CRMArena-Pro skill (mean of its task columns), instances"


def report_tables(report: Report) -> list[tuple[str, list[str], list[list[str]]]]:
    """Each table as (title, headers, rows of formatted cells)."""
    headers = ["Actor"] + [printable(_label(c)) for c in report.columns]
    grids = []
    for title, attr, fmt, kind in _TABLES:
        rows: list[ActorRow] = [r for r in report.rows if kind is None or r.kind == kind]
        if not rows:
            continue
        if report.dialogue_pairs:
            title = "Single-turn: " + title
        body = [[r.label] + [fmt(getattr(r, attr)[c]) for c in report.columns] for r in rows]
        grids.append((title, headers, _shown(body)))
        if attr == "accuracy" and report.skills:
            columns = [*report.skills, OVERALL]
            skill_body = [[r.label] + [_accuracy(r.skills[c]) for c in columns] for r in rows]
            grids.append((SKILL_TITLE, ["Actor", *columns], _shown(skill_body)))
    if report.agreement:
        body = [
            [a.human, a.model, str(a.n)] + [str(a.counts[k]) for k in AGREEMENT_KINDS]
            for a in report.agreement
        ]
        grids.append(
            (
                "Human versus model agreement",
                ["Human", "Model", "Shared", *AGREEMENT_KINDS],
                _shown(body),
            )
        )
    grids += [
        (title, headers, _shown(body))
        for title, headers, body in dialogue_tables(report.dialogue_pairs, report.dialogue_kinds)
    ]
    return grids


def report_notes(report: Report) -> list[str]:
    notes = [
        f"{len(report.sessions)} counted session(s) from {report.files} file(s) in {report.root}."
    ]
    if report.dialogues:
        notes.append(
            f"{len(report.dialogues)} counted dialogue(s) (multi-turn), each from its agent's "
            "recording; unanswered ones score 0 (see the report rules)."
        )
    for reason, count in sorted(report.excluded.items()):
        notes.append(f"{count} session(s) not counted: {reason}.")
    if report.scored_by:
        kinds = "; ".join(f"{label} ({n})" for label, n in report.scored_by.items())
        notes.append(f"Scored by: {kinds}.")
    notes += reward_check_notes(report)
    notes += later_notes(report)
    notes += list(RULES)
    if report.dialogues:
        notes += list(DIALOGUE_RULES)
    return [printable(note) for note in notes]


def later_notes(report: Report) -> list[str]:
    """One line per later submission of an instance already submitted (not counted)."""
    return [
        f"NOT COUNTED: {later.actor}, instance {later.idx}: {later.path} is a later submission "
        f"(at {later.submitted_at}); the first, {later.counted}, counts."
        for later in report.later
    ]


def reward_check_notes(report: Report) -> list[str]:
    """How recorded rewards compared with rewards recomputed from the tasks' gold."""
    if not report.reward_checks:
        return []
    counts = {outcome: 0 for outcome in OUTCOMES}
    for check in report.reward_checks:
        counts[check.outcome] += 1
    summary = ", ".join(f"{n} {outcome}" for outcome, n in counts.items() if n)
    notes = [f"Rewards recomputed from the task's gold: {summary}."]
    for check in report.reward_checks:
        if check.outcome == DIFFERS:
            what = "gold answer and reward" if check.gold_differs else "reward"
            notes.append(
                f"DISAGREES: {check.path}: recorded {what} do not match the task "
                f"(recorded reward {check.recorded!r}, recomputed {check.recomputed!r}; "
                "the recomputed reward is counted)."
            )
    return notes


#: More columns than this (CRMArena-Pro's 22 task types) do not fit a terminal side by side:
#: such a table (or one whose headers alone are wider than the terminal) is printed turned,
#: one row per task type (or skill) and one column per actor.
TURN_AFTER_COLUMNS = 12


def turned(
    headers: list[str], body: list[list[str]], what: str = "Task"
) -> tuple[list[str], list[list[str]]]:
    """A table with rows and columns swapped: the old headers become the ``what`` column."""
    rows = [[header, *(row[n] for row in body)] for n, header in enumerate(headers) if n]
    return [what, *(row[0] for row in body)], rows


def _least_width(headers: list[str], body: list[list[str]]) -> int:
    """Columns a table needs with no cell folded (a header may wrap at its spaces)."""
    widths = [
        max([len(word) for word in header.split()] + [len(row[n]) for row in body])
        for n, header in enumerate(headers)
    ]
    return sum(width + 2 for width in widths)


def _by_measure(headers: list[str], body: list[list[str]]) -> tuple[list[str], list[list[str]]]:
    """A multi-turn table turned: one column per row (named by its agent and user, or its
    pairing) and one row per measure."""
    if headers[:2] == ["Agent", "User"]:  # who played whom: the pair names the column
        headers = ["Agent / user", *headers[2:]]
        body = [[f"{row[0]} / {row[1]}", *row[2:]] for row in body]
    return turned(headers, body, "Measure")


def print_table(report: Report, console: Console) -> None:
    """Print the report as rich tables to ``console``."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    if not report.rows and not report.dialogue_pairs:
        console.print(Text(f"No counted sessions in {printable(str(report.root))}."))
    for title, headers, body in report_tables(report):
        too_wide = sum(len(h) + 3 for h in headers) > console.width  # the skill names
        if headers[0] == "Actor" and (len(headers) > TURN_AFTER_COLUMNS + 1 or too_wide):
            what = "Skill" if title == SKILL_TITLE else "Task"
            headers, body = turned(headers, body, what)
            title += f" (turned: one row per {what.lower()})"
        elif headers[0] != "Actor" and _least_width(headers, body) > console.width:
            # The multi-turn tables (eleven measures) fold every cell on an 80-column
            # terminal: turned, one column per pairing and one row per measure.
            headers, body = _by_measure(headers, body)
            title += " (turned: one row per measure)"
        # A light box leaves the 11 columns room on an 80-column terminal; cells wrap
        # ("100.0" over "(1)") or fold rather than hiding digits behind an ellipsis.
        table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        for n, header in enumerate(headers):
            # A long header (a turned table's pairing) wraps at its spaces rather than
            # taking its whole length; a word of a cell is not cut where it fits.
            words = [
                len(word) for cell in (header, *(row[n] for row in body)) for word in cell.split()
            ]
            least = min(len(header), max(words, default=0))
            table.add_column(
                header,
                justify="left" if n == 0 else "right",
                overflow="fold",
                min_width=least if n else None,
            )
        for row in body:
            table.add_row(*row)
        console.print(table)
    for skipped in report.skipped:
        line = Text("Skipped", style="yellow")
        line.append(f" {printable(str(skipped.path))}: {printable(skipped.reason)}")
        console.print(line)
    for note in report_notes(report):
        console.print(note, markup=False, highlight=False)


def to_table_text(report: Report, width: int = 160) -> str:
    """The rich rendering as plain text (for tests and files)."""
    from rich.console import Console

    buffer = io.StringIO()
    print_table(report, Console(file=buffer, width=width, color_system=None, highlight=False))
    return buffer.getvalue()


def to_markdown(report: Report) -> str:
    """The report as a Markdown document."""
    parts = [f"# crmtui report: {md_escape(printable(str(report.root)))}", ""]
    for title, headers, body in report_tables(report):
        rows = [[md_escape(cell) for cell in row] for row in body]
        parts += [f"## {title}", "", md_table(headers, rows), ""]
    if not report.rows:
        parts += ["No counted sessions.", ""]
    if report.skipped:
        parts += ["## Skipped files", ""]
        parts += [
            f"- `{printable(str(s.path))}`: {md_escape(printable(s.reason))}"
            for s in report.skipped
        ]
        parts.append("")
    parts += ["## Notes", ""] + [f"- {note}" for note in report_notes(report)]
    return printable_text("\n".join(parts) + "\n")


CSV_COLUMNS = (
    "actor",
    "kind",
    "actor_id",
    "strategy",
    "task",
    "abbreviation",
    "instances",
    "accuracy",
    "median_active_seconds",
    "median_queries",
    "mean_tokens",
    "mean_cost_usd",
)


def _metrics(row: ActorRow, column: str) -> dict[str, Any]:
    return {
        "instances": row.active_seconds[column].n,
        "scored": row.accuracy[column].n,
        "accuracy": row.accuracy[column].value,
        "median_active_seconds": row.active_seconds[column].value,
        "median_queries": row.queries[column].value,
        "mean_tokens": row.tokens[column].value if row.kind == "model" else None,
        "mean_cost_usd": row.cost[column].value if row.kind == "model" else None,
    }


def to_csv(report: Report) -> str:
    """One CSV row per (actor, task type with data, plus Overall); empty cell = no data."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in report.rows:
        for column in report.columns:
            metrics = _metrics(row, column)
            if column != OVERALL and metrics["instances"] == 0:
                continue
            names = [row.label, row.kind, row.actor_id, row.strategy or "", column]
            writer.writerow(
                [printable(name) for name in [*names, _label(column)]]
                + ["" if metrics[k] is None else metrics[k] for k in CSV_COLUMNS[6:]]
            )
    return buffer.getvalue()


def to_dict(report: Report) -> dict[str, Any]:
    """The report as a JSON-ready mapping."""
    return {
        "root": str(report.root),
        "files": report.files,
        "columns": [_label(c) for c in report.columns],
        "actors": [
            {
                "label": row.label,
                "kind": row.kind,
                "id": row.actor_id,
                "strategy": row.strategy,
                "cells": {_label(c): _metrics(row, c) for c in report.columns},
                "skills": {
                    skill: {"accuracy": cell.value, "scored": cell.n}
                    for skill, cell in row.skills.items()
                },
            }
            for row in report.rows
        ],
        "skills": list(report.skills),
        "scored_by": dict(report.scored_by),
        "agreement": [
            {
                "human": a.human,
                "model": a.model,
                "shared": a.n,
                **a.counts,
                "instances": [{"idx": idx, "outcome": kind} for idx, kind in a.instances],
            }
            for a in report.agreement
        ],
        "sessions": [
            {
                "path": str(s.path),
                "actor": s.actor_label,
                "idx": s.idx,
                "task": s.abbreviation,
                "reward": s.reward,
                "scoring": s.scoring,
                "scored_by": s.scored_by,
                "active_seconds": s.active_seconds,
                "queries": s.queries,
            }
            for s in report.sessions
        ],
        "dialogues": {
            "pairs": [row.to_dict() for row in report.dialogue_pairs],
            "pairings": [row.to_dict() for row in report.dialogue_kinds],
            "sessions": [
                {
                    "path": str(s.path),
                    "idx": s.idx,
                    "task": s.abbreviation,
                    "reward": s.reward,
                    **(s.dialogue.to_dict() if s.dialogue is not None else {}),
                }
                for s in report.dialogues
            ],
        },
        "skipped": [{"path": str(s.path), "reason": s.reason} for s in report.skipped],
        "excluded": report.excluded,
        "reward_checks": [
            {
                "path": str(c.path),
                "outcome": c.outcome,
                "recorded": c.recorded,
                "recomputed": c.recomputed,
                "gold_differs": c.gold_differs,
            }
            for c in report.reward_checks
            if c.outcome == DIFFERS
        ],
        "later_submissions": [
            {
                "actor": later.actor,
                "idx": later.idx,
                "path": str(later.path),
                "submitted_at": later.submitted_at,
                "counted": str(later.counted),
            }
            for later in report.later
        ],
        "rules": list(RULES),
    }


def to_json(report: Report) -> str:
    """The report as indented JSON."""
    return printable_json(json.dumps(to_dict(report), indent=2, ensure_ascii=False))
