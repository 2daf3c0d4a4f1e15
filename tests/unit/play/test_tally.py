"""The picker's summary line (crmtui.play.progress.tally): what counts as done, right, wrong.

A conversation that ended with an outcome but no submission here (the person played the
user, or the user's replies ran out) is done, not unfinished; a person playing the user is
not scored, so their line never says right or wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from crmtui.play.progress import InstanceStatus, tally


@dataclass
class _Instance:
    idx: int
    reward_metric: str = "exact_match"


def _status(idx: int, **kwargs: object) -> InstanceStatus:
    base: dict[str, object] = {
        "reward": None,
        "finished": True,
        "path": Path(f"{idx}.jsonl"),
        "reason": None,
        "submitted_at": None,
        "submissions": 0,
    }
    base.update(kwargs)
    return InstanceStatus(idx, **base)  # type: ignore[arg-type]


RIGHT = _status(0, reward=1.0, submitted_at="2026-01-01T00:00:00Z", submissions=1)
WRONG = _status(1, reward=0.0, submitted_at="2026-01-01T00:00:00Z", submissions=1)
TALKED = _status(2, reason="User ended the conversation", conversation_over=True)
QUIT = _status(3, finished=False, reason="quit")
INSTANCES = [_Instance(i) for i in range(5)]


def test_a_conversation_over_is_done_not_unfinished() -> None:
    counts = tally(INSTANCES, {s.idx: s for s in (RIGHT, WRONG, TALKED, QUIT)})
    assert (counts.right, counts.wrong, counts.done_blind) == (1, 1, 1)
    assert (counts.unfinished, counts.untouched) == (1, 1)
    assert str(counts) == "1 right · 1 wrong · 1 done · 1 unfinished · 1 not started"


def test_a_person_playing_the_user_is_never_told_right_or_wrong() -> None:
    assert str(tally(INSTANCES, {}, scored=False)) == "0 unfinished · 5 not started"
    counts = tally(INSTANCES, {2: TALKED, 3: QUIT}, scored=False)
    assert str(counts) == "1 done · 1 unfinished · 3 not started"
    # Scored, with nothing done yet: right and wrong are counted aloud, from zero.
    assert str(tally(INSTANCES, {})) == "0 right · 0 wrong · 0 unfinished · 5 not started"
