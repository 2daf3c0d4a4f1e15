"""The study status screen: who has done what, refreshed every few seconds.

It shows a :class:`~crmtui.study.status.StudyStatus`; the cells come from
:mod:`crmtui.study.render`, the code that prints ``crmtui study status``, so the screen and
the command agree. Reading the recordings runs in a worker.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label, Static

from crmtui.errors import CrmtuiError

REFRESH_S = 5.0
_BAR = 12


def progress_bar(done: int, total: int) -> Text:
    """``████░░░░`` for done of total."""
    filled = round(_BAR * done / total) if total else 0
    text = Text("█" * filled, style="green")
    text.append("░" * (_BAR - filled), style="dim")
    return text


class StudyStatusScreen(Screen[None]):
    """Progress per annotator and per instance; ``r`` refreshes now, ``q`` quits."""

    CSS_PATH = "study_status.tcss"
    BINDINGS = [
        Binding("r", "refresh_status", "Refresh"),
        Binding("q", "close", "Quit"),
    ]

    class StatusRead(Message):
        """A fresh status was read in a worker."""

        def __init__(self, status: Any) -> None:
            self.status = status
            super().__init__()

    def __init__(self, load: Callable[[], Any], refresh_s: float = REFRESH_S) -> None:
        super().__init__()
        self._load = load
        self._refresh_s = refresh_s

    def compose(self) -> ComposeResult:
        yield Static("Reading the recordings…", id="status-summary")
        yield Label("Annotators", classes="table-title")
        yield DataTable(id="status-annotators", cursor_type="row", zebra_stripes=True)
        yield Label("Instances", classes="table-title")
        yield DataTable(id="status-instances", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.action_refresh_status()
        if self._refresh_s > 0:
            self.set_interval(self._refresh_s, self.action_refresh_status)

    def action_refresh_status(self) -> None:
        self._read_status()

    @work(thread=True, exclusive=True, group="study-status")
    def _read_status(self) -> None:
        try:
            status = self._load()
        except CrmtuiError as exc:
            self.app.call_from_thread(self.notify, str(exc), severity="error", title="Status")
            return
        self.post_message(self.StatusRead(status))

    def on_study_status_screen_status_read(self, event: StatusRead) -> None:
        self.show(event.status)

    def show(self, status: Any) -> None:
        """Fill both tables from a status."""
        from crmtui.study.render import status_grids, status_summary

        self.query_one("#status-summary", Static).update(status_summary(status))
        (_, people_headers, people), (_, inst_headers, instances) = status_grids(status)
        table = self.query_one("#status-annotators", DataTable)
        table.clear(columns=True)
        table.add_columns(people_headers[0], "Progress", *people_headers[1:])
        for row, item in zip(people, status.annotators, strict=True):
            table.add_row(row[0], progress_bar(item.done, item.assigned), *row[1:])
        table = self.query_one("#status-instances", DataTable)
        cursor = table.cursor_row
        table.clear(columns=True)
        table.add_columns(*inst_headers)
        for row in instances:
            table.add_row(*row)
        if instances:
            table.move_cursor(row=min(cursor, len(instances) - 1))

    def action_close(self) -> None:
        if len(self.app.screen_stack) > 1:
            self.dismiss(None)
        else:
            self.app.exit()
