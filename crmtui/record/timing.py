"""How long a recorded session took: elapsed, paused, idle, away, active and wall time.

The time model (docs/annotate.md, "Timing"), shared by the live clock
(:class:`crmtui.play.timing.ActiveTimer`), play, serve, replay, compare, report, export and
study status:

* the clock runs from the start of the recording (``ms`` 0) until the first ``submit``
  (or, without one, the last event): what happens after the answer is in does not count;
* time between ``pause`` and the next ``resume`` is paused (a ``pause`` with a ``reason``
  is the app letting go of the session without ending it: a dropped connection, a closed
  terminal, Ctrl+Q; the next start resumes it);
* an ``idle`` event closes a gap without input of ``seconds``; of that gap the first
  ``idle_after`` seconds (the ``--idle`` threshold) count as active and only the rest is
  idle. An ``idle`` event without ``idle_after`` (recordings made before this rule) is idle
  whole, as it was recorded;
* a process killed outright (no ``pause`` written) is credited up to ``idle_after`` seconds
  after its last recorded event, at most the wall time until the session was reopened (a
  ``resume`` with ``reopened``, or an ``end`` closing it, that carries ``idle_after``);
* active = elapsed - paused - idle, and it never decreases as the session goes on (pauses
  and idle spans are counted once where they overlap);
* *away* is the time between ``app_blur`` and the next ``app_focus`` (the terminal did not
  have focus) while the clock ran and was not paused. It is reported beside active time, not
  subtracted from it;
* *wall* is the wall-clock time from the header's ``started_at`` to the stop (the submit, or
  the last event), everything included: pauses, idle time and time the process was gone.

:class:`Timeline` reads a recording once; :meth:`Timeline.at` gives the accounts at any
moment of it (replay's running clock), looking ahead only to the ``idle`` event that closes
a gap under way, exactly as the live clock stops counting a gap once it passes the
threshold.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from crmtui.record import events as ev


class TimedEvent(Protocol):
    """What the fold reads of an event (an :class:`~crmtui.record.events.Event` fits)."""

    ms: int
    t: str
    type: str
    payload: dict[str, Any]


@dataclass(frozen=True)
class SessionTimes:
    """A session's time accounts in milliseconds.

    Attributes:
        elapsed_ms: The clock's span: ``ms`` of the stop, plus time credited for stretches
            the process was gone (killed).
        paused_ms: Paused time within it.
        idle_ms: Idle time within it (the part of each long gap beyond the threshold) that
            is not also paused.
        away_ms: Time the terminal had no focus while the clock ran (not subtracted).
        stopped_at_ms: ``ms`` of the submit that stopped the clock (None: never submitted).
        credited_ms: Of ``elapsed_ms``, the part credited after kills.
        wall_ms: Wall-clock time from the start to the stop (None: unknown, or a moment
            during the session was asked for).
    """

    elapsed_ms: int
    paused_ms: int
    idle_ms: int
    away_ms: int
    stopped_at_ms: int | None = None
    credited_ms: int = 0
    wall_ms: int | None = None

    @property
    def active_ms(self) -> int:
        """Elapsed minus paused and idle time (never negative)."""
        return max(0, self.elapsed_ms - self.paused_ms - self.idle_ms)


Span = tuple[int, int]


def _clip(spans: Iterable[Span], end: int) -> list[Span]:
    return [(a, min(b, end)) for a, b in spans if min(b, end) > a]


def _measure(spans: Iterable[Span]) -> int:
    """Total length of the union of ``spans``."""
    total = 0
    reach: int | None = None
    for a, b in sorted(spans):
        if reach is None or a >= reach:
            total += b - a
            reach = b
        elif b > reach:
            total += b - reach
            reach = b
    return total


def _seconds_ms(value: Any) -> int:
    return round(float(value) * 1000)


def _parse(stamp: str | None) -> dt.datetime | None:
    if not stamp:
        return None
    try:
        return dt.datetime.fromisoformat(stamp)  # "...Z" (3.11+), in C: strptime is 20x slower
    except ValueError:
        return None


class Timeline:
    """A recording's pauses, idle spans, away spans, credits and stop, read once.

    Args:
        events: The recording's events in order (anything with ``ms``, ``t``, ``type`` and
            ``payload``; a quick reader may pass only the timing events and the last one).
        started_at: The header's ``started_at``; wall time is measured from it (None: no
            wall time, which quick readers such as study status do not need).
    """

    def __init__(self, events: Iterable[TimedEvent], started_at: str | None = None) -> None:
        self.stop_ms: int | None = None
        self.last_ms = 0
        self.pauses: list[Span] = []
        self.idles: list[Span] = []
        self.aways: list[Span] = []
        #: (ms, credited ms) for each reopening after a kill.
        self.credits: list[tuple[int, int]] = []
        self._started_at = started_at
        self._stop_t: str | None = None
        self._last_t: str | None = None
        paused_at: int | None = None
        away_at: int | None = None
        forever = 1 << 62
        for event in events:
            self.last_ms = event.ms
            self._last_t = event.t
            if self.stop_ms is not None:
                continue
            kind = event.type
            payload = event.payload
            if kind == ev.SUBMIT:
                self.stop_ms = event.ms
                self._stop_t = event.t
            elif kind == ev.PAUSE and paused_at is None:
                paused_at = event.ms
            elif kind == ev.RESUME:
                if paused_at is not None:
                    self.pauses.append((paused_at, event.ms))
                    paused_at = None
                elif payload.get("reopened"):
                    self._credit(event)
            elif kind == ev.END and paused_at is None and "gap_ms" in payload:
                self._credit(event)
            elif kind == ev.IDLE:
                seconds = _seconds_ms(payload["seconds"])
                counted = _seconds_ms(payload.get("idle_after", 0))
                if seconds > counted:
                    self.idles.append((event.ms - (seconds - counted), event.ms))
            elif kind == ev.APP_BLUR and away_at is None:
                away_at = event.ms
            elif kind == ev.APP_FOCUS and away_at is not None:
                self.aways.append((away_at, event.ms))
                away_at = None
        if paused_at is not None:
            self.pauses.append((paused_at, forever))
        if away_at is not None:
            self.aways.append((away_at, forever))

    def _credit(self, event: TimedEvent) -> None:
        """A reopening after a kill: the lost stretch counts up to ``idle_after``."""
        limit = event.payload.get("idle_after")
        gap = event.payload.get("gap_ms")
        if limit is None or gap is None:
            return  # recorded before the rule, or not a person's session: nothing known
        self.credits.append((event.ms, min(int(gap), _seconds_ms(limit))))

    def at(self, until_ms: int | None = None) -> SessionTimes:
        """The accounts up to ``until_ms`` (None: the whole recording)."""
        if until_ms is None:
            end = self.stop_ms if self.stop_ms is not None else self.last_ms
        else:
            end = until_ms if self.stop_ms is None else min(until_ms, self.stop_ms)
        end = max(0, end)
        pauses = _clip(self.pauses, end)
        paused = _measure(pauses)
        removed = _measure(pauses + _clip(self.idles, end))
        credited = sum(amount for ms, amount in self.credits if ms <= end)
        # Each away span less its overlap with pauses (pause spans never overlap).
        away = sum(_measure([*pauses, span]) - paused for span in _clip(self.aways, end))
        stopped = self.stop_ms if self.stop_ms is not None and self.stop_ms <= end else None
        return SessionTimes(
            elapsed_ms=end + credited,
            paused_ms=paused,
            idle_ms=removed - paused,
            away_ms=away,
            stopped_at_ms=stopped,
            credited_ms=credited,
            wall_ms=self._wall_ms() if until_ms is None else None,
        )

    def _wall_ms(self) -> int | None:
        start = _parse(self._started_at)
        stop = _parse(self._stop_t or self._last_t)
        if start is None or stop is None:
            return None
        return max(0, round((stop - start).total_seconds() * 1000))


def session_times(
    events: Iterable[TimedEvent], *, until_ms: int | None = None, started_at: str | None = None
) -> SessionTimes:
    """Fold ``events`` into :class:`SessionTimes` (see the module docs for the rules).

    Args:
        events: The recording's events in order.
        until_ms: Account only up to this ``ms`` (a moment during the session).
        started_at: The header's ``started_at``, for :attr:`SessionTimes.wall_ms`.
    """
    return Timeline(events, started_at).at(until_ms)
