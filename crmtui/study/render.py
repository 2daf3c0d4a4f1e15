"""Renderings of study results as (title, headers, rows) grids, rich tables and Markdown.

Grids are plain strings so the CLI, Markdown and the status screen show the same cells.
"""

from __future__ import annotations

import datetime as dt
import io
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from crmtui.data.tasktypes import abbreviation
from crmtui.review import render
from crmtui.review.render import DASH, md_escape, md_table
from crmtui.review.report_format import later_notes, print_table, report_tables, to_dict
from crmtui.sanitise import printable_json, printable_text
from crmtui.study.agreement import AgreementStats
from crmtui.study.report import Distribution, StudyReport
from crmtui.study.status import StudyStatus, ago

if TYPE_CHECKING:
    from rich.console import Console

Grid = tuple[str, list[str], list[list[str]]]


def _share(value: float | None) -> str:
    return DASH if value is None else f"{value * 100:.1f}%"


def _alpha(value: float | None) -> str:
    return DASH if value is None else f"{value:.3f}"


# -- status ------------------------------------------------------------------------------


def _instructions_cell(state: dict[str, object] | None) -> str:
    if state is None:
        return DASH
    return {"accepted an older text": "older text"}.get(str(state["state"]), str(state["state"]))


def status_grids(status: StudyStatus, now: dt.datetime | None = None) -> list[Grid]:
    """The annotator table and the instance table of a status (with Role, Practice,
    Qualified and Instructions columns when the study has them)."""
    gated = any(row.qualification is not None for row in status.annotators)
    asked = any(row.instructions is not None for row in status.annotators)
    talking = any(row.role is not None for row in status.annotators)
    practiced = any(row.practice for row in status.annotators)
    people = [
        [
            row.annotator,
            *([row.role or DASH, row.partner or DASH] if talking else []),
            f"{row.done} / {row.assigned}",
            str(row.in_progress),
            str(row.left),
            *(
                [f"{row.practice_done} / {row.practice}" if row.practice else DASH]
                if practiced
                else []
            ),
            *([row.qualification.short if row.qualification else DASH] if gated else []),
            *([_instructions_cell(row.instructions)] if asked else []),
            render.duration(row.active_seconds),
            ago(row.last_activity, now),
        ]
        for row in status.annotators
    ]
    headers = [
        "Annotator",
        *(["Role", "Talks to"] if talking else []),
        "Done",
        "In progress",
        "Left",
        *(["Practice"] if practiced else []),
        *(["Qualified"] if gated else []),
        *(["Consent"] if asked else []),
        "Active",
        "Last activity",
    ]
    instances = [
        [
            str(row.idx),
            abbreviation(row.task),
            "yes" if row.shared else "",
            f"{len(row.finished)} / {len(row.assigned)}",
            ", ".join(row.assigned),
        ]
        for row in status.instances
    ]
    return [
        ("Annotators", headers, people),
        ("Instances", ["idx", "Type", "Shared", "Finished", "Assigned to"], instances),
    ]


def status_summary(status: StudyStatus) -> str:
    """One line: overall progress and what was read."""
    share = status.done / status.assigned * 100 if status.assigned else 0.0
    text = (
        f"Study {status.name}: {status.done} of {status.assigned} assigned instances done "
        f"({share:.0f}%), {status.files} recording(s) in {status.folder / 'recordings'}."
    )
    if status.skipped:
        text += f" {status.skipped} unreadable file(s) skipped."
    if status.stray:
        text += f" {status.stray} session(s) outside the assignments."
    return text


def print_grids(grids: Sequence[Grid], console: Console) -> None:
    """Print grids as rich tables."""
    from rich import box
    from rich.table import Table

    for title, headers, body in grids:
        table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        for n, header in enumerate(headers):
            table.add_column(header, justify="left" if n == 0 else "right", overflow="fold")
        for row in body:
            table.add_row(*row)
        console.print(table)


def grids_markdown(grids: Sequence[Grid]) -> str:
    """Grids as Markdown sections."""
    parts = []
    for title, headers, body in grids:
        rows = [[md_escape(cell) for cell in row] for row in body]
        parts += [f"## {title}", "", md_table(headers, rows), ""]
    return "\n".join(parts)


