"""The per-process compute gate: connection threads take turns, none waits past its patience."""

from __future__ import annotations

import threading
import time

import pytest

from crmtui.rest.gate import ComputeGate


def test_a_second_request_waits_until_the_first_is_done() -> None:
    gate = ComputeGate(patience_s=5.0)
    inside, release, order = threading.Event(), threading.Event(), []

    def first() -> None:
        with gate:
            inside.set()
            release.wait(5)
            order.append("first done")

    def second() -> None:
        inside.wait(5)
        with gate:
            order.append("second in")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    inside.wait(5)
    time.sleep(0.05)  # the second thread is at the gate by now
    assert order == []
    release.set()
    for thread in threads:
        thread.join(5)
    assert order == ["first done", "second in"] and gate.overtakes == 0


def test_a_request_stops_waiting_after_its_patience() -> None:
    gate = ComputeGate(patience_s=0.05)
    inside, release = threading.Event(), threading.Event()

    def heavy() -> None:
        with gate:
            inside.set()
            release.wait(5)

    thread = threading.Thread(target=heavy)
    thread.start()
    inside.wait(5)
    began = time.monotonic()
    with gate:  # goes ahead beside the heavy one instead of waiting for it
        waited = time.monotonic() - began
    with gate:  # leaving released nothing: the heavy one still holds the turn
        pass
    release.set()
    thread.join(5)
    assert 0.04 <= waited < 2.0 and gate.overtakes == 2
    with gate:  # the heavy one gave its turn back
        pass
    assert gate.overtakes == 2


def test_the_turn_is_given_back_when_the_work_raises() -> None:
    gate = ComputeGate(patience_s=0.05)
    with pytest.raises(ValueError), gate:
        raise ValueError("boom")
    with gate:
        pass
    assert gate.overtakes == 0
