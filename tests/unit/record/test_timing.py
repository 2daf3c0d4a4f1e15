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


def test_a_gap_counts_up_to_its_idle_after_and_only_the_rest_is_idle() -> None:
    times = session_times(
        _events(
            (10_000, "open_object", {}),
            (100_000, "idle", {"seconds": 90, "idle_after": 60}),
            (110_000, "submit", {}),
        )
    )
    assert (times.idle_ms, times.active_ms) == (30_000, 80_000)


def test_an_idle_event_before_the_rule_is_idle_whole() -> None:
    times = session_times(_events((100_000, "idle", {"seconds": 90}), (110_000, "submit", {})))
    assert (times.idle_ms, times.active_ms) == (90_000, 20_000)


def test_a_kill_is_credited_up_to_idle_after_within_the_wall_gap() -> None:
    reopened = {"reopened": True, "gap_ms": 3_600_000, "idle_after": 60}
    short = {"reopened": True, "gap_ms": 20_000, "idle_after": 60}
    times = session_times(
        _events((5_000, "open_object", {}), (5_000, "resume", reopened), (9_000, "submit", {}))
    )
    assert (times.credited_ms, times.active_ms) == (60_000, 69_000)
    times = session_times(
        _events((5_000, "open_object", {}), (5_000, "resume", short), (9_000, "submit", {}))
    )
    assert times.active_ms == 29_000
    # A suspend wrote a pause: the reopening closes it and credits nothing.
    times = session_times(
        _events(
            (5_000, "pause", {"reason": "disconnect"}),
            (5_000, "resume", reopened),
            (9_000, "submit", {}),
        )
    )
    assert (times.credited_ms, times.active_ms) == (0, 9_000)


def test_closing_a_killed_session_credits_like_a_resume() -> None:
    end = {"reason": "abandoned", "gap_ms": 30_000, "idle_after": 60}
    times = session_times(_events((5_000, "open_object", {}), (5_000, "end", end)))
    assert times.active_ms == 35_000


def test_overlapping_pause_and_idle_are_removed_once() -> None:
    times = session_times(
        _events(
            (1_000, "pause", {}),
            (50_000, "resume", {}),
            (60_000, "idle", {"seconds": 40}),  # a forged overlap with the pause
            (70_000, "submit", {}),
        )
    )
    assert times.paused_ms + times.idle_ms == 59_000
    assert times.active_ms == 11_000


def test_wall_time_runs_from_the_start_to_the_submit() -> None:
    events = [
        Event(1, "2026-01-01T00:00:10.000Z", 1_000, "a", "open_object", {}, "p", "h"),
        Event(2, "2026-01-01T01:00:10.500Z", 2_000, "a", "submit", {}, "p", "h"),
        Event(3, "2026-01-01T02:00:00.000Z", 3_000, "a", "end", {"reason": "x"}, "p", "h"),
    ]
    times = session_times(events, started_at="2026-01-01T00:00:00.000Z")
    assert times.wall_ms == 3_610_500
