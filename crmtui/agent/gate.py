"""Pacing a watched agent: pause after the current step, single-step, stop, and speed.

The runner polls ``should_stop()`` before every step (in its own thread). :class:`StepGate`
answers it, blocking while paused and sleeping the chosen delay between steps; the UI thread
calls :meth:`pause`, :meth:`resume`, :meth:`step`, :meth:`stop` and sets :attr:`delay`. A
condition variable is the only shared state, so both sides stay simple and testable without
a UI.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

__all__ = ["SPEEDS", "StepGate"]

#: Delays between steps (seconds) offered by the speed controls, fastest first.
SPEEDS: tuple[float, ...] = (0.0, 0.5, 1.0, 2.0, 5.0)


class StepGate:
    """Decides, before each step, whether the runner may go on.

    Args:
        delay: Seconds to wait between steps (not before the first).
        paused: Start paused (the first step waits for :meth:`step` or :meth:`resume`).
        clock: Monotonic clock (tests).
    """

    def __init__(
        self,
        delay: float = 0.0,
        *,
        paused: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._cond = threading.Condition()
        self._delay = max(0.0, delay)
        self._paused = paused
        self._allowance = 0
        self._stopped = False
        self._waiting = False
        self._steps = 0
        self._clock = clock
        self._cancelled = threading.Event()

    # -- state (read from any thread) ------------------------------------------------------

    @property
    def paused(self) -> bool:
        """Whether the runner will wait before its next step."""
        with self._cond:
            return self._paused

    @property
    def stopped(self) -> bool:
        """Whether a stop was asked for."""
        with self._cond:
            return self._stopped

    @property
    def cancelled(self) -> threading.Event:
        """Set by :meth:`stop`: the runner's cancel switch for a model call in flight."""
        return self._cancelled

    @property
    def waiting(self) -> bool:
        """True while the runner is blocked in :meth:`should_stop` because of a pause."""
        with self._cond:
            return self._waiting

    @property
    def delay(self) -> float:
        """Seconds between steps."""
        with self._cond:
            return self._delay

    @delay.setter
    def delay(self, seconds: float) -> None:
        with self._cond:
            self._delay = max(0.0, float(seconds))
            self._cond.notify_all()

    # -- controls (UI thread) --------------------------------------------------------------

    def pause(self) -> None:
        """Pause after the current step."""
        with self._cond:
            self._paused = True
            self._cond.notify_all()

    def resume(self) -> None:
        """Run on without pausing."""
        with self._cond:
            self._paused = False
            self._allowance = 0
            self._cond.notify_all()

    def toggle(self) -> bool:
        """Pause if running, resume if paused; returns the new paused state."""
        if self.paused:
            self.resume()
            return False
        self.pause()
        return True

    def step(self) -> None:
        """Allow exactly one more step, then pause again."""
        with self._cond:
            self._paused = True
            self._allowance += 1
            self._cond.notify_all()

    def stop(self) -> None:
        """End the episode now: a model call in flight is abandoned, a paused runner woken."""
        with self._cond:
            self._stopped = True
            self._cancelled.set()
            self._cond.notify_all()

    # -- the runner's side -----------------------------------------------------------------

    def should_stop(self) -> bool:
        """Block as the controls say; True when the runner must stop."""
        with self._cond:
            if self._steps and self._delay and not self._stopped:
                # Waits the delay, but a stop, a new delay or a pause cuts it short.
                began = self._clock()
                while not self._stopped and not self._paused:
                    left = began + self._delay - self._clock()
                    if left <= 0:
                        break
                    self._cond.wait(left)
            while self._paused and not self._allowance and not self._stopped:
                self._waiting = True
                self._cond.wait()
            self._waiting = False
            if self._stopped:
                return True
            if self._paused and self._allowance:
                self._allowance -= 1
            self._steps += 1
            return False
