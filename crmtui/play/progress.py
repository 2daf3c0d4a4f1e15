"""What an annotator has already done: results per instance from their recordings."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class InstanceStatus:
    """The latest outcome of an actor's sessions on one instance.

    Attributes:
        idx: Instance idx.
        reward: Reward of the latest submission, None if never submitted.
        finished: Whether the latest session has an ``end`` event.
        path: The latest session's recording.
    """

    idx: int
    reward: float | None
    finished: bool
    path: Path
    reason: str | None = None

    @property
    def label(self) -> str:
        """A short status for lists: ``✔ 1.00``, ``✘ 0.00``, ``unfinished``, or how an
        unsubmitted session ended (``abandoned``, ``quit``, ``time's up``)."""
        if self.reward is not None:
            return f"{'✔' if self.reward >= 1 else '✘'} {self.reward:.2f}"
        if not self.finished:
            return "unfinished"
        return _ENDED.get(self.reason or "", "abandoned")


#: How a session that ended without an answer is shown, by its end reason.
_ENDED = {"quit": "quit", "time_limit": "time's up"}


def actor_progress(
    directory: str | os.PathLike[str], actor_id: str, tasks_source: str | None = None
) -> dict[int, InstanceStatus]:
    """Scan an actor's recordings; the newest session per instance wins.

    A quick read (header, submit and end lines only, no hash check); corrupt files are
    skipped here and reported by ``crmtui verify``.
    """
    root = Path(directory)
    if not root.is_dir():
        return {}
    found: dict[int, tuple[str, InstanceStatus]] = {}
    for path in root.rglob("*.jsonl"):
        status = _status(path, actor_id, tasks_source)
        if status is None:
            continue
        started, item = status
        if item.idx not in found or started >= found[item.idx][0]:
            found[item.idx] = (started, item)
    return {idx: item for idx, (_, item) in found.items()}


def _status(
    path: Path, actor_id: str, tasks_source: str | None
) -> tuple[str, InstanceStatus] | None:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
        header = json.loads(lines[0])
    except (OSError, UnicodeDecodeError, IndexError, json.JSONDecodeError):
        return None
    if not isinstance(header, dict) or header.get("kind") != "header":
        return None
    if header.get("actor", {}).get("id") != actor_id:
        return None
    if tasks_source is not None and header.get("tasks_source") != tasks_source:
        return None
    reward: float | None = None
    finished = False
    reason: str | None = None
    for line in lines[1:]:
        if '"type":"submit"' not in line and '"type":"end"' not in line:
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if event.get("type") == "submit":
            reward = event.get("payload", {}).get("reward")
        elif event.get("type") == "end":
            finished = True
            reason = event.get("payload", {}).get("reason")
    idx = header.get("instance", {}).get("idx")
    if not isinstance(idx, int):
        return None
    return str(header.get("started_at", "")), InstanceStatus(idx, reward, finished, path, reason)


@dataclass(frozen=True)
class Tally:
    """How an actor's work on a list of instances stands.

    Attributes:
        right: Submitted and right (exact match 1; knowledge questions F1 >= 0.5, the rule
            compare and report use).
        wrong: Submitted and not right.
        unfinished: Opened but never submitted (abandoned, quit, or crashed).
        untouched: Never opened.
        done_blind: Submitted where the outcome must not be shown (a blind study).
    """

    right: int = 0
    wrong: int = 0
    unfinished: int = 0
    untouched: int = 0
    done_blind: int = 0

    def __str__(self) -> str:
        parts = []
        if self.right or self.wrong or not self.done_blind:
            parts += [f"{self.right} right", f"{self.wrong} wrong"]
        if self.done_blind:
            parts.append(f"{self.done_blind} done")
        parts += [f"{self.unfinished} unfinished", f"{self.untouched} not started"]
        return " · ".join(parts)


def _is_right(reward: float, reward_metric: str) -> bool | None:
    # Scoring is imported for the first scored attempt only: a picker with none (every
    # first start) draws without it (~5 ms of a cold start).
    from crmtui.scoring.rules import is_right

    return is_right(reward, reward_metric)


def tally(
    instances: Iterable[Any],
    status: Mapping[int, InstanceStatus],
    hidden: frozenset[int] = frozenset(),
) -> Tally:
    """Count right, wrong, unfinished and untouched instances among ``instances``; those in
    ``hidden`` (a blind study) count as done, never as right or wrong."""
    counts = {"right": 0, "wrong": 0, "unfinished": 0, "untouched": 0, "done_blind": 0}
    for inst in instances:
        item = status.get(inst.idx)
        if item is None:
            counts["untouched"] += 1
        elif item.reward is None:
            counts["unfinished"] += 1
        elif inst.idx in hidden:
            counts["done_blind"] += 1
        elif _is_right(item.reward, inst.reward_metric):
            counts["right"] += 1
        else:
            counts["wrong"] += 1
    return Tally(**counts)
