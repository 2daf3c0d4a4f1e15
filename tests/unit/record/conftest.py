"""Fixtures for recorder tests: frozen clocks and a recorder factory."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from crmtui.record import Recorder

START = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)


class FakeClock:
    """A wall clock and a monotonic clock that move only when told to."""

    def __init__(self, start: dt.datetime = START, mono: float = 1000.0) -> None:
        self.now = start
        self.mono = mono

    def advance(self, seconds: float) -> None:
        self.now += dt.timedelta(seconds=seconds)
        self.mono += seconds

    def wall(self) -> dt.datetime:
        return self.now

    def monotonic(self) -> float:
        return self.mono


HEADER: dict[str, Any] = {
    "actor": {"kind": "human", "id": "alice"},
    "instance": {
        "idx": 42,
        "task": "handle_time",
        "query": "Which agent had the shortest handle time?",
        "reward_metric": "exact_match",
        "answer": "005Wt000003NDqDIAW",
        "metadata": {"required": "secret policy", "optional": ""},
    },
    "org": {"path": "/orgs/sample.db", "digest": "d" * 64, "name": "sample"},
    "tasks_source": "Salesforce/CRMArena",
    "today": "2024-05-26",
    "mode": "aided",
    "session_id": "0123456789abcdef0123456789abcdef",
}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def make_recorder(tmp_path: Path, clock: FakeClock) -> Callable[..., Recorder]:
    """Create a recorder under tmp_path with frozen clocks; keyword overrides allowed."""

    def make(target: Path | None = None, **overrides: Any) -> Recorder:
        fields = {**HEADER, **overrides}
        fields.setdefault("wall", clock.wall)
        fields.setdefault("monotonic", clock.monotonic)
        return Recorder.create(target or tmp_path / "rec", **fields)

    return make


def play_sample(recorder: Recorder, clock: FakeClock) -> None:
    """A short human session touching most event types (deterministic)."""
    steps: list[tuple[float, str, dict[str, Any]]] = [
        (1.5, "open_object", {"object": "Case", "query": "SELECT Id, Subject FROM Case"}),
        (
            0.75,
            "sort",
            {
                "object": "Case",
                "field": "CreatedDate",
                "descending": True,
                "query": "SELECT Id, Subject FROM Case ORDER BY CreatedDate DESC",
            },
        ),
        (
            2.0,
            "filter",
            {
                "object": "Case",
                "field": "Subject",
                "op": "contains",
                "value": "O'Brien \\ 50%",
                "query": "SELECT Id, Subject FROM Case WHERE Subject LIKE '%O\\'Brien \\\\ 50\\%%'",
            },
        ),
        (1.0, "search", {"text": "crème brûlée", "query": "FIND {crème brûlée} IN ALL FIELDS"}),
        (
            0.5,
            "open_record",
            {
                "object": "Case",
                "id": "500000000000001",
                "query": "SELECT Id FROM Case WHERE Id = '500000000000001'",
            },
        ),
        (
            0.5,
            "follow_link",
            {
                "from_object": "Case",
                "from_id": "500000000000001",
                "field": "OwnerId",
                "to_object": "User",
                "to_id": "005000000000001",
                "query": "SELECT Id, Name FROM User WHERE Id = '005000000000001'",
            },
        ),
        (0.25, "back", {"query": "SELECT Id FROM Case WHERE Id = '500000000000001'"}),
        (0.25, "forward", {}),
        (
            3.0,
            "run_query",
            {
                "text": "SELECT COUNT() FROM Case",
                "kind": "soql",
                "rows": 0,
                "ms": 1.25,
                "error_code": None,
                "error": None,
            },
        ),
        (0.5, "pause", {}),
        (60.0, "resume", {}),
        (2.0, "answer_edit", {"text": "005000000000001"}),
        (0.0, "idle", {"seconds": 30}),
        (
            1.0,
            "submit",
            {
                "answer": "005000000000001",
                "reward": 1.0,
                "scoring": "strict",
                "gold": "005000000000001",
            },
        ),
    ]
    for delay, kind, payload in steps:
        clock.advance(delay)
        recorder.emit(kind, payload)
    clock.advance(0.125)
    recorder.close("submitted", reward=1.0)
