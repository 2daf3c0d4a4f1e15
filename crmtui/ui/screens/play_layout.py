"""How the play screen fits its terminal: wide, narrow, compact (80x24), too small; maximise.

A mixin for :class:`~crmtui.ui.screens.play.PlayScreen`: on every resize it picks the layout
(:func:`crmtui.ui.layout.layout_mode`) and sets it as a CSS class (the rules are in
``play.tcss``); in the compact layout the task context moves into a "Task" tab. F10 (or
``z``) maximises the region that has focus, or restores it.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Static, TabbedContent

from crmtui.ui.layout import MODES, layout_mode, too_small_notice

#: The regions F10 maximises: the one holding focus fills the screen.
REGIONS = (
    "#metadata-panel",
    "#context-panel",
    "#query-panel",
    "#chat-panel",
    "#work-tabs",
    "#answer-box",
)


class ResponsiveLayout:
    """Layout switching and region maximising for the play screen."""

    HELP_LAYOUT_BINDINGS = [
        Binding(
            "f10",
            "toggle_maximize",
            "Maximise",
            priority=True,
            tooltip="the region with focus fills the screen; again: restore",
        ),
        Binding("z", "toggle_maximize", "Maximise", show=False),
        Binding("ctrl+o", "focus_context", "Task context", priority=True, show=False),
    ]
    # Shown even when a region is maximised: the clock and the keys.
    ALLOW_IN_MAXIMIZED_VIEW = "Footer, #status-bar"

    #: The layout in use (one of :data:`crmtui.ui.layout.MODES`, "" before the first).
    layout_name: str = ""

    def apply_layout(self: Any, width: int, height: int) -> None:
        """Switch to the layout for ``width`` x ``height``."""
        mode = layout_mode(width, height)
        for name in MODES:
            self.set_class(name == mode, name)
        self.query_one("#too-small", Static).update(
            too_small_notice(width, height) if mode == "too-small" else ""
        )
        if mode == self.layout_name:
            return
        self.layout_name = mode
        tabs = self.query_one("#work-tabs", TabbedContent)
        if mode == "compact":
            tabs.show_tab("tab-context")
        else:
            if tabs.active == "tab-context":
                tabs.active = "tab-browse"
            tabs.hide_tab("tab-context")

    def on_resize(self: Any, event: events.Resize) -> None:
        self.apply_layout(self.size.width, self.size.height)

    def action_focus_context(self: Any) -> None:
        """The task context: its tab in the compact layout, else the side panel."""
        if self.layout_name == "compact":
            self.query_one("#work-tabs", TabbedContent).active = "tab-context"
            self.focus_now("#context-panel")
        else:
            self.focus_now("#metadata-panel")

    def region_of(self: Any, widget: Widget | None) -> Widget | None:
        """The top-level region (metadata, query, work tabs, answer) holding ``widget``."""
        regions = [self.query_one(selector) for selector in REGIONS]
        node: Any = widget
        while node is not None:
            if node in regions:
                return node
            node = node.parent
        return None

    def action_toggle_maximize(self: Any) -> None:
        if self.maximized is not None:
            self.minimize()
            return
        region = self.region_of(self.focused)
        if region is None:
            self.notify("Move to a region first (F2 F3 F4 F8)", severity="warning")
            return
        self.maximized = region
