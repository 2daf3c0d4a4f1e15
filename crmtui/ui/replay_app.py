"""The replay app: one :class:`ReplayScreen` over a prepared recording."""

from __future__ import annotations

from textual.app import App
from textual.binding import Binding

from crmtui.review.replay_org import ReplaySource
from crmtui.ui.key_order import OrderedKeys
from crmtui.ui.screens.replay import ReplayScreen
from crmtui.ui.workers import WorkerErrorHandler


class ReplayApp(WorkerErrorHandler, OrderedKeys, App[None]):
    """Step through one recorded session (human or model)."""

    CSS_PATH = "app.tcss"
    TITLE = "crmtui replay"
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True)]

    def __init__(self, source: ReplaySource, *, start: int = 0) -> None:
        super().__init__()
        self.source = source
        self.start = start

    def on_mount(self) -> None:
        self.push_screen(ReplayScreen(self.source, start=self.start))
