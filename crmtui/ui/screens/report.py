"""The report screen: the tables of ``crmtui report`` in tabs, and accuracy bar charts.

It renders a :class:`~crmtui.review.report.Report` built before the app starts; the
cells are formatted by :mod:`crmtui.review.report_format`, the same code that prints
``crmtui report``, so the screen and the command never disagree.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label, Static, TabbedContent, TabPane

from crmtui.review.report import Report
from crmtui.review.report_format import report_notes, report_tables
from crmtui.ui.widgets.bars import AccuracyBars

# Tab labels for the report's table titles (matched by prefix; others keep their title).
_SHORT = (
    ("Accuracy % per CRMArena-Pro skill", "Skills"),
    ("Accuracy", "Accuracy"),
    ("Median active time", "Time"),
    ("Median time away", "Away"),
    ("Median queries", "Queries"),
    ("Tokens", "Tokens"),
    ("Cost", "Cost"),
    ("Human versus model", "Agreement"),
)


def tab_label(title: str) -> str:
    """A short tab label for a report table's title."""
    return next((short for prefix, short in _SHORT if title.startswith(prefix)), title)


def tab_id(label: str) -> str:
    """A CSS id for a tab label (``Agreement`` -> ``tab-agreement``)."""
    return "tab-" + "-".join(label.lower().split())


def summary_text(report: Report) -> Text:
    """One line: the folder, how many sessions count, how many files were skipped."""
    text = Text(f"Report · {report.root}", style="bold")
    text.append(
        f" · {len(report.sessions)} counted session(s) from {report.files} file(s)"
        f" · {len(report.rows)} actor(s)"
    )
    if report.skipped:
        text.append(f" · {len(report.skipped)} skipped (see Notes)", style="yellow")
    return text


def notes_text(report: Report) -> Text:
    """Skipped files with their reasons, then the counting rules."""
    text = Text()
    for skipped in report.skipped:
        text.append("Skipped ", style="yellow")
        text.append(f"{skipped.path}: {skipped.reason}\n")
    for note in report_notes(report):
        text.append(f"{note}\n")
    return text


class ReportScreen(Screen[None]):
    """Accuracy, time, queries, tokens, cost and agreement per actor, with bar charts."""

    CSS_PATH = "report.tcss"
    BINDINGS = [
        Binding("right_square_bracket", "next_tab", "Next tab"),
        Binding("left_square_bracket", "previous_tab", "Previous tab"),
        Binding("b", "focus_charts", "Charts"),
        Binding("t", "focus_table", "Table"),
        Binding("q,escape", "close", "Close"),
    ] + [Binding(str(n), f"show_tab({n})", f"Tab {n}", show=False) for n in range(1, 10)]

    def __init__(self, report: Report) -> None:
        super().__init__()
        self.report = report
        self.tab_ids: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static(summary_text(self.report), id="report-title")
        with TabbedContent(id="report-tabs"):
            for title, headers, body in report_tables(self.report):
                label = tab_label(title)
                self.tab_ids.append(tab_id(label))
                with TabPane(label, id=tab_id(label)):
                    yield Label(title, classes="table-title")
                    yield self._table(headers, body)
            self.tab_ids.append("tab-notes")
            with TabPane("Notes", id="tab-notes"):
                yield Static(notes_text(self.report), id="report-notes")
        yield AccuracyBars(self.report, id="accuracy-bars")
        yield Footer()

    @staticmethod
    def _table(headers: list[str], body: list[list[str]]) -> DataTable[Text]:
        table: DataTable[Text] = DataTable(cursor_type="row", zebra_stripes=True)
        # Actor names (and the agreement table's two name columns) left, numbers right.
        names = 2 if headers[:2] == ["Human", "Model"] else 1
        for n, header in enumerate(headers):
            table.add_column(Text(header, justify="left" if n < names else "right"), key=str(n))
        for row in body:
            table.add_row(
                *(
                    Text(cell, justify="left" if n < names else "right")
                    for n, cell in enumerate(row)
                )
            )
        return table

    def on_mount(self) -> None:
        self._focus_active_table()

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self._focus_active_table()

    def _focus_active_table(self) -> None:
        pane = self.query_one(TabbedContent).active_pane
        if pane is not None:
            for table in pane.query(DataTable):
                table.focus()
                return

    @property
    def active_tab(self) -> str:
        """The id of the tab shown."""
        return self.query_one(TabbedContent).active

    def action_show_tab(self, number: int) -> None:
        """Show the ``number``-th tab (1-based), if there is one."""
        if 1 <= number <= len(self.tab_ids):
            self.query_one(TabbedContent).active = self.tab_ids[number - 1]

    def _step_tab(self, delta: int) -> None:
        current = self.tab_ids.index(self.active_tab) if self.active_tab in self.tab_ids else 0
        self.query_one(TabbedContent).active = self.tab_ids[(current + delta) % len(self.tab_ids)]

    def action_next_tab(self) -> None:
        """Show the next tab (wrapping around)."""
        self._step_tab(1)

    def action_previous_tab(self) -> None:
        """Show the previous tab (wrapping around)."""
        self._step_tab(-1)

    def action_focus_charts(self) -> None:
        """Focus the charts so the arrow keys scroll them."""
        self.query_one(AccuracyBars).focus()

    def action_focus_table(self) -> None:
        """Focus the table of the tab shown."""
        self._focus_active_table()

    def action_close(self) -> None:
        """Back to the screen below, or quit when this screen is the app's only one."""
        if len(self.app.screen_stack) > 1:
            self.dismiss(None)
        else:
            self.app.exit()
