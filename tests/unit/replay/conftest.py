"""Fixtures for replay tests: frozen clocks, a recorder factory and one real small org."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from crmtui.record import Recorder

START = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)


class Clocks:
    """A wall clock and a monotonic clock that move only when told to."""

    def __init__(self) -> None:
        self.now = START
        self.mono = 500.0

    def advance(self, seconds: float) -> None:
        self.now += dt.timedelta(seconds=seconds)
        self.mono += seconds

    def wall(self) -> dt.datetime:
        return self.now

    def monotonic(self) -> float:
        return self.mono


INSTANCE = {
    "idx": 3,
    "task": "handle_time",
    "query": "Who is fastest?",
    "reward_metric": "exact_match",
}
ORG = {"path": "/nowhere/sample.db", "digest": "d" * 64, "name": "nowhere-org"}


@pytest.fixture
def clocks() -> Clocks:
    return Clocks()


@pytest.fixture
def make_recording(tmp_path: Path, clocks: Clocks) -> Callable[..., Recorder]:
    """A recorder under tmp with frozen clocks; ``actor``/``org``/... may be overridden."""

    def make(name: str = "rec.jsonl", **overrides: Any) -> Recorder:
        fields: dict[str, Any] = {
            "actor": {"kind": "human", "id": "ann"},
            "instance": INSTANCE,
            "org": ORG,
            "tasks_source": "sample",
            "today": "2024-05-26",
            "session_id": "feedfacefeedfacefeedfacefeedface",
            "wall": clocks.wall,
            "monotonic": clocks.monotonic,
            "fsync": False,
        }
        fields.update(overrides)
        return Recorder.create(tmp_path / name, **fields)

    return make


@pytest.fixture(scope="session")
def org_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small sample org (seed 7) with its tasks, built once for these tests."""
    from crmtui.org.build import build_org

    out = tmp_path_factory.mktemp("replay-org") / "replay-sample.db"
    build_org(out, seed=7, scale="small", name="replay-sample")
    return out


@pytest.fixture(scope="session")
def org(org_path: Path) -> Any:
    from crmtui.org.store import Org

    return Org.open(org_path)
