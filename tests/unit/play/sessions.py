"""What the play-session tests share: a hand-moved clock, a fixed wall, one-instance sessions."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from crmtui.data.instances import Instance
from crmtui.play.session import PlaySession

#: The org a recording names (the session tests never open it).
ORG = {"path": "/tmp/org.db", "digest": "d" * 64, "name": "sample"}


class Clock:
    """A monotonic clock the test moves by setting ``now``."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def wall() -> dt.datetime:
    """A wall clock stopped at 2026-01-01 UTC."""
    return dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def instance(idx: int, task: str, query: str, answer: Any, optional: str = "") -> Instance:
    """An exact-match instance dated 2024-03-01."""
    return Instance.from_row(
        {
            "idx": idx,
            "task": task,
            "query": query,
            "answer": answer,
            "metadata": {"required": "- Today's date: 2024-03-01", "optional": optional},
            "reward_metric": "exact_match",
        }
    )


def begin(tmp_path: Path, clock: Clock, inst: Instance) -> PlaySession:
    """A new session on ``inst`` by annotator "ann", recorded under ``tmp_path``."""
    return PlaySession.begin(
        inst,
        ORG,
        actor={"kind": "human", "id": "ann"},
        tasks_source="sample",
        recordings=tmp_path,
        clock=clock,
        wall=wall,
        fsync=False,
    )
