"""The SOQL/SOSL console: a highlighted multi-line editor, results table, errors, history."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import date
from typing import Any

from rich.text import Text
from textual import work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.events import Resize
from textual.message import Message
from textual.widgets import DataTable, Static, TextArea

from crmtui.errors import CrmtuiError
from crmtui.play.query_history import QueryHistory
from crmtui.sanitise import encodable
from crmtui.ui.widgets.results_table import ResultsTable
from crmtui.ui.widgets.soql_editor import SoqlEditor
from crmtui.ui.workers import WorkerCrashed

MAX_SHOWN_ROWS = 2000


class QueryConsole(Vertical):
    """Write and run SOQL or SOSL against the org; results appear in a table below."""

    HELP_GROUP = "Console"
    # The play, watch and replay screens size the editor; the message's behaviour is the
    # console's own: a short status line normally, every row below the editor for an error.
    DEFAULT_CSS = """
    QueryConsole #console-message {
        height: auto;
        max-height: 9;
    }
    QueryConsole #console-message:focus {
        background-tint: $accent 8%;
    }
    QueryConsole #console-status {
        width: 1fr;
        height: auto;
        padding: 0 1;
        color: $text-muted;
    }
    QueryConsole #console-status.error {
        color: $error;
        text-style: bold;
    }
    QueryConsole.-failed #console-results {
        display: none;
    }
    QueryConsole.-failed #console-message {
        height: 1fr;
        max-height: 100%;
    }
    """
    # Priority: the editor (a TextArea) binds F6 itself; inside the console these win.
    BINDINGS = [
        Binding("f5", "run_query", "Run query", priority=True),
        Binding("ctrl+r", "run_query", "Run query", show=False, priority=True),
        Binding("ctrl+up", "history_older", "Older query", show=False, tooltip="from the history"),
        Binding(
            "ctrl+down", "history_newer", "Newer query", show=False, tooltip="from the history"
        ),
        Binding(
            "f6",
            "history_search",
            "History",
            priority=True,
            tooltip="search your queries of all instances",
        ),
        # Escape cancels only while a query runs; otherwise the action skips and Escape keeps
        # its usual meanings (close the completion list, back to the instances).
        Binding(
            "escape",
            "cancel_query",
            "Cancel query",
            priority=True,
            show=False,
            tooltip="while one runs",
        ),
    ]

    class QueryRan(Message):
        """A query finished (successfully or not): record it."""

        def __init__(
            self,
            text: str,
            kind: str,
            rows: int,
            ms: float,
            error_code: str | None,
            error: str | None,
        ) -> None:
            self.text, self.kind, self.rows, self.ms = text, kind, rows, ms
            self.error_code, self.error = error_code, error
            super().__init__()

    class HistorySearchWanted(Message):
        """The user wants to search the query history (the screen shows a picker)."""

    class EditorChanged(Message):
        """The editor's text changed (the screen records it, debounced)."""

        def __init__(self, text: str) -> None:
            self.text = text
            super().__init__()

    class _Finished(Message):
        def __init__(self, text: str, result: Any, error: CrmtuiError | None, ms: float) -> None:
            self.text, self.result, self.error, self.ms = text, result, error, ms
            super().__init__()

    def __init__(
        self,
        org: Any,
        today: date | None = None,
        *,
        clock: Callable[[], float] = time.perf_counter,
        history: QueryHistory | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.org = org
        self.today = today
        # Query timing goes through the session's clock so tests and snapshots are stable.
        self.clock = clock
        #: Queries run here (the play screen passes the annotator's persistent history).
        self.history = history if history is not None else QueryHistory()
        #: The last query that ran without error (the compute tool reads all its rows).
        self.last_query: str | None = None
        self.border_title = "SOQL / SOSL console"
        # The query in flight and when it started: a worker that crashes is finished with it.
        # (Not ``_running``: that is Textual's "message pump started" flag, and shadowing it
        # made the console look stopped to Textual once a query had finished.)
        self._query_running: tuple[str, float] | None = None
        # Set to stop the query in flight (Escape, or a new query replacing it).
        self._cancel: threading.Event | None = None
        # The error shown (query, error): drawn again when the width changes (F10, resize),
        # since its caret line is cut to the width.
        self._error: tuple[str, CrmtuiError] | None = None

    def compose(self) -> ComposeResult:
        yield SoqlEditor.create(schema=self.org.schema, id="console-editor")
        # The status and errors scroll: an error fills the rows below the editor (the results
        # are empty and hidden then) and whatever still does not fit is reached with Tab and
        # the arrows.
        with VerticalScroll(id="console-message", can_focus=False):
            yield Static(
                "F5 runs the query · Ctrl+↑/↓ recalls history · F6 searches it",
                id="console-status",
            )
        yield ResultsTable(id="console-results", zebra_stripes=True, cursor_type="cell")

    @property
    def text(self) -> str:
        """The editor's text."""
        return self.query_one("#console-editor", TextArea).text

    def set_text(self, text: str) -> None:
        """Replace the editor's text (history recall, replay, an agent's query).

        A lone surrogate (an agent's reply can hold one) becomes U+FFFD: Textual's document
        encodes its text as UTF-8 and would raise.
        """
        editor = self.query_one("#console-editor", TextArea)
        editor.load_text(encodable(text))
        editor.move_cursor(editor.document.end)

    def set_read_only(self, read_only: bool = True) -> None:
        """Make the editor read-only (replay shows recorded queries without editing)."""
        self.query_one("#console-editor", TextArea).read_only = read_only

    def clear_results(self) -> None:
        """Empty the results table (its rows belonged to another query)."""
        self.query_one("#console-results", DataTable).clear(columns=True)

    def run(self, text: str | None = None) -> None:
        """Run ``text`` (default: the editor's text) in a worker."""
        query = (text if text is not None else self.text).strip()
        if not query:
            self._status("Nothing to run: type a SOQL or SOSL query first.", error=True)
            return
        if text is not None:
            self.set_text(query)
        editor = self.query_one("#console-editor")
        if isinstance(editor, SoqlEditor):
            editor.close_completion()
        self.history.add(query)
        self._status("Running… (Esc cancels)")
        if self._cancel is not None:
            self._cancel.set()  # a query still running is replaced, not left to finish
        self._cancel = threading.Event()
        self._query_running = (query, self.clock())
        self._execute(query, self._cancel)

    def action_cancel_query(self) -> None:
        """Stop the running query (it ends as a failed step, QUERY_TIMEOUT)."""
        if self._query_running is None or self._cancel is None:
            raise SkipAction()  # nothing to cancel: Escape goes on to its other bindings
        self._cancel.set()
        self._status("Cancelling…")

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if event.text_area.id == "console-editor":
            event.stop()
            self.post_message(self.EditorChanged(event.text_area.text))

    def action_run_query(self) -> None:
        # The keys typed before F5 are in the editor already (crmtui.ui.key_order).
        self.run()

    def action_history_older(self) -> None:
        entry = self.history.older()
        if entry is not None:
            self.set_text(entry)

    def action_history_newer(self) -> None:
        entry = self.history.newer()
        if entry is not None:
            self.set_text(entry)

    def action_history_search(self) -> None:
        self.post_message(self.HistorySearchWanted())

    @work(thread=True, exclusive=True, group="console")
    def _execute(self, text: str, cancel: threading.Event) -> None:
        from crmtui.query import QueryBudget, run

        started = self.clock()
        try:
            result = run(self.org, text, today=self.today, budget=QueryBudget(cancel=cancel))
            error = None
        except CrmtuiError as exc:
            result, error = None, exc
        self.post_message(self._Finished(text, result, error, (self.clock() - started) * 1000))

    def on_worker_crashed(self, event: WorkerCrashed) -> None:
        # A bug in the engine: the query still ends, as a failed (and recorded) step.
        if event.group != "console" or self._query_running is None:
            return
        event.stop()
        text, started = self._query_running
        self.post_message(self._Finished(text, None, event.error, (self.clock() - started) * 1000))

    def on_query_console__finished(self, event: _Finished) -> None:
        event.stop()
        if self._query_running is not None and self._query_running[0] == event.text:
            self._query_running = None
        table = self.query_one("#console-results", DataTable)
        kind = "sosl" if event.text.lstrip()[:4].upper() == "FIND" else "soql"
        if event.error is not None:
            table.clear(columns=True)
            self.last_query = None
            self.show_error(event.text, event.error)
            self.post_message(
                self.QueryRan(
                    event.text,
                    kind,
                    0,
                    event.ms,
                    getattr(event.error, "code", type(event.error).__name__),
                    str(event.error),
                )
            )
            return
        self.last_query = event.text
        self.show_result(event.result)
        rows = len(event.result.records)
        total = getattr(event.result, "total_size", rows)
        self._status(f"{total:,} rows · {event.ms:.0f} ms")
        self.post_message(self.QueryRan(event.text, kind, total, event.ms, None, None))

    def show_result(self, result: Any) -> None:
        """Show a query result in the results table."""
        self.query_one("#console-results", ResultsTable).show_result(result, MAX_SHOWN_ROWS)

    def show_error(self, query: str, error: CrmtuiError) -> None:
        """Show an error whole (wrapped), the failing line with a caret under the reported
        column, and a "did you mean" from the schema for unknown names."""
        from crmtui.play.query_hints import caret_lines, did_you_mean

        text = Text(str(error), style="bold")
        line, column = getattr(error, "line", None), getattr(error, "column", None)
        for source in caret_lines(query, line, column, self._caret_width()):
            text.append("\n")
            text.append(source, style="not bold")
        hint = did_you_mean(self.org.schema, query, error)
        if hint:
            text.append(f"\n{hint}", style="not bold italic")
        self._status(text, error=True)
        self._error = (query, error)

    def _caret_width(self) -> int:
        # The message's padding and its scrollbar: the cut query line never wraps, or its
        # caret would point at the wrong character.
        return max(20, self.size.width - 4)

    def on_resize(self, event: Resize) -> None:
        if self._error is not None:
            self.call_after_refresh(self._redraw_error)

    def _redraw_error(self) -> None:
        if self._error is not None:
            self.show_error(*self._error)

    def set_status(self, text: str, error: bool = False) -> None:
        """Show ``text`` on the status line (errors in the error style)."""
        self._status(text, error)

    def _status(self, text: str | Text, error: bool = False) -> None:
        self._error = None
        self.query_one("#console-status", Static).update(text)
        self.query_one("#console-status").set_class(error, "error")
        # A failed query has no results: its message takes their rows (see the .tcss).
        self.set_class(error, "-failed")
        message = self.query_one("#console-message", VerticalScroll)
        # Tab goes from the editor to the error (to scroll it), else to the results.
        if message.has_focus and not error:
            self.query_one("#console-results").focus()
        message.can_focus = error
        message.scroll_home(animate=False)
