"""How long a recorded session took: elapsed, paused, idle, away and active time.

The rules, shared by the live clock (:class:`crmtui.play.timing.ActiveTimer`), replay,
compare, report and export:

* the clock runs from the first event until the first ``submit`` (or, without one, the last
  event): what happens after the answer is in does not count;
* time between ``pause`` and the next ``resume`` is paused;
* each ``idle`` event closes a gap without input of ``seconds`` (recorded at the input that
  ended it); the part of it before the clock stopped is idle;
* active = elapsed - paused - idle;
* *away* is the time between ``app_blur`` and the next ``app_focus`` (the terminal did not
  have focus) while the clock ran and was not paused. It is reported beside active time, not
  subtracted from it: a person away from the terminal may be working on the task elsewhere
  (a calculator, a note), or not; an away stretch without input longer than the idle
  threshold is idle anyway.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from crmtui.record import events as ev


@dataclass(frozen=True)
class SessionTimes:
    """A session's time accounts in milliseconds."""

    elapsed_ms: int
    paused_ms: int
    idle_ms: int
    away_ms: int
    #: ``ms`` of the submit that stopped the clock (None: never submitted).
    stopped_at_ms: int | None = None

    @property
    def active_ms(self) -> int:
        """Elapsed minus paused and idle time (never negative)."""
        return max(0, self.elapsed_ms - self.paused_ms - self.idle_ms)


def _overlap(start: int, end: int, spans: list[tuple[int, int]]) -> int:
    return sum(max(0, min(end, b) - max(start, a)) for a, b in spans)


def session_times(events: Iterable[ev.Event], *, until_ms: int | None = None) -> SessionTimes:
    """Fold ``events`` into :class:`SessionTimes` (see the module docs for the rules).

    Args:
        events: The recording's events in order.
        until_ms: Account only up to this ``ms`` (a moment during the session).
    """
    last = 0
    stop: int | None = None
    pauses: list[tuple[int, int]] = []
    paused_at: int | None = None
    idle = 0
    aways: list[tuple[int, int]] = []
    away_at: int | None = None
    idles: list[tuple[int, int]] = []
    for event in events:
        if until_ms is not None and event.ms > until_ms:
            break
        last = event.ms
        if stop is not None:
            continue
        kind = event.type
        if kind == ev.SUBMIT:
            stop = event.ms
        elif kind == ev.PAUSE and paused_at is None:
            paused_at = event.ms
        elif kind == ev.RESUME and paused_at is not None:
            pauses.append((paused_at, event.ms))
            paused_at = None
        elif kind == ev.IDLE:
            idles.append((event.ms - round(float(event.payload["seconds"]) * 1000), event.ms))
        elif kind == ev.APP_BLUR and away_at is None:
            away_at = event.ms
        elif kind == ev.APP_FOCUS and away_at is not None:
            aways.append((away_at, event.ms))
            away_at = None
    end = stop if stop is not None else (until_ms if until_ms is not None else last)
    if paused_at is not None:
        pauses.append((paused_at, end))
    if away_at is not None:
        aways.append((away_at, end))
    paused = sum(max(0, min(b, end) - a) for a, b in pauses)
    idle = sum(max(0, min(b, end) - a) for a, b in idles)
    away = sum(max(0, min(b, end) - a) - _overlap(a, min(b, end), pauses) for a, b in aways)
    return SessionTimes(end, paused, idle, max(0, away), stop)
