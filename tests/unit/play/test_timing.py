"""ActiveTimer: pauses and idle periods with a fake clock."""

from __future__ import annotations

import pytest

from crmtui.play.timing import ActiveTimer, format_duration


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_elapsed_and_active_without_pauses() -> None:
    clock = FakeClock()
    timer = ActiveTimer(clock=clock, idle_threshold=60)
    assert timer.elapsed() == 0.0
    timer.start()
    clock.now += 30
    assert timer.note_input() is None
    assert timer.elapsed() == pytest.approx(30)
    assert timer.active() == pytest.approx(30)


def test_pause_stops_the_clock_and_is_not_idle() -> None:
    clock = FakeClock()
    timer = ActiveTimer(clock=clock, idle_threshold=60)
    timer.start()
    clock.now += 10
    assert timer.pause() is True
    assert timer.pause() is False
    clock.now += 500
    assert timer.elapsed() == pytest.approx(10)
    assert timer.resume() == pytest.approx(500)
    clock.now += 5
    # The pause does not count as an idle gap.
    assert timer.note_input() is None
    assert timer.active() == pytest.approx(15)


def test_a_long_gap_counts_up_to_the_threshold_and_is_idle_beyond() -> None:
    clock = FakeClock()
    timer = ActiveTimer(clock=clock, idle_threshold=60)
    timer.start()
    clock.now += 20
    timer.note_input()
    clock.now += 30
    assert timer.active() == pytest.approx(50)  # within the threshold: all active
    clock.now += 60
    # 90 s into the gap: its first 60 s count, and the clock holds there.
    assert timer.active() == pytest.approx(80)
    assert timer.note_input() == pytest.approx(90)
    assert timer.idle_total == pytest.approx(30)
    assert timer.active() == pytest.approx(80)  # closing the gap changes nothing
    clock.now += 10
    assert timer.note_input() is None
    assert timer.elapsed() == pytest.approx(120)
    assert timer.active() == pytest.approx(90)


def test_a_pause_closes_the_gap_under_way() -> None:
    clock = FakeClock()
    timer = ActiveTimer(clock=clock, idle_threshold=60)
    timer.start()
    clock.now += 100
    assert timer.note_input() == pytest.approx(100)  # the owner records it, then pauses
    assert timer.pause() is True
    clock.now += 1000
    assert timer.active() == pytest.approx(60)


def test_input_before_start_or_while_paused_is_ignored() -> None:
    clock = FakeClock()
    timer = ActiveTimer(clock=clock, idle_threshold=1)
    assert timer.note_input() is None
    timer.start()
    timer.pause()
    clock.now += 100
    assert timer.note_input() is None
    assert timer.idle_total == 0


@pytest.mark.parametrize(
    ("seconds", "text"), [(0, "0:00"), (59.9, "0:59"), (61, "1:01"), (3725, "1:02:05")]
)
def test_format_duration(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text
