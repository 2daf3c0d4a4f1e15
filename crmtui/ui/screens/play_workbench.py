"""The play screen's scratch tools: value viewer, copy and insert, compute tool, notes.

The base class of :class:`~crmtui.ui.screens.play.PlayScreen`, kept apart so that screen
stays about regions and the session. Tables post :class:`CellTable.ViewWanted` /
:class:`CellTable.CopyWanted`; the notes pane posts :class:`NotesPane.Edited`; this opens the
viewer or the compute tool, copies to the system clipboard (OSC 52, Textual's
``copy_to_clipboard``) and records every step through the session's
:class:`~crmtui.play.scratch.Scratch`.

Keys (listed in F1's help): ``v`` view, ``y`` copy, ``Y`` copy row (in any table);
Ctrl+T insert the last copied value at the cursor of the answer box, the console editor or
the notes; Ctrl+L compute; Ctrl+N notes.
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input, TabbedContent, TextArea

from crmtui.errors import CrmtuiError
from crmtui.play.cells import ValueRef
from crmtui.play.compute import ComputeRun, ComputeSpec, view_query
from crmtui.play.paths import chooser_paths
from crmtui.play.summary import summary_soql
from crmtui.play.views import TableView, describe, view_columns
from crmtui.ui.heap import settle_heap
from crmtui.ui.screens.compute import ComputeHooks, ComputeScreen, ComputeSource
from crmtui.ui.screens.viewer import open_value, prepare_viewer
from crmtui.ui.widgets.cell_table import CellTable
from crmtui.ui.widgets.notes import NotesPane

PREVIEW = 40
#: Seconds after the play screen opens when the tools are made ready (before a reader's
#: first ``v``, after the instance's first frame and first keys).
TOOLS_AHEAD = 0.5


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW else flat[: PREVIEW - 1] + "…"


class PlayWorkbench(Screen[None]):
    """Scratch tools for a screen with a ``session`` (a PlaySession) and the play regions."""

    # Priority, like the play screen's F-keys: they work in the editor, the answer box and
    # the notes too (the text fields would otherwise see them first).
    BINDINGS = [
        Binding(
            "ctrl+t",
            "insert_register",
            "Insert copied",
            priority=True,
            tooltip="the last copied value, at the cursor of the answer, console or notes",
        ),
        Binding(
            "ctrl+l",
            "compute",
            "Compute",
            priority=True,
            tooltip="group by, count/sum/avg/min/max/median (durations too) over ALL rows",
        ),
        Binding(
            "ctrl+n", "focus_notes", "Notes", priority=True, tooltip="'= (1049 + 977) / 2' works"
        ),
    ]

    session: Any

    # -- viewer and copy -------------------------------------------------------------------

    def on_cell_table_view_wanted(self, event: CellTable.ViewWanted) -> None:
        event.stop()
        self.open_viewer(event.ref, event.text)

    def on_cell_table_copy_wanted(self, event: CellTable.CopyWanted) -> None:
        event.stop()
        self.copy_value(event.ref, event.text, event.what)

    def prepare_tools(self) -> None:
        """Get ready for quick tools once the annotator is reading the instance.

        The value viewer is mounted ahead of its first use and the heap settled
        (:func:`~crmtui.ui.heap.settle_heap`): work that costs a noticeable pause
        (docs/performance.md), not in the instance's first frame and not in the first ``v``
        or keystroke.
        """
        self.set_timer(TOOLS_AHEAD, self._prepare_tools)

    async def _prepare_tools(self) -> None:
        await prepare_viewer(self.app)
        settle_heap()

    def open_viewer(self, ref: ValueRef, text: str) -> None:
        """Open ``text`` whole in the value viewer and record that it was read."""
        self._record(self.session.scratch.viewed, ref, len(text))
        open_value(
            self.app, text, ref, on_copy=self.copy_value, on_activity=self.session.note_input
        )

    def copy_value(self, ref: ValueRef, text: str, what: str = "value") -> None:
        """Copy ``text`` to the clipboard and the register, and record the copy."""
        self.app.copy_to_clipboard(text)
        if self._record(self.session.scratch.copied, ref, text, what):
            # Short-lived: it sits over the answer box's result line.
            self.notify(
                f"{_preview(text)}\nfrom {ref.label}",
                title="Copied · Ctrl+T inserts it",
                timeout=2.5,
            )

    def action_insert_register(self) -> None:
        """Insert the last copied value at the cursor of the focused text field."""
        register = self.session.scratch.register
        if register is None:
            self.notify("Nothing copied yet: y copies the value under a table's cursor")
            return
        focused = self.focused
        if isinstance(focused, Input) and not focused.disabled:
            start, end = focused.selection
            focused.replace(register.text, min(start, end), max(start, end))
        elif isinstance(focused, TextArea) and not focused.read_only:
            result = focused.replace(register.text, *focused.selection)
            focused.move_cursor(result.end_location)
        else:
            self.notify(
                "Put the cursor in the answer box, the console editor or the notes first",
                severity="warning",
            )

    # -- compute ---------------------------------------------------------------------------

    def action_compute(self) -> None:
        """Open the compute tool over the console's last query or the browser's table."""
        source = self._compute_source()
        if source is None:
            self.notify(
                "Open a table in the browser or run a query in the console first",
                severity="warning",
            )
            return
        hooks = ComputeHooks(
            computed=self._computed,
            failed=self._compute_failed,
            copy=self.copy_value,
            view=self.open_viewer,
            activity=self.session.note_input,
        )
        previous = self._compute_forms.get((source.kind, source.object_name))
        self.app.push_screen(
            ComputeScreen(self.session.org, self.session.today, source, hooks, previous)
        )

    @property
    def _compute_forms(self) -> dict[tuple[str, str | None], ComputeSpec]:
        """The last summary computed per source (table of an object, or the console), in
        this instance: Ctrl+L reopens on it."""
        return self.session.scratch.compute_forms

    def _compute_source(self) -> ComputeSource | None:
        console = self.query_one("#query-console")
        browser = self.query_one("#record-browser")
        on_console = self.query_one(TabbedContent).active == "tab-console"
        view = browser.current
        console_query = console.last_query
        table_source = None
        if isinstance(view, TableView):
            schema = self.session.org.schema
            # The view's columns first, then every field the view can reach: a summary
            # groups by a related record's field as a report does (Account.ShippingState).
            paths = chooser_paths(schema, view.object)
            columns = list(dict.fromkeys([*view_columns(schema, view), *(p.path for p in paths)]))
            table_source = ComputeSource(
                kind="table",
                label=describe(view),
                columns=columns,
                build_query=lambda spec, view=view: view_query(schema, view, spec),
                object_name=view.object,
                dates=[p.path for p in paths if p.field.type in ("date", "datetime")],
                summary_query=lambda spec, view=view: summary_soql(schema, view, spec),
            )
        console_source = None
        if console_query:
            columns = list(console.query_one("#console-results", CellTable).raw_columns)
            console_source = ComputeSource(
                kind="console",
                label="the console query",
                columns=columns,
                build_query=lambda spec, text=console_query: text,
            )
            if not columns:
                console_source = None
        if on_console:
            return console_source or table_source
        return table_source or console_source

    def _computed(self, run: ComputeRun, source: ComputeSource) -> None:
        self._compute_forms[(source.kind, source.object_name)] = run.spec
        summary = source.summary_query(run.spec) if source.summary_query else None
        self._record(
            self.session.scratch.computed,
            run,
            source=source.kind,
            object_name=source.object_name,
            summary_query=summary,
        )

    def _compute_failed(
        self, query: str, spec: ComputeSpec, error: str, source: ComputeSource
    ) -> None:
        self._record(
            self.session.scratch.compute_failed,
            query,
            spec,
            error,
            source=source.kind,
            object_name=source.object_name,
        )

    # -- notes -----------------------------------------------------------------------------

    def on_notes_pane_edited(self, event: NotesPane.Edited) -> None:
        event.stop()
        self._record(self.session.scratch.notes_edited, event.text)

    def action_focus_notes(self) -> None:
        """Show the notes and put the cursor in them."""
        self.query_one(TabbedContent).active = "tab-notes"
        self.query_one("#notes-editor").focus()

    # -- recording -------------------------------------------------------------------------

    def _record(self, fn: Any, *args: Any, **kwargs: Any) -> bool:
        try:
            fn(*args, **kwargs)
        except CrmtuiError as exc:
            self.notify(str(exc), severity="error", title="Recording error")
            return False
        return True
