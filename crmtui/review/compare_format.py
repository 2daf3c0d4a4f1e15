"""Markdown rendering of a :class:`~crmtui.review.compare.Comparison`."""

from __future__ import annotations

from crmtui.data.tasktypes import abbreviation
from crmtui.review import render
from crmtui.review.compare import Comparison
from crmtui.review.render import DASH, md_escape, md_table
from crmtui.review.report import scoring_label
from crmtui.review.trajectory import Step
from crmtui.sanitise import printable_text
from crmtui.scoring.rules import gold_text

#: Longest query text shown in a step cell (the JSON output keeps it whole).
CELL_LIMIT = 90
DIVERGENCE_MARK = "◀ first divergence"


def _step_cell(step: Step | None) -> str:
    if step is None:
        return DASH
    text = md_escape(step.label, CELL_LIMIT)
    if step.error_code:
        text += f" **[{md_escape(step.error_code)}]**"
    return text


def _actor_table(comparison: Comparison) -> str:
    actors = comparison.actors
    headers = [""] + [a.actor_label for a in actors]
    models = any(a.actor_kind == "model" for a in actors)
    rows: list[list[object]] = [
        ["Kind"] + [a.actor_kind for a in actors],
        ["Answer"] + [md_escape(a.answer) if a.submitted else "(none)" for a in actors],
        ["Reward"] + [render.reward(a.reward) for a in actors],
        ["Scored by"] + [md_escape(scoring_label(a)) if a.submitted else DASH for a in actors],
        ["Active time"] + [render.duration(a.active_seconds) for a in actors],
        ["Wall time"]
        + [DASH if a.wall_ms is None else render.duration(a.wall_ms / 1000) for a in actors],
        ["Away"]
        + [render.duration(a.away_seconds) if a.actor_kind == "human" else DASH for a in actors],
        ["Queries"] + [str(a.queries) for a in actors],
        ["Records seen"] + [str(a.records_viewed) for a in actors],
    ]
    if any(a.scratch_steps for a in actors):
        rows.append(["Scratch steps"] + [str(a.scratch_steps) for a in actors])
    if models:
        rows.append(
            ["Tokens"]
            + [render.number(a.tokens) if a.actor_kind == "model" else DASH for a in actors]
        )
        rows.append(
            ["Cost"] + [render.cost(a.cost) if a.actor_kind == "model" else DASH for a in actors]
        )
    if comparison.evidence is not None:
        rows.append(["Evidence seen"] + [f"{len(e.seen)}/{e.total}" for e in comparison.evidence])
        rows.append(["Verdict"] + [e.verdict for e in comparison.evidence])
    rows.append(
        ["Diverges at"]
        + [
            "reference" if n == 0 else (DASH if d is None else f"step row {d + 1}")
            for n, d in enumerate(comparison.divergence)
        ]
    )
    return md_table(headers, rows)


def _steps_table(comparison: Comparison) -> str:
    headers = ["#", "status"] + [a.actor_label for a in comparison.actors]
    rows = []
    for n, row in enumerate(comparison.rows):
        status = row.status
        if n == comparison.first_divergence:
            status = f"**{status}** {DIVERGENCE_MARK}"
        rows.append([str(n + 1), status] + [_step_cell(cell) for cell in row.cells])
    return md_table(headers, rows)


def comparison_markdown(comparison: Comparison) -> str:
    """Render a comparison as a Markdown document."""
    label = abbreviation(comparison.task)
    title = f"# Compare idx {comparison.idx}: {label}"
    if label != comparison.task:
        title += f" ({comparison.task})"
    parts = [title, "", "> " + md_escape(comparison.query), ""]
    if any(actor.submitted for actor in comparison.actors):
        parts.append(f"Gold answer: `{gold_text(comparison.gold)}`")
    else:
        parts.append("Gold answer: not revealed (nobody submitted).")
    if comparison.first_divergence is None:
        parts.append("The trajectories are identical step by step.")
    else:
        parts.append(f"First divergence: step row {comparison.first_divergence + 1}.")
    if comparison.evidence_total is not None:
        parts.append(f"The gold answer rests on {comparison.evidence_total} record(s).")
    else:
        parts.append("No evidence list (no solutions file for this org or instance).")
    for note in comparison.notes:
        parts.append(f"Note: {note}.")
    parts += ["", "## Actors", "", _actor_table(comparison), "", "## Steps", ""]
    parts.append(_steps_table(comparison) if comparison.rows else "(no steps)")
    # Answers, gold values, names and queries come from recordings: a NUL, C1 or escape
    # sequence in any of them is shown escaped, never written to the terminal.
    return printable_text("\n".join(parts) + "\n")