# -- report ------------------------------------------------------------------------------


def _interval(stats: AgreementStats) -> str:
    if stats.interval is None:
        return DASH
    return f"{stats.interval.low:.3f} to {stats.interval.high:.3f}"


def _agreement_rows(stats: AgreementStats) -> list[list[str]]:
    overall = [
        "all pairs",
        str(stats.items),
        str(stats.pairs_total),
        _share(stats.pairwise),
        _alpha(stats.alpha),
        _interval(stats),
    ]
    pairs = [
        [f"{p.first} · {p.second}", str(p.n), str(p.n), _share(p.share), "", ""]
        for p in stats.pairs
    ]
    return [overall, *pairs]


#: Longest answer shown in a disagreement row (the JSON report has them whole).
ANSWER_WIDTH = 40


def _short(text: object) -> str:
    shown = " ".join(str(text).split())
    return shown if len(shown) <= ANSWER_WIDTH else shown[: ANSWER_WIDTH - 1] + "…"


def disagreement_rows(result: StudyReport) -> list[list[str]]:
    """One row per disagreeing instance: idx, type, what differs, answers, gold."""
    return [
        [
            str(item.idx),
            item.task,
            ", ".join(item.on),
            " · ".join(
                f"{name}: {DASH if answer is None else _short(answer)} {_mark(item.right[name])}"
                for name, answer in item.answers.items()
            ),
            _short(item.gold),  # a gold of None shows as None, never as empty
        ]
        for item in result.disagreements
    ]


def _seconds(dist: Distribution) -> list[str]:
    return [
        render.duration(value) for value in (dist.low, dist.q1, dist.median, dist.q3, dist.high)
    ]


def _mark(right: bool | None) -> str:
    return DASH if right is None else ("✔" if right else "✘")


def study_grids(result: StudyReport) -> list[Grid]:
    """The study's own tables: agreement, annotators, humans versus models."""
    headers = [
        "Annotators",
        "Shared instances",
        "Pairs",
        "Pairwise agreement",
        "alpha",
        "alpha 95% CI",
    ]
    grids: list[Grid] = [
        ("Agreement on correctness", headers, _agreement_rows(result.correctness)),
        ("Agreement on answers (exact match)", headers, _agreement_rows(result.answers)),
        (
            "Disagreements to adjudicate",
            ["idx", "Type", "Differ on", "Answers", "Gold"],
            disagreement_rows(result) or [["none", "", "", "", ""]],
        ),
        (
            "Annotators: accuracy and active time per instance",
            [
                "Annotator",
                "Scored",
                "Right",
                "Accuracy",
                "95% CI",
                "Min",
                "Q1",
                "Median",
                "Q3",
                "Max",
            ],
            [
                [
                    row.annotator,
                    f"{row.scored} / {row.assigned}",
                    str(row.right),
                    _share(row.accuracy),
                    DASH
                    if row.interval is None
                    else f"{row.interval[0] * 100:.0f}–{row.interval[1] * 100:.0f}%",
                    *_seconds(row.seconds),
                ]
                for row in result.annotators
            ],
        ),
    ]
    if result.instances:
        grids.append(
            (
                "Humans versus models per instance",
                ["idx", "Type", "Humans right", *result.models],
                [
                    [
                        str(item.idx),
                        item.task,
                        f"{item.humans_right} / {len(item.humans)}",
                        *[_mark(item.models.get(m)) for m in result.models],
                    ]
                    for item in result.instances
                ],
            )
        )
    return grids


def study_notes(result: StudyReport) -> list[str]:
    """Notes under the study tables."""
    notes = [
        f"Study {result.study.name}: {len(result.study.annotators)} annotator(s), "
        f"{len(result.study.design.types)} instances, {len(result.study.shared)} shared "
        f"(overlap {result.study.design.overlap}).",
        "Agreement counts the shared instances with two or more scored answers; alpha is "
        "Krippendorff's alpha (nominal); a dash means undefined (e.g. every rating the same).",
        "Answers are compared after the scorer's cleaning (whitespace and quotes stripped).",
    ]
    interval = result.correctness.interval or result.answers.interval
    if interval is not None:
        notes.append(
            f"alpha's {interval.level * 100:.0f}% CI: percentile bootstrap over the shared "
            f"instances, {interval.resamples} resamples, seed {interval.seed} (resamples "
            "whose alpha is undefined are left out: "
            f"{_undefined(result)})."
        )
    notes += _standing_notes(result)
    for reason, count in sorted(result.excluded.items()):
        notes.append(f"{count} session(s) left out: {reason}.")
    return notes


