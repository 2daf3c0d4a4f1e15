"""Unfinished sessions at start: resumed straight away in a study, offered in free play.

A mixin of :class:`~crmtui.ui.app.CrmtuiApp`. An annotator's latest unfinished session
(a dropped connection, a closed terminal) on an instance they may still open is theirs
to go on with; older ones, and one on an instance no longer offered, are closed as
abandoned. A study resumes it without asking (the plan's ``resume_unasked``): the app
opens straight in the instance and the picker comes when it closes. Free play asks, over
the picker.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crmtui.errors import CrmtuiError

if TYPE_CHECKING:
    from crmtui.config import PlayConfig
    from crmtui.play.policy import PlayPlan
    from crmtui.play.workspace import Workspace
    from crmtui.ui.screens.picker import PickerScreen


class ResumeFlow:
    """Finds the session to resume and resumes it (asking, unless the plan says not to)."""

    config: PlayConfig
    plan: PlayPlan
    workspace: Workspace | None
    picker: PickerScreen | None

    def resumable(self) -> tuple[int, Path] | None:
        """The instance and recording of the latest unfinished session this annotator may
        resume (of this task source), or None. Older ones stay unfinished: each continues
        when its instance is opened, as a kept attempt should."""
        from crmtui.record.recorder import close_unfinished
        from crmtui.record.sessions import find_unfinished

        assert self.workspace is not None
        # Only this task source's: another's (the same idx, other instances) is left alone.
        unfinished = [
            path
            for path in sorted(find_unfinished(self.config.recordings, self.config.annotator))
            if header_of(path).get("tasks_source") == self.workspace.tasks_label
        ]
        if not unfinished:
            return None
        latest = unfinished[-1]
        if header_of(latest).get("dialogue") is not None:
            # A conversation is not resumed (the other side of it is gone): it was abandoned.
            self.close_quietly(close_unfinished, latest)
            return None
        idx = idx_of(latest)
        order = self.plan.picker().order
        app: Any = self
        if (
            idx is None
            or idx not in self.workspace.tasks
            or (order is not None and idx not in order)
            or app._submission(idx)
        ):
            # Not offered here, or (recordings from before one submission was the rule) a
            # second attempt at an instance already submitted: it must not count.
            self.close_quietly(close_unfinished, latest)
            return None
        return idx, latest

    def offer_resume(self) -> bool:
        """Resume (or, in free play, offer to resume) an unfinished session; whether one
        was found."""
        from crmtui.record.recorder import close_unfinished
        from crmtui.ui.screens.dialogs import ConfirmScreen

        app: Any = self
        found = self.resumable()
        if found is None:
            return False
        idx, latest = found
        if self.plan.picker().resume_unasked:
            app.notify(f"Resuming your unfinished session on instance {idx}.")
            app.open_instance(idx, resume_path=latest)
            return True

        def answer(resume: bool | None) -> None:
            if resume:
                app.open_instance(idx, resume_path=latest)
            else:
                self.close_quietly(close_unfinished, latest)
                if self.picker:
                    self.picker.set_status(app.status())

        app.push_screen(
            ConfirmScreen(
                f"An unfinished session on instance {idx} was found:\n{latest}\n\n"
                "Resume it, or close it as abandoned?",
                yes="Resume",
                no="Close it",
            ),
            answer,
        )
        return True

    def close_quietly(self, close: Any, path: Any) -> None:
        """Close a recording as abandoned; a failure is a warning, not a stop."""
        try:
            close(path, "abandoned", idle_after=self.config.idle_threshold)
        except CrmtuiError as exc:
            app: Any = self
            app.notify(f"{path}: {exc}", severity="warning")


def header_of(path: Any) -> dict[str, Any]:
    """A recording's header line (empty when it cannot be read)."""
    try:
        with open(path, encoding="utf-8") as handle:
            header = json.loads(handle.readline())
    except (OSError, ValueError):
        return {}
    return header if isinstance(header, dict) else {}


def idx_of(path: Any) -> int | None:
    """The instance idx a recording's header names (None when it cannot be read)."""
    instance = header_of(path).get("instance")
    idx = instance.get("idx") if isinstance(instance, dict) else None
    return idx if isinstance(idx, int) else None
