"""Active-time accounting for a play session: pauses and idle periods.

The clock starts when the instance is shown. Pausing hides the instance and stops the clock.
A gap between two inputs longer than ``idle_threshold`` seconds is an idle period: it is
reported once (so it can be recorded) and does not count as active time. Submitting stops
the clock for good (:meth:`ActiveTimer.stop`). The same rules fold a recording in
:mod:`crmtui.record.timing`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from crmtui.config import DEFAULT_IDLE_THRESHOLD


@dataclass
class ActiveTimer:
    """Tracks active time with an injectable monotonic clock.

    Attributes:
        clock: Monotonic seconds source (``time.monotonic`` in the app, a fake in tests).
        idle_threshold: Seconds without input after which the gap counts as idle.
        carried: Active seconds spent before this timer started (a resumed recording's),
            counted in :meth:`active`.
    """

    clock: Callable[[], float] = time.monotonic
    idle_threshold: float = DEFAULT_IDLE_THRESHOLD
    #: Active seconds carried over from before (a resumed session's earlier part).
    carried: float = 0.0
    _started: float | None = None
    _stopped_at: float | None = None
    _paused_at: float | None = None
    _paused_total: float = 0.0
    _idle_total: float = 0.0
    _last_input: float | None = None
    _idle_periods: list[float] = field(default_factory=list)

    def start(self) -> None:
        """Start the clock (when the instance is first shown)."""
        now = self.clock()
        self._started = now
        self._last_input = now

    @property
    def started(self) -> bool:
        """Whether :meth:`start` was called."""
        return self._started is not None

    @property
    def paused(self) -> bool:
        """Whether the clock is paused."""
        return self._paused_at is not None

    @property
    def stopped(self) -> bool:
        """Whether :meth:`stop` was called (the answer is in)."""
        return self._stopped_at is not None

    def stop(self) -> None:
        """Stop the clock for good (at submit); a pause under way ends here.

        Call the owner's input handling first, so an idle gap that the submitting keypress
        ends is recorded before the clock freezes.
        """
        if self._started is None or self._stopped_at is not None:
            return
        now = self.clock()
        if self._paused_at is not None:
            self._paused_total += now - self._paused_at
            self._paused_at = None
        self._stopped_at = now

    def pause(self) -> bool:
        """Stop the clock. Returns False if it was already paused, stopped or never started."""
        if self._started is None or self._paused_at is not None or self._stopped_at is not None:
            return False
        self._paused_at = self.clock()
        return True

    def resume(self) -> float:
        """Restart the clock; returns the length of the pause in seconds (0 if not paused)."""
        if self._paused_at is None:
            return 0.0
        now = self.clock()
        length = now - self._paused_at
        self._paused_total += length
        self._paused_at = None
        # A pause is not idleness: input measurement restarts from now.
        self._last_input = now
        return length

    def note_input(self) -> float | None:
        """Register user input now.

        Returns:
            The idle period's length in seconds if the gap since the previous input was
            longer than the threshold (to be recorded as an ``idle`` event), else None.
        """
        if self._started is None or self._paused_at is not None or self._stopped_at is not None:
            return None
        now = self.clock()
        gap = now - (self._last_input if self._last_input is not None else now)
        self._last_input = now
        if gap > self.idle_threshold:
            self._idle_total += gap
            self._idle_periods.append(gap)
            return gap
        return None

    def pending_idle(self) -> float:
        """Seconds of the current no-input gap that already exceed the threshold, else 0."""
        if (
            self._started is None
            or self._paused_at is not None
            or self._stopped_at is not None
            or self._last_input is None
        ):
            return 0.0
        gap = self.clock() - self._last_input
        return gap if gap > self.idle_threshold else 0.0

    def elapsed(self) -> float:
        """Wall seconds since start, excluding pauses (idle included)."""
        if self._started is None:
            return 0.0
        if self._stopped_at is not None:
            end = self._stopped_at
        elif self._paused_at is not None:
            end = self._paused_at
        else:
            end = self.clock()
        return max(0.0, end - self._started - self._paused_total)

    def active(self) -> float:
        """Active seconds: elapsed minus recorded idle periods and any idle gap under way,
        plus the time :attr:`carried` over from before a resume."""
        return self.carried + max(0.0, self.elapsed() - self._idle_total - self.pending_idle())

    @property
    def idle_total(self) -> float:
        """Total recorded idle seconds."""
        return self._idle_total


def format_duration(seconds: float) -> str:
    """Render seconds as ``M:SS`` or ``H:MM:SS``."""
    total = int(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
