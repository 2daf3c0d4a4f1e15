"""What an annotator has already done: results per instance from their recordings.

One submission counts per instance: the first (by the wall time of its ``submit``). An
instance with a submission is done for good: the app opens it read-only, never as a new
attempt (:func:`first_submission` is the check it makes once it holds the instance's claim).
Recordings made before that rule may hold later submissions too; :attr:`InstanceStatus.submissions`
counts them, and the report flags them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from crmtui.value_class import FrozenValue


class InstanceStatus(FrozenValue):
    """Where an actor stands on one instance: the first submission, else the latest session.

    Attributes:
        idx: Instance idx.
        reward: Reward of the first submission, None if never submitted.
        finished: Whether that session has an ``end`` event.
        path: That session's recording.
        reason: Its ``end`` reason.
        submitted_at: Wall time of the submission (None: not submitted).
        submissions: Sessions on this instance with a submission (more than 1 only in
            recordings made before one submission was the rule).
        conversation_over: A dialogue that ended without a submission here but with an
            outcome (the person played the user, or the user's replies ran out): the
            instance is done, as a submission would make it.
    """

    FIELDS = (
        "idx",
        "reward",
        "finished",
        "path",
        "reason",
        "submitted_at",
        "submissions",
        "conversation_over",
    )

    idx: int
    reward: float | None
    finished: bool
    path: Path
    reason: str | None
    submitted_at: str | None
    submissions: int
    conversation_over: bool

    def __init__(
        self,
        idx: int,
        reward: float | None,
        finished: bool,
        path: Path,
        reason: str | None = None,
        submitted_at: str | None = None,
        submissions: int = 0,
        conversation_over: bool = False,
    ) -> None:
        self._set(
            idx=idx,
            reward=reward,
            finished=finished,
            path=path,
            reason=reason,
            submitted_at=submitted_at,
            submissions=submissions,
            conversation_over=conversation_over,
        )

    @property
    def submitted(self) -> bool:
        """Whether the instance has its (one counted) submission."""
        return self.submitted_at is not None

    @property
    def done(self) -> bool:
        """Whether the instance counts as done: submitted, or its conversation is over."""
        return self.submitted or self.conversation_over

    @property
    def label(self) -> str:
        """A short status for lists: ``✔ 1.00``, ``✘ 0.00``, ``unfinished``, or how an
        unsubmitted session ended (``abandoned``, ``quit``, ``time's up``)."""
        if self.reward is not None:
            return f"{'✔' if self.reward >= 1 else '✘'} {self.reward:.2f}"
        if self.submitted:
            return "unscored"
        if not self.finished:
            return "unfinished"
        if self.conversation_over:
            return "talked"
        return _ENDED.get(self.reason or "", "abandoned")


#: How a session that ended without an answer is shown, by its end reason.
_ENDED = {"quit": "quit", "time_limit": "time's up"}
#: End reasons of a dialogue with an outcome (the agent's end messages, which a person
#: playing the user records too): the conversation is over, not to be had again.
CONVERSATION_OUTCOMES = (
    "Submit action",
    "Max user turns reached",
    "User stopped before any response",
    "Max turns reached",
)


def conversation_ended(header: Mapping[str, Any], submitted: bool, reason: str | None) -> bool:
    """Whether a session (its recording's ``header``) is a dialogue that ended with an
    outcome and no submission of its own: done, as a submission would make it."""
    return (
        isinstance(header.get("dialogue"), dict)
        and not submitted
        and reason in CONVERSATION_OUTCOMES
    )


def conversation_over(
    directory: str | os.PathLike[str], actor_id: str, tasks_source: str | None, idx: int
) -> InstanceStatus | None:
    """The actor's dialogue on ``idx`` that ended with an outcome but no submission of
    theirs (they played the user, or the user's replies ran out), if there is one."""
    found = _pick(_statuses(Path(directory), f"*-idx{idx}-*.jsonl", actor_id, tasks_source))
    status = found.get(idx)
    return status if status is not None and status.conversation_over else None


def actor_progress(
    directory: str | os.PathLike[str], actor_id: str, tasks_source: str | None = None
) -> dict[int, InstanceStatus]:
    """Scan an actor's recordings: per instance its first submission, else its newest session.

    A quick read (header, submit and end lines only, no hash check); corrupt files are
    skipped here and reported by ``crmtui verify``.
    """
    return _pick(_statuses(Path(directory), "*.jsonl", actor_id, tasks_source))


def first_submission(
    directory: str | os.PathLike[str], actor_id: str, tasks_source: str | None, idx: int
) -> InstanceStatus | None:
    """The actor's counted (first) submission on instance ``idx``, if there is one.

    Reads only that instance's recordings (their names carry ``-idx<N>-``), so the app can
    check at the moment it opens an instance, after claiming it.
    """
    found = _pick(_statuses(Path(directory), f"*-idx{idx}-*.jsonl", actor_id, tasks_source))
    status = found.get(idx)
    return status if status is not None and status.submitted else None


def _statuses(
    root: Path, pattern: str, actor_id: str, tasks_source: str | None
) -> list[tuple[str, InstanceStatus]]:
    if not root.is_dir():
        return []
    found = []
    for path in root.rglob(pattern):
        status = _status(path, actor_id, tasks_source)
        if status is not None:
            found.append(status)
    return found


def _pick(found: Iterable[tuple[str, InstanceStatus]]) -> dict[int, InstanceStatus]:
    """Per instance: the first submission (counting the others), else the newest session."""
    by_idx: dict[int, list[tuple[str, InstanceStatus]]] = {}
    for started, item in found:
        by_idx.setdefault(item.idx, []).append((started, item))
    result: dict[int, InstanceStatus] = {}
    for idx, items in by_idx.items():
        submitted = [item for _, item in items if item.submitted]
        if submitted:
            first = min(submitted, key=lambda item: (item.submitted_at, str(item.path)))
            result[idx] = first.replaced(submissions=len(submitted))
        else:
            result[idx] = max(items, key=lambda pair: (pair[0], str(pair[1].path)))[1]
    return result


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
    submitted_at: str | None = None
    finished = False
    reason: str | None = None
    for line in lines[1:]:
        if '"type":"submit"' not in line and '"type":"end"' not in line:
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if event.get("type") == "submit" and submitted_at is None:
            reward = event.get("payload", {}).get("reward")
            submitted_at = str(event.get("t", ""))
        elif event.get("type") == "end":
            finished = True
            reason = event.get("payload", {}).get("reason")
    idx = header.get("instance", {}).get("idx")
    if not isinstance(idx, int):
        return None
    over = conversation_ended(header, submitted_at is not None, reason)
    return str(header.get("started_at", "")), InstanceStatus(
        idx, reward, finished, path, reason, submitted_at, int(submitted_at is not None), over
    )


class Tally(FrozenValue):
    """How an actor's work on a list of instances stands.

    Attributes:
        right: Submitted and right (exact match 1; knowledge questions F1 >= 0.5, the rule
            compare and report use).
        wrong: Submitted and not right.
        unfinished: Opened but never submitted (abandoned, quit, or crashed).
        untouched: Never opened.
        done_blind: Done where there is no outcome to show: a blind study's submission, or a
            conversation that ended with an outcome not scored here (the person played the
            user, or the user's replies ran out).
        scored: Whether this actor's work is scored at all (not a person playing the user):
            without, right and wrong are not counted aloud.
    """

    FIELDS = ("right", "wrong", "unfinished", "untouched", "done_blind", "scored")

    right: int
    wrong: int
    unfinished: int
    untouched: int
    done_blind: int
    scored: bool

    def __init__(
        self,
        right: int = 0,
        wrong: int = 0,
        unfinished: int = 0,
        untouched: int = 0,
        done_blind: int = 0,
        scored: bool = True,
    ) -> None:
        self._set(
            right=right,
            wrong=wrong,
            unfinished=unfinished,
            untouched=untouched,
            done_blind=done_blind,
            scored=scored,
        )

    def __str__(self) -> str:
        parts = []
        if self.right or self.wrong or (self.scored and not self.done_blind):
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
    *,
    scored: bool = True,
) -> Tally:
    """Count right, wrong, unfinished and untouched instances among ``instances``; those in
    ``hidden`` (a blind study), and conversations over without a submission here, count as
    done, never as right or wrong. ``scored=False``: a person playing the user."""
    counts = {"right": 0, "wrong": 0, "unfinished": 0, "untouched": 0, "done_blind": 0}
    for inst in instances:
        item = status.get(inst.idx)
        if item is None:
            counts["untouched"] += 1
        elif not item.done:
            counts["unfinished"] += 1
        elif inst.idx in hidden or not item.submitted:
            counts["done_blind"] += 1
        elif _is_right(item.reward, inst.reward_metric):
            counts["right"] += 1
        else:
            counts["wrong"] += 1
    return Tally(**counts, scored=scored)
