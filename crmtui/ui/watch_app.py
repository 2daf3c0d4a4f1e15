"""The watch app: loads the org and tasks, then shows a model solving instances live."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from textual.app import App
from textual.binding import Binding

from crmtui.agent.gate import StepGate
from crmtui.agent.selection import select_types
from crmtui.agent.session import AgentSession, strategy_label
from crmtui.agent.watch_config import WatchConfig
from crmtui.config import PlayConfig
from crmtui.errors import CrmtuiError
from crmtui.play.dialogue import Side
from crmtui.play.workspace import Workspace
from crmtui.ui.key_order import OrderedKeys
from crmtui.ui.screens.loading import LoadingScreen
from crmtui.ui.screens.watch import WatchScreen
from crmtui.ui.workers import WorkerErrorHandler


class WatchApp(WorkerErrorHandler, OrderedKeys, App[None]):
    """Watch an LLM agent work through CRMArena instances, every step recorded.

    Args:
        config: The watch settings.
        workspace: An already loaded org + tasks (tests); otherwise loaded on start.
        wall: Wall clock for recordings (tests).
        monotonic: Monotonic clock for recordings (tests).
    """

    CSS_PATH = "app.tcss"
    TITLE = "crmtui watch"
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True)]

    def __init__(
        self,
        config: WatchConfig,
        *,
        workspace: Workspace | None = None,
        wall: Callable[[], dt.datetime] | None = None,
        monotonic: Callable[[], float] | None = None,
    ) -> None:
        super().__init__()
        self.config = config
        self.workspace = workspace
        self.wall = wall
        self.monotonic = monotonic
        self.watch_screen: WatchScreen | None = None
        self._order: list[int] = []

    def on_mount(self) -> None:
        if self.workspace is not None:
            self._workspace_ready(self.workspace)
            return
        loading = PlayConfig(
            tasks=self.config.tasks,
            org=self.config.org,
            annotator=self.config.model,
            idx=self.config.idx,
            force=self.config.force,
        )
        self.push_screen(LoadingScreen(loading), self._workspace_ready)

    def _workspace_ready(self, workspace: Workspace | None) -> None:
        if workspace is None:
            return
        self.workspace = workspace
        tasks = workspace.tasks
        try:
            tasks = select_types(tasks, self.config.task_types)
            if self.config.idx is not None:
                tasks.get(self.config.idx)
        except CrmtuiError as exc:
            self.notify(str(exc), severity="error", title="Cannot choose an instance", timeout=30)
            return
        self._order = tasks.idxs
        if not self._order:
            self.notify("No instances to watch.", severity="error", timeout=30)
            return
        self.open_instance(self.config.idx if self.config.idx is not None else self._order[0])

    def open_instance(self, idx: int) -> None:
        """Start a recorded agent attempt on instance ``idx`` and show it."""
        assert self.workspace is not None
        try:
            self.config.check()
            instance = self.workspace.tasks.get(idx)
            strategy = self.config.strategy_object()
            user = dialogue = None
            if self.config.dialogue.interactive:
                agent = Side("model", self.config.model, strategy_label(strategy))
                user, dialogue = self.config.start_dialogue(
                    instance, self.workspace.org.path, agent, self.config.user_client()
                )
            session = AgentSession.begin(
                instance,
                self.workspace.org,
                model=self.config.model,
                strategy=strategy,
                tasks_source=self.workspace.tasks_label,
                recordings=self.config.recordings,
                aided=self.config.aided,
                scorer=self.config.scorer(instance),
                wall=self.wall,
                monotonic=self.monotonic,
                fsync=self.config.fsync,
                today=self.config.today(instance),
                settings=self.config.resolved.with_sources(
                    tasks=self.workspace.tasks_label,
                    org=self.workspace.org.name,
                    org_digest=self.workspace.org.digest,
                ).to_json(),
                dialogue=dialogue,
            )
        except CrmtuiError as exc:
            self.notify(str(exc), severity="error", title="Cannot start", timeout=30)
            return
        gate = StepGate(self.config.delay, paused=self.config.paused)
        self.watch_screen = WatchScreen(
            session,
            self.config,
            self.workspace.org,
            gate,
            next_instance=self._next_instance,
            user=user,
        )
        self.push_screen(self.watch_screen)

    def _next_instance(self) -> None:
        current = self.watch_screen
        if current is None:
            return
        idx = current.session.instance.idx
        later = [i for i in self._order if i > idx]
        if not later:
            self.notify("That was the last instance in this list.")
            return
        self.pop_screen()
        self.watch_screen = None
        self.open_instance(later[0])

    def on_unmount(self) -> None:
        screen = self.watch_screen
        if screen is not None and not screen.session.ended:
            # Quitting mid-episode: the recording ends as stopped, never half-open.
            screen.gate.stop()
            screen.session.end_now("runner", "Stopped", "the watcher quit")
