"""First screen: opens the org (building the sample on first run) and loads the tasks."""

from __future__ import annotations

from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.containers import Center, Middle
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Label, ProgressBar

from crmtui.config import PlayConfig
from crmtui.errors import CrmtuiError
from crmtui.play.workspace import Workspace, load_workspace


class LoadingScreen(Screen[Workspace | None]):
    """Shows progress while the workspace loads; dismisses with it (None on failure)."""

    class _Progressed(Message):
        def __init__(self, label: str, fraction: float) -> None:
            self.label, self.fraction = label, fraction
            super().__init__()

    class _Done(Message):
        def __init__(self, workspace: Workspace | None, error: str | None) -> None:
            self.workspace, self.error = workspace, error
            super().__init__()

    def __init__(self, config: PlayConfig) -> None:
        super().__init__()
        self.config = config

    def compose(self) -> ComposeResult:
        with Middle(), Center():
            yield Label("crmtui — preparing the org and tasks…", id="loading-label")
        with Center():
            yield ProgressBar(total=1.0, show_eta=False, id="loading-bar")

    def on_mount(self) -> None:
        self._load()

    @work(thread=True, exclusive=True, group="loading")
    def _load(self) -> None:
        def progress(label: str, fraction: float) -> None:
            self.post_message(self._Progressed(label, fraction))

        try:
            self.post_message(self._Done(load_workspace(self.config, progress), None))
        except CrmtuiError as exc:
            self.post_message(self._Done(None, str(exc)))

    def on_loading_screen__progressed(self, event: _Progressed) -> None:
        self.query_one("#loading-label", Label).update(event.label)
        self.query_one(ProgressBar).update(progress=max(0.0, min(1.0, event.fraction)))

    def on_loading_screen__done(self, event: _Done) -> Any:
        if event.error:
            self.query_one("#loading-label", Label).update(
                f"[b red]Error:[/] {event.error}\n\nPress Ctrl+Q to quit."
            )
            self.notify(event.error, severity="error", title="Cannot start", timeout=30)
            return
        self.dismiss(event.workspace)