def _undefined(result: StudyReport) -> str:
    parts = []
    for label, stats in (("correctness", result.correctness), ("answers", result.answers)):
        if stats.interval is not None:
            parts.append(f"{stats.interval.undefined} for {label}")
    return ", ".join(parts)


def _standing_notes(result: StudyReport) -> list[str]:
    """Qualification and instructions, one line each."""
    notes = []
    if result.qualification:
        needed = next(iter(result.qualification.values())).needed
        people = ", ".join(
            f"{name} {q.state} ({q.right} of {q.practice} right)"
            for name, q in result.qualification.items()
        )
        notes.append(f"Qualification: {needed} practice answer(s) right to go on: {people}.")
    if result.instructions is not None:
        people = ", ".join(
            f"{name} {state['state']}" + (f" {state['at']}" if state.get("at") else "")
            for name, state in result.consent.items()
        )
        notes.append(f"Instructions (sha256 {result.instructions[:12]}…): {people}.")
    return notes


def print_study_report(result: StudyReport, console: Console) -> None:
    """Print the whole study report as rich tables."""
    print_table(result.report, console)
    print_grids(study_grids(result), console)
    for note in study_notes(result):
        console.print(note, markup=False, highlight=False)


def study_report_text(result: StudyReport, width: int = 160) -> str:
    """The rich rendering as plain text (tests, files)."""
    from rich.console import Console

    buffer = io.StringIO()
    print_study_report(
        result, Console(file=buffer, width=width, color_system=None, highlight=False)
    )
    return buffer.getvalue()


def study_report_markdown(result: StudyReport) -> str:
    """The study report as Markdown."""
    parts = [f"# crmtui study report: {md_escape(result.study.name)}", ""]
    for title, headers, body in report_tables(result.report):
        rows = [[md_escape(cell) for cell in row] for row in body]
        parts += [f"## {title}", "", md_table(headers, rows), ""]
    parts.append(grids_markdown(study_grids(result)))
    # The report's own notes are printed with its tables in the text form; here only the
    # later submissions are (each named: a second answer to an instance is not counted).
    notes = [*study_notes(result), *later_notes(result.report)]
    parts += ["## Notes", ""] + [f"- {note}" for note in notes]
    return printable_text("\n".join(parts) + "\n")


def _distribution(dist: Distribution) -> dict[str, Any]:
    return {
        "n": dist.n,
        "min": dist.low,
        "q1": dist.q1,
        "median": dist.median,
        "q3": dist.q3,
        "max": dist.high,
    }


def study_report_json(result: StudyReport) -> str:
    """The study report as JSON: the usual report plus a ``study`` section."""
    doc = to_dict(result.report)
    doc["study"] = {
        "name": result.study.name,
        "annotators": result.study.annotators,
        "instances": len(result.study.design.types),
        "shared": result.study.shared,
        "overlap": result.study.design.overlap,
        "agreement": {
            "correctness": result.correctness.to_dict(),
            "answers": result.answers.to_dict(),
        },
        "annotator_stats": [
            {
                "annotator": row.annotator,
                "assigned": row.assigned,
                "scored": row.scored,
                "right": row.right,
                "accuracy": row.accuracy,
                "wilson_95": list(row.interval) if row.interval else None,
                "active_seconds": _distribution(row.seconds),
            }
            for row in result.annotators
        ],
        "models": result.models,
        "humans_versus_models": [
            {"idx": item.idx, "task": item.task, "humans": item.humans, "models": item.models}
            for item in result.instances
        ],
        "excluded": result.excluded,
        "disagreements": [item.to_dict() for item in result.disagreements],
        "qualification": {name: q.to_dict() for name, q in result.qualification.items()},
        "instructions": None
        if result.instructions is None
        else {"sha256": result.instructions, "annotators": result.consent},
    }
    return printable_json(json.dumps(doc, indent=2, ensure_ascii=False))
