"""Session time accounts from a recording: the clock stops at submit; away is reported."""

from __future__ import annotations

from typing import Any

from crmtui.record.events import Event
from crmtui.record.timing import session_times


def _events(*items: tuple[int, str, dict[str, Any]]) -> list[Event]:
    return [
        Event(n + 1, "t", ms, "a", kind, payload, "p", "h")
        for n, (ms, kind, payload) in enumerate(items)
    ]


def test_paused_idle_and_active_until_the_submit() -> None:
    times = session_times(
        _events(
            (1_000, "open_object", {}),
            (2_000, "pause", {}),
            (12_000, "resume", {}),
            (80_000, "idle", {"seconds": 65}),
            (90_000, "submit", {}),
            (95_000, "pause", {}),  # after the answer: not counted
            (400_000, "end", {}),
        )
    )
    assert (times.elapsed_ms, times.paused_ms, times.idle_ms) == (90_000, 10_000, 65_000)
    assert times.active_ms == 15_000 and times.stopped_at_ms == 90_000


def test_away_time_is_reported_not_subtracted_and_excludes_pauses() -> None:
    times = session_times(
        _events(
            (1_000, "app_blur", {}),
            (3_000, "pause", {}),
            (5_000, "resume", {}),
            (11_000, "app_focus", {}),
            (20_000, "app_blur", {}),  # still away at the submit
            (30_000, "submit", {}),
        )
    )
    assert times.away_ms == (10_000 - 2_000) + 10_000
    assert times.active_ms == 30_000 - 2_000


def test_until_ms_accounts_a_prefix() -> None:
    events = _events((1_000, "pause", {}), (5_000, "resume", {}), (9_000, "end", {}))
    assert session_times(events, until_ms=3_000).paused_ms == 2_000
    assert session_times(events).active_ms == 5_000
