"""Typed settings for the interactive app, built from CLI flags (and tests)."""

from __future__ import annotations

import getpass
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crmtui.paths import recordings_dir

#: Seconds without input after which a gap counts as idle (``crmtui play --idle``).
DEFAULT_IDLE_THRESHOLD = 60.0


def default_annotator() -> str:
    """The annotator name: ``CRMTUI_ANNOTATOR``, else the login name."""
    name = os.environ.get("CRMTUI_ANNOTATOR")
    if name:
        return name
    try:
        return getpass.getuser() or "annotator"
    except (KeyError, OSError):  # no passwd entry (containers)
        return "annotator"


@dataclass(frozen=True)
class PlayConfig:
    """Everything the play app needs to know before it starts.

    Attributes:
        tasks: Task source (``sample``, a file, ``hf:...``); None means the sample.
        org: Org path or name; None means the sample org.
        annotator: Who is playing (recorded as the actor id).
        task: Only instances of this task type (code or abbreviation).
        idx: Open this instance directly.
        recordings: Root folder for recordings (default ``CRMTUI_HOME/recordings``).
        aided: Show ``metadata.optional`` (upstream's aided mode).
        idle_threshold: Seconds without input that count as idle.
        fsync: Sync every event to disk (turn off only in tests and benchmarks).
        force: Play tasks on an org that lacks most of the records they mention.
        dialogue: The multi-turn mode's settings (a
            :class:`crmtui.agent.dialogue_settings.DialogueSettings`): with ``interactive``
            every instance is a conversation with a simulated user; None: single-turn.
        agent: ``--as-user``: the model agent the person talks to, playing the user (a
            :class:`crmtui.agent.settings.AgentSettings`); None: the person plays the agent.
        channel: ``--channel NAME``: the other side is a person in another process, met
            on this channel (:mod:`crmtui.play.channel`); None: a model.
        as_user: With ``channel``: this person plays the user (else the agent).
        partner_timeout_s: With ``channel``: seconds of the partner's silence before the
            conversation ends as abandoned (None: the channel's default).
    """

    tasks: str | None = None
    org: str | None = None
    annotator: str = field(default_factory=default_annotator)
    task: str | None = None
    idx: int | None = None
    recordings: Path = field(default_factory=recordings_dir)
    aided: bool = False
    idle_threshold: float = DEFAULT_IDLE_THRESHOLD
    fsync: bool = True
    force: bool = False
    dialogue: Any = None
    agent: Any = None
    channel: str | None = None
    as_user: bool = False
    partner_timeout_s: float | None = None

    @property
    def actor(self) -> dict[str, str]:
        """The recorder's actor record for a human."""
        return {"kind": "human", "id": self.annotator}

    @property
    def tasks_label(self) -> str:
        """The task source as recorded in headers."""
        return self.tasks or "sample"
