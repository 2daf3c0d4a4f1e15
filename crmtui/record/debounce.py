"""Coalescing bursts of edits (keystrokes in the answer box) into few ``answer_edit`` events."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

_UNSET = object()


class Debouncer(Generic[T]):
    """Emit the latest value once edits have paused for ``window_ms``.

    The debouncer owns no timer: call :meth:`push` on every edit, :meth:`poll` now and then
    (e.g. from a UI interval) and :meth:`flush` before submitting or closing, so it stays a
    pure object that tests drive with a fake clock.

    Args:
        emit: Called with each value that survives coalescing.
        window_ms: Quiet time after the last edit before the value is emitted.
        max_wait_ms: Emit at least this often during continuous typing (None: never force).
        clock: Monotonic clock in seconds (``time.monotonic`` by default).
    """

    def __init__(
        self,
        emit: Callable[[T], object],
        window_ms: float = 800,
        *,
        max_wait_ms: float | None = 5000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if window_ms < 0 or (max_wait_ms is not None and max_wait_ms < window_ms):
            raise ValueError("need 0 <= window_ms <= max_wait_ms")
        self._emit = emit
        self._window = window_ms / 1000
        self._max_wait = None if max_wait_ms is None else max_wait_ms / 1000
        self._clock = clock
        self._pending: object = _UNSET
        self._first_at = 0.0
        self._last_at = 0.0
        self._last_emitted: object = _UNSET

    @property
    def pending(self) -> bool:
        """True while a value waits to be emitted."""
        return self._pending is not _UNSET

    def _due(self, now: float) -> bool:
        if self._pending is _UNSET:
            return False
        if now - self._last_at >= self._window:
            return True
        return self._max_wait is not None and now - self._first_at >= self._max_wait

    def _fire(self) -> bool:
        value, self._pending = self._pending, _UNSET
        if value == self._last_emitted:  # typed and undone: nothing changed
            return False
        self._last_emitted = value
        self._emit(value)  # type: ignore[arg-type]
        return True

    def push(self, value: T) -> bool:
        """Record an edit. Returns True if an earlier, now-settled value was emitted."""
        now = self._clock()
        fired = self._fire() if self._due(now) else False
        if self._pending is _UNSET:
            self._first_at = now
        self._pending = value
        self._last_at = now
        if self._max_wait is not None and now - self._first_at >= self._max_wait:
            fired = self._fire() or fired
        return fired

    def poll(self) -> bool:
        """Emit the pending value if its quiet window (or max wait) has passed."""
        return self._fire() if self._due(self._clock()) else False

    def flush(self) -> bool:
        """Emit the pending value now, whatever the time."""
        return self._fire() if self._pending is not _UNSET else False

    def mark_emitted(self, value: T) -> None:
        """Treat ``value`` as already emitted (a restored draft is not a new edit)."""
        self._last_emitted = value
