"""tests/waiting.py's load scaling: a bound grows with the load, never up to the wait it
stands against, so "at once" stays distinguishable from "after the timeout"."""

from __future__ import annotations

import os
import threading

import pytest

from tests import waiting


def test_slowdown_is_the_load_per_core_and_at_least_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CRMTUI_TEST_SLOWDOWN", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (9.0, 8.0, 7.0))
    assert waiting.slowdown() == 4.5
    monkeypatch.setattr(os, "getloadavg", lambda: (0.3, 0.2, 0.1))
    assert waiting.slowdown() == 1.0
    monkeypatch.setenv("CRMTUI_TEST_SLOWDOWN", "3")
    assert waiting.slowdown() == 3.0


def test_promptly_scales_with_the_load_but_stays_under_half_the_alternative(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CRMTUI_TEST_SLOWDOWN", "1")
    assert waiting.promptly(3.0, instead=30.0) == 3.0
    monkeypatch.setenv("CRMTUI_TEST_SLOWDOWN", "4")
    assert waiting.promptly(3.0, instead=30.0) == 12.0
    monkeypatch.setenv("CRMTUI_TEST_SLOWDOWN", "50")
    assert waiting.promptly(3.0, instead=30.0) == 15.0  # never the timeout it stands against


def test_poll_returns_the_value_once_it_holds_and_names_what_never_did() -> None:
    ready = threading.Event()
    threading.Timer(0.05, ready.set).start()
    assert waiting.poll(lambda: ready.is_set() and "yes", what="the event") == "yes"
    with pytest.raises(AssertionError, match="timed out waiting for the moon"):
        waiting.poll(lambda: False, what="the moon", seconds=0.05)
