"""Widgets of the compare screen: actor cards, aligned steps, evidence and a step's detail.

Each widget renders part of a :class:`~crmtui.review.compare.Comparison` handed down by the
screen; none of them computes anything about the trajectories (that is
:mod:`crmtui.review.compare`). The steps table posts :class:`StepsTable.RowChosen` up when
the user presses Enter on a row; the screen then hands the row to :class:`StepDetail`.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.events import Resize
from textual.message import Message
from textual.widgets import DataTable, Static

from crmtui.record import events as ev
from crmtui.review import render
from crmtui.review.align import GAP, MATCH, AlignedRow
from crmtui.review.compare import (
    LUCKY_GUESS,
    MISSED_EVIDENCE,
    REASONING_ERROR,
    SOLVED,
    Comparison,
    Evidence,
)
from crmtui.review.summary import SessionSummary, is_right
from crmtui.review.trajectory import Step, object_of_id

DIVERGENCE_LABEL = "◀ first divergence"

VERDICT_STYLES = {
    SOLVED: "bold green",
    LUCKY_GUESS: "bold yellow",
    REASONING_ERROR: "bold magenta",
    MISSED_EVIDENCE: "bold red",
}
STATUS_STYLES = {MATCH: "green", "partial": "yellow", GAP: "dim"}
# The first divergence row is tinted so the eye finds it without moving the cursor.
DIVERGENCE_ROW_STYLE = "on #5f1f1f"


def verdict_text(verdict: str) -> Text:
    """A verdict in its colour (unscored: dim)."""
    return Text(verdict, style=VERDICT_STYLES.get(verdict, "dim"))


def reward_text(summary: SessionSummary) -> Text:
    """The reward, green when right, red when wrong, a dim dash when unscored."""
    right = is_right(summary.reward, summary.reward_metric)
    if right is None:
        return Text(render.reward(summary.reward), style="dim")
    mark = " ✓ right" if right else " ✗ wrong"
    return Text(render.reward(summary.reward) + mark, style="green" if right else "red")


def one_line(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: max(0, width - 1)] + "…"


def queries_text(summary: SessionSummary) -> Text:
    """``3: 1 typed, 2 browse`` plus failed typed queries in red."""
    text = Text(
        f"{summary.queries}: {summary.typed_queries} typed, {summary.browse_actions} browse"
    )
    if summary.query_errors:
        text.append(f", {summary.query_errors} failed", style="red")
    return text


def active_text(summary: SessionSummary) -> str:
    """Active time, with the time away from the terminal beside it when there was some."""
    text = render.duration(summary.active_seconds)
    if summary.away_ms:
        text += f" (away {render.duration(summary.away_seconds)})"
    return text


def card_text(
    summary: SessionSummary, evidence: Evidence | None, divergence: int | None, reference: bool
) -> Text:
    """The body of one actor's card: answer, reward, time, queries, records, tokens, cost."""
    rows: list[tuple[str, Text | str]] = [
        ("answer", Text(summary.answer, style="bold") if summary.submitted else Text("(none)")),
        ("reward", reward_text(summary)),
        ("active", active_text(summary)),
        ("queries", queries_text(summary)),
        ("records", f"{summary.records_viewed} seen"),
    ]
    if summary.scratch_steps:
        rows.append(("scratch", f"{summary.scratch_steps} view/copy/compute/notes"))
    if summary.actor_kind == "model":
        rows.append(("tokens", f"{render.number(summary.tokens)} in {summary.model_calls} call(s)"))
        rows.append(("cost", render.cost(summary.cost)))
    else:
        rows += [("tokens", render.DASH), ("cost", render.DASH)]
    if evidence is not None:
        line = verdict_text(evidence.verdict)
        line.append(f" {len(evidence.seen)}/{evidence.total}", style="default")
        rows.append(("verdict", line))
    else:
        rows.append(("verdict", Text("no evidence list", style="dim")))
    if reference:
        rows.append(("diverges", Text("reference", style="dim")))
    elif divergence is None:
        rows.append(("diverges", Text("never (same steps)", style="green")))
    else:
        rows.append(("diverges", Text(f"at row {divergence + 1}", style="yellow")))
    text = Text(no_wrap=True, overflow="ellipsis")
    for n, (name, value) in enumerate(rows):
        if n:
            text.append("\n")
        text.append(f"{name:<9}", style="dim")
        text.append(value)
    return text


