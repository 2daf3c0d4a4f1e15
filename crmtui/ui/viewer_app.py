"""A small app that shows one read-only screen (compare or report) and quits with it.

The play app (:mod:`crmtui.ui.app`) owns sessions and recording; viewing a comparison or
a report needs none of that, so these screens get their own minimal host. The screens
work inside the play app too: pushed over another screen, ``q`` goes back instead of
quitting.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from crmtui.ui.key_order import OrderedKeys
from crmtui.ui.workers import WorkerErrorHandler


class ViewerApp(WorkerErrorHandler, OrderedKeys, App[None]):
    """Hosts one screen, built by ``make_screen``, as the app's only screen."""

    # Textual does not load a default screen's own CSS_PATH, so the app loads both
    # screens' stylesheets (their selectors do not overlap).
    CSS_PATH = ["screens/compare.tcss", "screens/report.tcss", "screens/study_status.tcss"]
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True, show=False)]

    def __init__(self, make_screen: Callable[[], Screen[None]], title: str = "crmtui") -> None:
        super().__init__()
        self._make_screen = make_screen
        self.title = title

    def get_default_screen(self) -> Screen[None]:
        return self._make_screen()
