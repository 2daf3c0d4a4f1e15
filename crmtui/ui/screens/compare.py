"""The compare screen: attempts at one instance side by side, aligned step by step.

It only renders a :class:`~crmtui.review.compare.Comparison` built before the app starts
(loading, verifying and re-running queries are the CLI's job); keys move through the
aligned rows, jump to the first divergence and show a row's steps in full.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import HorizontalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from crmtui.data.tasktypes import TASK_TYPES, abbreviation
from crmtui.review.align import MATCH
from crmtui.review.compare import Comparison
from crmtui.scoring.rules import gold_text
from crmtui.ui.widgets.comparison import (
    ActorCard,
    EvidencePanel,
    StepDetail,
    StepsTable,
    one_line,
)

#: Widths (cells) of the evidence panel and of the narrowest readable actor card; the
#: first must match ``#evidence-panel`` in compare.tcss.
EVIDENCE_WIDTH = 52
CARD_MIN_WIDTH = 34


def title_text(comparison: Comparison) -> Text:
    """The instance, its task type, the gold answer, the divergence, and the question."""
    task = comparison.task
    known = TASK_TYPES.get(task)
    text = Text(f"Compare idx {comparison.idx} · {abbreviation(task)}", style="bold")
    if known is not None:
        text.append(f" {known.name}", style="bold")
    text.append(f" · {len(comparison.actors)} attempts · gold ")
    # A None gold is the word None (the expected answer); "—": nobody submitted.
    submitted = any(actor.submitted for actor in comparison.actors)
    text.append(gold_text(comparison.gold) if submitted else "—", style="bold cyan")
    if comparison.first_divergence is None:
        text.append(" · identical step by step", style="green")
    else:
        text.append(f" · first divergence at row {comparison.first_divergence + 1}", style="yellow")
    text.append("\n")
    text.append(one_line(comparison.query, 300), style="italic")
    return text


class CompareScreen(Screen[None]):
    """Two or more actors' attempts at one instance, aligned, with evidence and verdicts."""

    CSS_PATH = "compare.tcss"
    BINDINGS = [
        Binding("d", "first_divergence", "First divergence"),
        Binding("n", "next_difference", "Next difference"),
        Binding("q,escape", "close", "Close"),
    ]

    def __init__(self, comparison: Comparison) -> None:
        super().__init__()
        self.comparison = comparison

    def compose(self) -> ComposeResult:
        yield Static(title_text(self.comparison), id="compare-title")
        with HorizontalScroll(id="compare-cards"):
            for n in range(len(self.comparison.actors)):
                yield ActorCard(self.comparison, n, classes="actor-card")
            yield EvidencePanel(self.comparison, id="evidence-panel")
        yield StepsTable(self.comparison, id="steps-table")
        yield StepDetail(id="step-detail")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(StepsTable).focus()

    def on_resize(self, event: events.Resize) -> None:
        # Cards narrower than this are unreadable: give them a fixed width and let the row
        # scroll sideways instead.
        room = self.size.width - EVIDENCE_WIDTH
        self.set_class(room < CARD_MIN_WIDTH * len(self.comparison.actors), "crowded")

    @property
    def table(self) -> StepsTable:
        """The aligned steps table."""
        return self.query_one(StepsTable)

    def action_first_divergence(self) -> None:
        """Put the cursor on the first row that is not a match."""
        first = self.comparison.first_divergence
        if first is None:
            self.notify("The trajectories are identical step by step.")
            return
        self.table.move_cursor(row=first, animate=False)
        self.table.focus()

    def action_next_difference(self) -> None:
        """Put the cursor on the next row below it that is not a match."""
        start = self.table.cursor_row + 1
        for n in range(start, len(self.comparison.rows)):
            if self.comparison.rows[n].status != MATCH:
                self.table.move_cursor(row=n, animate=False)
                return
        self.notify("No further differences.")

    def on_steps_table_row_chosen(self, event: StepsTable.RowChosen) -> None:
        self.query_one(StepDetail).show(self.comparison, event.row)

    def action_close(self) -> None:
        """Back to the screen below, or quit when this screen is the app's only one."""
        if len(self.app.screen_stack) > 1:
            self.dismiss(None)
        else:
            self.app.exit()
