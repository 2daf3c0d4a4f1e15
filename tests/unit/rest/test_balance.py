"""Spreading connections over worker processes (crmtui.rest.balance)."""

from __future__ import annotations

import os
import sys

import pytest

from crmtui.rest.balance import ConnectionBalance


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_least_busy_worker_accepts_and_a_busier_one_defers() -> None:
    clock = Clock()
    first = ConnectionBalance(2, grace_s=0.05, clock=clock)
    assert first.should_accept()  # nobody has any connection yet
    first.opened()
    first.opened()
    assert first.counts() == [2, 0] and not first.should_accept()
    first.closed()
    first.closed()
    assert first.counts() == [0, 0] and first.should_accept()


def test_a_deferred_connection_is_taken_after_the_grace() -> None:
    clock = Clock()
    busy = ConnectionBalance(2, grace_s=0.05, clock=clock)
    busy.opened()
    assert not busy.should_accept()
    for _ in range(4):  # the socket stays readable: checked about every millisecond
        clock.now += 0.01
        assert not busy.should_accept()
    clock.now += 0.011
    assert busy.should_accept()  # 51 ms: no other worker took it, so this one does


def test_a_new_wait_starts_its_own_grace() -> None:
    clock = Clock()
    busy = ConnectionBalance(2, grace_s=0.05, clock=clock)
    busy.opened()
    assert not busy.should_accept()
    clock.now += 5.0  # that connection went to the other worker; a new one arrives much later
    assert not busy.should_accept()


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform != "linux", reason="needs fork")
def test_counts_are_shared_with_a_forked_worker() -> None:
    balance = ConnectionBalance(2)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        balance.become(1)
        for _ in range(3):
            balance.opened()
        os._exit(0)
    os.waitpid(pid, 0)
    assert balance.counts() == [0, 3]
    assert balance.should_accept()  # the parent (slot 0) is now the least busy
    balance.close()
