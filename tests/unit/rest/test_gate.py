"""The per-process compute gate: connection threads take turns, none waits past its patience."""

from __future__ import annotations

import threading
import time

import pytest

from crmtui.rest.gate import ComputeGate
from tests.waiting import PATIENCE_S, promptly

#: How long the heavy request holds its turn unless released: what a request that waited
#: for it instead of its patience would take.
HEAVY_S = 60.0


def test_a_second_request_waits_until_the_first_is_done() -> None:
    gate = ComputeGate(patience_s=PATIENCE_S)  # a wait past it only on a hang
    inside, release, order = threading.Event(), threading.Event(), []

    def first() -> None:
        with gate:
            inside.set()
            release.wait(PATIENCE_S)
            order.append("first done")

    def second() -> None:
        inside.wait(PATIENCE_S)
        with gate:
            order.append("second in")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    inside.wait(PATIENCE_S)
    time.sleep(0.05)  # the second thread is at the gate by now
    assert order == []
    release.set()
    for thread in threads:
        thread.join(PATIENCE_S)
    assert order == ["first done", "second in"] and gate.overtakes == 0


def test_a_request_stops_waiting_after_its_patience() -> None:
    gate = ComputeGate(patience_s=0.05)
    inside, release = threading.Event(), threading.Event()

    def heavy() -> None:
        with gate:
            inside.set()
            release.wait(HEAVY_S)

    thread = threading.Thread(target=heavy)
    thread.start()
    inside.wait(PATIENCE_S)
    began = time.monotonic()
    with gate:  # goes ahead beside the heavy one instead of waiting for it
        waited = time.monotonic() - began
    with gate:  # leaving released nothing: the heavy one still holds the turn
        pass
    release.set()
    thread.join(PATIENCE_S)
    assert 0.04 <= waited < promptly(2.0, instead=HEAVY_S) and gate.overtakes == 2
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
