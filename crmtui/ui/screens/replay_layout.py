"""How the replay screen fits its terminal: wide, narrow, and compact (80x24).

A mixin for :class:`~crmtui.ui.screens.replay.ReplayScreen`, the replay counterpart of
:mod:`crmtui.ui.screens.play_layout`, with the same thresholds
(:func:`crmtui.ui.layout.layout_mode`). In the compact layout the two side columns would
leave the work area a dozen columns, so they become tabs beside Browse / Console: "Task"
(the task context) and "Events" (the event list and, for a model, its transcript). The
compact event list is built the first time it is needed, and kept in step with the side one
from then on. A terminal below the play screen's minimum gets the compact layout too: a
replay hides nothing that has to stay secret.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.binding import Binding
from textual.widgets import DataTable, Footer, TabbedContent

from crmtui.review.replay import summarize
from crmtui.ui.layout import layout_mode
from crmtui.ui.widgets.panels import StatusBar
from crmtui.ui.widgets.replay_transcript import ReplayTranscript
from crmtui.ui.widgets.timeline import format_ms

#: The layouts the replay screen has (``too-small`` is shown as ``compact``).
REPLAY_MODES = ("wide", "narrow", "compact")
#: Tabs that exist only in the compact layout.
COMPACT_TABS = ("tab-context", "tab-events")
#: Characters of an event's summary shown in its list row (the timeline shows it whole).
SUMMARY_WIDTH = 80


def replay_mode(width: int, height: int) -> str:
    """The replay layout for a ``width`` x ``height`` terminal (one of :data:`REPLAY_MODES`)."""
    mode = layout_mode(width, height)
    return "compact" if mode == "too-small" else mode


def fill_event_table(table: DataTable[Any], recorded: list[Any]) -> None:
    """Columns and one row per event (sequence, time, type, summary)."""
    table.border_title = f"Events ({len(recorded)})"
    table.add_columns("#", "time", "type", "summary")
    table.add_rows(
        (str(e.seq), format_ms(e.ms), e.type, summarize(e)[:SUMMARY_WIDTH]) for e in recorded
    )


class ReplayLayout:
    """Layout switching for the replay screen, and keys that reach every region."""

    # Priority: ←/→ step the replay even on the tab bar, so tabs need keys of their own.
    LAYOUT_BINDINGS = [
        Binding("f2", "show_tab('tab-browse')", "Browse", show=False, priority=True),
        Binding("f3", "show_tab('tab-console')", "Console", show=False, priority=True),
        Binding("f4", "show_events", "Events", show=False, priority=True),
        Binding("ctrl+o", "show_context", "Task context", show=False, priority=True),
    ]

    #: The layout in use (one of :data:`REPLAY_MODES`, "" before the first).
    layout_name: str = ""
    #: The status bar's label, and its shorter form for the compact layout.
    long_label = short_label = ""
    _compact_filled = False

    def apply_layout(self: Any, width: int, height: int) -> None:
        """Switch to the layout for ``width`` x ``height``."""
        mode = replay_mode(width, height)
        for name in REPLAY_MODES:
            self.set_class(name == mode, name)
        if mode == self.layout_name:
            return
        was_compact = self.layout_name == "compact"
        self.layout_name = mode
        # Less padding between keys and a shorter status line, to fit in 80 columns.
        self.query_one(Footer).compact = mode == "compact"
        bar = self.query_one(StatusBar)
        bar.label = self.short_label if mode == "compact" else self.long_label
        bar.refresh()
        tabs = self.query_one("#work-tabs", TabbedContent)
        if mode == "compact":
            self._fill_compact()
            for tab in COMPACT_TABS:
                tabs.show_tab(tab)
            if self.focused is not None and self.focused.id == "event-list":
                # The side list is hidden: the Events tab takes over, cursor and focus.
                self.action_show_events()
            return
        if was_compact:
            # The side list takes the focus back once it is displayed again (after this
            # refresh); meanwhile no widget of a tab about to be hidden holds it.
            side = self.query_one("#event-list", DataTable)
            self.set_focus(None)
            self.call_after_refresh(side.focus)
        if tabs.active in COMPACT_TABS:
            self.switch_tab("tab-browse")
        for tab in COMPACT_TABS:
            tabs.hide_tab(tab)

    def on_resize(self: Any, event: events.Resize) -> None:
        self.apply_layout(self.size.width, self.size.height)

    def _fill_compact(self: Any) -> None:
        """Build the compact Events tab from the recording, at the current frame."""
        if self._compact_filled:
            return
        self._compact_filled = True
        table = self.query_one("#event-list-compact", DataTable)
        fill_event_table(table, self.events)
        if self.index >= 0:
            table.move_cursor(row=self.index, animate=False)
            if self.replay.is_model:
                transcript = self.query_one("#replay-transcript-compact", ReplayTranscript)
                transcript.show(self.replay.transcript_at(self.index))

    def event_tables(self: Any) -> list[DataTable[Any]]:
        """The event lists to keep at the current frame (the compact one once built)."""
        tables = [self.query_one("#event-list", DataTable)]
        if self._compact_filled:
            tables.append(self.query_one("#event-list-compact", DataTable))
        return tables

    def transcripts(self: Any) -> list[ReplayTranscript]:
        """The transcripts to keep at the current frame (the compact one once built)."""
        found = [self.query_one("#replay-transcript", ReplayTranscript)]
        if self._compact_filled:
            found.append(self.query_one("#replay-transcript-compact", ReplayTranscript))
        return found

    def keeps_tab(self: Any) -> bool:
        """True when stepping should leave the active tab alone.

        In the compact layout, someone reading the Events or Task tab while stepping or
        playing wants to keep reading it; elsewhere a step shows the tab it is about.
        """
        if self.layout_name != "compact":
            return False
        return self.query_one("#work-tabs", TabbedContent).active in COMPACT_TABS

    def switch_tab(self: Any, tab: str) -> None:
        """Show work tab ``tab``, taking the focus along when it was in the tab left.

        Left where it was, the focus would fall to the next focusable widget, possibly in
        another hidden tab, and Textual would then show that tab instead.
        """
        tabs = self.query_one("#work-tabs", TabbedContent)
        if tabs.active == tab:
            return
        focused = self.focused
        inside = focused is not None and tabs in focused.ancestors
        if inside:
            self.set_focus(None)
        tabs.active = tab
        if inside:
            # A table first (the console's results rather than its read-only editor).
            pane = tabs.get_pane(tab)
            found = [w for w in pane.query("*") if w.focusable]
            tables = [w for w in found if isinstance(w, DataTable)]
            target = (tables or found or [None])[0]
            if target is not None:
                self.call_after_refresh(target.focus)

    def action_show_tab(self: Any, tab: str) -> None:
        """Show one of the work tabs (Browse, Console, ...)."""
        self.switch_tab(tab)

    def action_show_events(self: Any) -> None:
        """The event list: its tab in the compact layout, else the side column."""
        if self.layout_name == "compact":
            self.switch_tab("tab-events")
            self.query_one("#event-list-compact", DataTable).focus()
        else:
            self.query_one("#event-list", DataTable).focus()

    def action_show_context(self: Any) -> None:
        """The task context: its tab in the compact layout, else the side panel."""
        if self.layout_name == "compact":
            self.switch_tab("tab-context")
            self.query_one("#context-panel").focus()
        else:
            self.query_one("#metadata-panel").focus()
