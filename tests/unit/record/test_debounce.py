"""Debouncer: edits within the window coalesce; a fake clock drives it."""

from __future__ import annotations

import pytest

from crmtui.record import Debouncer


class Tick:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def tick() -> Tick:
    return Tick()


def test_burst_becomes_one_emit_after_quiet_window(tick: Tick) -> None:
    out: list[str] = []
    deb = Debouncer(out.append, window_ms=500, clock=tick)
    for text in ("0", "00", "005"):
        deb.push(text)
        tick.now += 0.1
    assert not deb.poll() and out == []
    tick.now += 0.45  # 0.55 s since the last keystroke
    assert deb.poll() and out == ["005"] and not deb.pending


def test_next_push_after_quiet_emits_the_settled_value(tick: Tick) -> None:
    out: list[str] = []
    deb = Debouncer(out.append, window_ms=500, clock=tick)
    deb.push("a")
    tick.now = 2.0  # nobody polled in between
    assert deb.push("ab") is True
    assert out == ["a"] and deb.pending
    assert deb.flush() and out == ["a", "ab"]


def test_max_wait_forces_an_emit_during_continuous_typing(tick: Tick) -> None:
    out: list[str] = []
    deb = Debouncer(out.append, window_ms=300, max_wait_ms=1000, clock=tick)
    for i in range(30):
        deb.push("x" * (i + 1))
        tick.now += 0.1
        deb.poll()
    # 3 s of typing, never 300 ms quiet: forced out about once a second.
    assert out == ["x" * 11, "x" * 21]


def test_unchanged_value_is_not_emitted_twice(tick: Tick) -> None:
    out: list[str] = []
    deb = Debouncer(out.append, window_ms=100, clock=tick)
    deb.push("a")
    deb.flush()
    deb.push("ab")
    deb.push("a")  # typed and deleted
    tick.now += 1
    assert deb.poll() is False and out == ["a"]
    assert deb.flush() is False


def test_invalid_windows_are_refused() -> None:
    with pytest.raises(ValueError):
        Debouncer(print, window_ms=500, max_wait_ms=100)
    with pytest.raises(ValueError):
        Debouncer(print, window_ms=-1)
