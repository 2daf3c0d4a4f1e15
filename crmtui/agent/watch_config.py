"""Settings of ``crmtui watch`` (no UI imports).

The watch app gets a :class:`WatchConfig`; its :meth:`~AgentSettings.client` and
:meth:`~AgentSettings.scorer` are called in the agent's worker thread, so litellm is imported
off the UI thread.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from crmtui.agent.settings import AgentSettings
from crmtui.errors import ConfigError
from crmtui.paths import recordings_dir

__all__ = ["WatchConfig"]


@dataclass(frozen=True)
class WatchConfig(AgentSettings):
    """Everything ``crmtui watch`` needs: the agent settings plus what to watch and how.

    Attributes:
        idx: Watch this instance (``task`` picks the first of that type).
        recordings: Root folder of recordings.
        delay: Seconds between steps (the speed control starts here).
        paused: Start paused (press step or resume to begin).
        stream: Stream reply text into the transcript as it arrives.
    """

    idx: int | None = None
    recordings: Path = field(default_factory=recordings_dir)
    delay: float = 0.0
    paused: bool = False
    stream: bool = True

    def check(self) -> None:
        """Reject impossible settings with a one-line :class:`ConfigError`."""
        super().check()
        if self.delay < 0:
            raise ConfigError(f"--delay must be >= 0, got {self.delay:g}")
