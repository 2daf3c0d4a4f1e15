"""StepGate: pause after the current step, single-step, stop and delay, across threads."""

from __future__ import annotations

import threading
import time

from crmtui.agent.gate import StepGate
from tests.waiting import PATIENCE_S, promptly


def _runner(gate: StepGate, steps: list[int], limit: int = 10) -> threading.Thread:
    def loop() -> None:
        for i in range(limit):
            if gate.should_stop():
                return
            steps.append(i)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    return thread


def _until(condition, timeout: float = PATIENCE_S) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "condition not met in time"
        time.sleep(0.002)


def test_running_gate_lets_every_step_through() -> None:
    gate = StepGate()
    steps: list[int] = []
    _runner(gate, steps, limit=5).join(PATIENCE_S)
    assert steps == [0, 1, 2, 3, 4]


def test_paused_gate_blocks_until_single_steps_and_resume() -> None:
    gate = StepGate(paused=True)
    steps: list[int] = []
    thread = _runner(gate, steps, limit=4)
    _until(lambda: gate.waiting)
    assert steps == []
    gate.step()
    _until(lambda: len(steps) == 1 and gate.waiting)
    gate.step()
    _until(lambda: len(steps) == 2 and gate.waiting)
    gate.resume()
    thread.join(PATIENCE_S)
    assert steps == [0, 1, 2, 3]


def test_pause_takes_effect_before_the_next_step_and_stop_wakes_it() -> None:
    gate = StepGate()
    steps: list[int] = []
    gate.pause()
    thread = _runner(gate, steps)
    _until(lambda: gate.waiting)
    gate.stop()
    thread.join(PATIENCE_S)
    assert steps == [] and not thread.is_alive() and gate.stopped


def test_delay_between_steps_not_before_the_first() -> None:
    gate = StepGate(delay=1.0)
    began = time.monotonic()
    assert gate.should_stop() is False
    assert time.monotonic() - began < promptly(0.1, instead=1.0)
    assert gate.should_stop() is False
    assert time.monotonic() - began >= 1.0
    gate.delay = -3
    assert gate.delay == 0.0


def test_stop_cuts_a_long_delay_short() -> None:
    gate = StepGate(delay=30)
    assert gate.should_stop() is False
    threading.Timer(0.05, gate.stop).start()
    began = time.monotonic()
    assert gate.should_stop() is True
    assert time.monotonic() - began < promptly(2.0, instead=30.0)


def test_toggle() -> None:
    gate = StepGate()
    assert gate.toggle() is True and gate.paused
    assert gate.toggle() is False and not gate.paused
