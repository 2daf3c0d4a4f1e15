"""The play app's read-only side: a submitted instance opens as a view, never a new attempt.

A mixin of :class:`crmtui.ui.app.CrmtuiApp` (kept apart so the app module stays small): it
finds an annotator's counted submission, shows it (:class:`SubmittedScreen`), and opens its
recording in the replay screen where the session may show the reward and gold answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import App
from textual.message import Message

from crmtui.errors import CrmtuiError
from crmtui.play.progress import InstanceStatus

if TYPE_CHECKING:
    from crmtui.config import PlayConfig
    from crmtui.play.policy import PlayPlan
    from crmtui.play.workspace import Workspace


class ReadOnlyInstances(App[None]):
    """Submitted instances, read-only: the check, the view and its replay."""

    config: PlayConfig
    workspace: Workspace | None
    plan: PlayPlan

    def _submission(self, idx: int | None) -> InstanceStatus | None:
        """This annotator's counted submission on ``idx``, read from the recordings now."""
        from crmtui.play.progress import first_submission

        assert self.workspace is not None
        if idx is None:
            return None
        return first_submission(
            self.config.recordings, self.config.annotator, self.workspace.tasks_label, idx
        )

    def show_submitted(self, status: InstanceStatus) -> None:
        """Show a submitted instance read-only: the answer, the time, the reward and gold
        answer where this session may show them, and the recording to replay."""
        from crmtui.play.submitted import submitted_view
        from crmtui.ui.screens.submitted import SubmittedScreen

        try:
            view = submitted_view(status)
        except CrmtuiError as exc:
            self.notify(str(exc), severity="error", title=f"Instance {status.idx}")
            return
        reveal = self.plan.play(status.idx).reveal

        def done(choice: str | None) -> None:
            if choice == "replay" and reveal:
                self._open_replay(status.path)

        self.push_screen(SubmittedScreen(view, reveal=reveal), done)

    @work(thread=True, exclusive=True, group="replay")
    def _open_replay(self, path: Any) -> None:
        from crmtui.review.replay_org import prepare_replay

        try:
            source = prepare_replay(path)
        except CrmtuiError as exc:
            self.call_from_thread(self.notify, str(exc), severity="error", title="Replay")
            return
        self.post_message(self.ReplayReady(source))

    class ReplayReady(Message):
        """A recording was prepared for replay in a worker."""

        def __init__(self, source: Any) -> None:
            self.source = source
            super().__init__()

    def on_read_only_instances_replay_ready(self, event: ReplayReady) -> None:
        from crmtui.ui.screens.replay import ReplayScreen

        self.push_screen(ReplayScreen(event.source))
