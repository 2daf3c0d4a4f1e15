"""The live clock of a play session: active time as it grows, by the one time model.

The rules are :mod:`crmtui.record.timing`'s (docs/annotate.md, "Timing"): the clock starts with the
recording and stops at the submit; a pause stops it; a gap between inputs counts as active up
to ``idle_threshold`` seconds and only the rest is idle. A gap that passes the threshold is
closed (and returned, to be recorded as an ``idle`` event with ``idle_after``) by the input
that ends it, or by a pause, a submit or a suspend. So the active time shown never decreases:
during a long gap it holds at the threshold, and closing the gap changes nothing.

The fold of the recording gives the same number at every moment (a property test states it:
tests/property/test_clock.py).
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
        idle_threshold: Seconds of a gap without input that still count as active.
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

    def start(self, at: float | None = None) -> None:
        """Start the clock (``at``: the moment the recording began; default now)."""
        now = self.clock() if at is None else at
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

    @property
    def running(self) -> bool:
        """Started, and neither paused nor stopped."""
        return self._started is not None and self._paused_at is None and self._stopped_at is None

    def stop(self) -> None:
        """Stop the clock for good (at submit); a pause under way ends here.

        Call :meth:`note_input` first (the owner records the gap it closes), so a gap the
        submit ends is accounted before the clock freezes.
        """
        if self._started is None or self._stopped_at is not None:
            return
        now = self.clock()
        if self._paused_at is not None:
            self._paused_total += now - self._paused_at
            self._paused_at = None
        else:
            self._close_gap(now)
        self._stopped_at = now

    def pause(self) -> bool:
        """Stop the clock. Returns False if it was already paused, stopped or never started.

        Call :meth:`note_input` first: the gap a pause ends is closed there and recorded.
        """
        if not self.running:
            return False
        now = self.clock()
        self._close_gap(now)
        self._paused_at = now
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
        """Register user input now (or the end of the gap: a pause, a submit, a suspend).

        Returns:
            The gap's whole length in seconds if it was longer than the threshold (to be
            recorded as an ``idle`` event with ``idle_after``), else None.
        """
        if not self.running:
            return None
        return self._close_gap(self.clock())

    def _close_gap(self, now: float) -> float | None:
        last = self._last_input if self._last_input is not None else now
        gap = now - last
        self._last_input = now
        if gap > self.idle_threshold:
            self._idle_total += gap - self.idle_threshold
            self._idle_periods.append(gap)
            return gap
        return None

    def pending_idle(self) -> float:
        """Seconds of the gap under way beyond the threshold (0 within it, or not running)."""
        if not self.running or self._last_input is None:
            return 0.0
        return max(0.0, self.clock() - self._last_input - self.idle_threshold)

    def elapsed(self) -> float:
        """Seconds since start, excluding pauses (idle included)."""
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
        """Active seconds: :attr:`carried`, plus elapsed time less the idle part of each
        long gap (the one under way included)."""
        return self.carried + max(0.0, self.elapsed() - self._idle_total - self.pending_idle())

    @property
    def idle_total(self) -> float:
        """Idle seconds so far (the parts of closed gaps beyond the threshold)."""
        return self._idle_total


def format_duration(seconds: float) -> str:
    """Render seconds as ``M:SS`` or ``H:MM:SS``."""
    total = int(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