class ActorCard(Static):
    """One actor's numbers, titled with the actor and numbered like the table columns."""

    def __init__(self, comparison: Comparison, position: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.comparison = comparison
        self.position = position
        summary = comparison.actors[position]
        self.border_title = f"{position + 1} {summary.actor_label}"
        # The reference is marked by its border colour and its "diverges" line.
        started = summary.started_at[:16].replace("T", " ")
        self.border_subtitle = f"{summary.actor_kind} · {started}"
        self.set_class(position == 0, "reference")

    def render(self) -> Text:
        comparison, n = self.comparison, self.position
        evidence = comparison.evidence[n] if comparison.evidence is not None else None
        return card_text(comparison.actors[n], evidence, comparison.divergence[n], n == 0)


def evidence_renderable(comparison: Comparison) -> RenderableType:
    """Which evidence records each actor looked at, with the verdicts and the notes."""
    parts: list[RenderableType] = []
    if comparison.evidence is None or comparison.evidence_total is None:
        parts.append(
            Text(
                "No evidence list: no solutions file for this org or instance, so there "
                "are no verdicts.",
                style="dim",
            )
        )
    else:
        parts.append(
            Text(f"The gold answer rests on {comparison.evidence_total} record(s).", style="bold")
        )
        verdicts = Table.grid(padding=(0, 1))
        for n, (actor, found) in enumerate(
            zip(comparison.actors, comparison.evidence, strict=True)
        ):
            verdicts.add_row(
                f"{n + 1}",
                one_line(actor.actor_label, 18),
                verdict_text(found.verdict),
                f"{len(found.seen)}/{found.total}",
            )
        parts.append(verdicts)
        seen_by_any = sorted({i for found in comparison.evidence for i in found.seen})
        if seen_by_any:
            matrix = Table(box=None, padding=(0, 1), show_edge=False, pad_edge=False)
            matrix.add_column("evidence seen", no_wrap=True)
            for n in range(len(comparison.actors)):
                matrix.add_column(str(n + 1), justify="center")
            for record_id in seen_by_any:
                obj = object_of_id(record_id) or "?"
                marks = [
                    Text("✓", style="green") if record_id in found.seen else Text("·", style="dim")
                    for found in comparison.evidence
                ]
                matrix.add_row(Text(f"{record_id} {obj}"), *marks)
            parts.append(Text(""))
            parts.append(matrix)
        unseen = comparison.evidence_total - len(seen_by_any)
        if unseen:
            parts.append(Text(f"{unseen} evidence record(s) no actor looked at.", style="dim"))
    for note in comparison.notes:
        parts.append(Text(f"Note: {note}.", style="italic dim"))
    return Group(*parts)


class EvidencePanel(VerticalScroll):
    """The evidence records behind the gold answer, who saw which, and the verdicts."""

    def __init__(self, comparison: Comparison, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.comparison = comparison
        self.border_title = "Evidence"

    def compose(self) -> Any:
        yield Static(evidence_renderable(self.comparison), id="evidence-text")


def step_cell(step: Step | None, width: int, style: str = "") -> Text:
    """One table cell: the step's one-line label (a dash for a gap), errors in red."""
    if step is None:
        return Text(render.DASH, style=f"dim {style}".strip())
    label = step.label
    if step.error_code:
        label = f"[{step.error_code}] {label}"
    text = Text(one_line(label, width), style=style, no_wrap=True)
    if step.error_code:
        text.stylize("bold red", 0, len(step.error_code) + 2)
    elif step.kind == ev.SUBMIT:
        text.stylize("bold")
    return text


class StepsTable(DataTable[Text]):
    """The aligned rows: one column per actor, the first divergence tinted and labelled."""

    BINDINGS = [Binding("enter", "select_cursor", "Detail")]
    #: Widths of the columns before the actors' (row number and status).
    NUMBER_WIDTH = 3
    STATUS_WIDTH = 26
    MIN_CELL = 24

    class RowChosen(Message):
        """The user pressed Enter on an aligned row."""

        def __init__(self, row: int) -> None:
            self.row = row
            super().__init__()

    def __init__(self, comparison: Comparison, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=False, **kwargs)
        self.comparison = comparison
        self.cell_width = 0

    def on_mount(self) -> None:
        self._fill(self._width_for(self.size.width))

    def on_resize(self, event: Resize) -> None:
        width = self._width_for(event.size.width)
        if width != self.cell_width:
            self._fill(width)

    def _width_for(self, total: int) -> int:
        actors = max(1, len(self.comparison.actors))
        # Each column adds two cells of padding; keep a little room for the scrollbar.
        room = total - self.NUMBER_WIDTH - self.STATUS_WIDTH - 2 * (actors + 2) - 2
        return max(self.MIN_CELL, room // actors)

    def _fill(self, width: int) -> None:
        row = self.cursor_row
        self.cell_width = width
        self.clear(columns=True)
        self.add_column("#", width=self.NUMBER_WIDTH, key="n")
        self.add_column("status", width=self.STATUS_WIDTH, key="status")
        for n, actor in enumerate(self.comparison.actors):
            self.add_column(one_line(f"{n + 1} {actor.actor_label}", width), width=width)
        first = self.comparison.first_divergence
        for n, aligned in enumerate(self.comparison.rows):
            style = DIVERGENCE_ROW_STYLE if n == first else ""
            self.add_row(
                Text(str(n + 1), style=style, justify="right"),
                self._status(aligned, n == first, style),
                *(step_cell(cell, width, style) for cell in aligned.cells),
                key=str(n),
            )
        if self.row_count:
            self.move_cursor(row=min(max(row, 0), self.row_count - 1), animate=False)

    @staticmethod
    def _status(aligned: AlignedRow, first: bool, style: str) -> Text:
        if first:
            return Text(f"{aligned.status} {DIVERGENCE_LABEL}", style=f"bold yellow {style}")
        return Text(aligned.status, style=STATUS_STYLES.get(aligned.status, ""))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.post_message(self.RowChosen(event.cursor_row))


def step_detail(step: Step) -> RenderableType:
    """Everything about one step: kind, time, the full query, records, error, thought."""
    head = Text(f"step {step.index + 1} · {step.kind} · {render.duration(step.ms / 1000)}")
    if step.rows is not None:
        head.append(f" · {step.rows} row(s)")
    if step.prompt_tokens or step.completion_tokens:
        head.append(f" · {step.prompt_tokens + step.completion_tokens:,} tokens")
    parts: list[RenderableType] = [head]
    if step.error_code:
        parts.append(Text(f"error: {step.error_code}", style="bold red"))
    if step.detail:
        parts.append(Text(step.detail, style="bold"))
    if step.kind == ev.SUBMIT:
        parts.append(Text(f"answer: {step.answer}", style="bold"))
    elif step.query:
        parts.append(
            Syntax(step.query, "sql", theme="ansi_dark", word_wrap=True, background_color="default")
        )
    if step.records:
        parts.append(Text("records: " + ", ".join(sorted(step.records)), style="cyan"))
    if step.thought:
        parts.append(Text(f"thought: {step.thought}", style="italic"))
    return Group(*parts)


def row_detail(comparison: Comparison, row: int) -> RenderableType:
    """One aligned row in full, one column per actor."""
    aligned = comparison.rows[row]
    title = Text(f"Row {row + 1}: {aligned.status}", style="bold")
    if row == comparison.first_divergence:
        title.append(f"  {DIVERGENCE_LABEL}", style="bold yellow")
    grid = Table.grid(expand=True, padding=(0, 2))
    for _ in aligned.cells:
        grid.add_column(ratio=1)
    cells: list[RenderableType] = []
    for n, (actor, step) in enumerate(zip(comparison.actors, aligned.cells, strict=True)):
        name = Text(f"{n + 1} {actor.actor_label}", style="bold underline")
        body = Text("(no step here)", style="dim") if step is None else step_detail(step)
        cells.append(Group(name, body))
    grid.add_row(*cells)
    return Group(title, grid)


DETAIL_HINT = "Enter on a row shows its steps in full here · d jumps to the first divergence"


class StepDetail(VerticalScroll):
    """The full queries (and records, errors, thoughts) of one aligned row's steps."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Step detail"
        self.row: int | None = None

    def compose(self) -> Any:
        yield Static(Text(DETAIL_HINT, style="dim"), id="detail-text")

    def show(self, comparison: Comparison, row: int) -> None:
        """Show aligned row ``row`` of ``comparison``."""
        self.row = row
        self.query_one("#detail-text", Static).update(row_detail(comparison, row))
        self.scroll_home(animate=False)

    def show_renderable(self, renderable: RenderableType) -> None:
        """Show something else in full (the conversations of dialogues)."""
        self.row = None
        self.query_one("#detail-text", Static).update(renderable)
        self.scroll_home(animate=False)
