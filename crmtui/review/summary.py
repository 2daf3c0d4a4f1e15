"""One session's summary numbers: outcome, active time, queries, records, tokens, cost.

Times follow :mod:`crmtui.record.timing`, the one time model: the clock stops at the submit;
active time is the elapsed time minus pauses and the idle part of long gaps; away time (the
terminal without focus) is shown beside it; wall time is everything from start to stop.
Records and objects come from the trajectory (:func:`crmtui.review.trajectory.extract_steps`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crmtui.data.tasktypes import abbreviation
from crmtui.record import events as ev
from crmtui.record.timing import session_times
from crmtui.record.verify import Recording
from crmtui.review.dialogue_stats import DialogueStats, dialogue_stats
from crmtui.review.instance_key import InstanceKey, instance_key, instance_place
from crmtui.review.trajectory import ResultIds, Step, extract_steps
from crmtui.scoring.rules import FUZZY_RIGHT_F1, is_right

__all__ = ["FUZZY_RIGHT_F1", "SessionSummary", "actor_label", "is_right", "summarize"]


@dataclass(frozen=True)
class SessionSummary:
    """The numbers of one session that reports and comparisons show.

    Attributes:
        path: The recording file.
        session_id: The header's session id.
        actor_kind: ``"human"`` or ``"model"``.
        actor_id: Annotator name or model id.
        strategy: The model's strategy (None for humans).
        idx: Instance idx.
        task: Task code (``handle_time``...).
        reward_metric: ``exact_match`` / ``fuzzy_match`` / ...
        started_at: Header start time (ISO UTC).
        finished: Whether the session has an ``end`` event.
        submitted: Whether it has a ``submit`` event.
        answer: The submitted answer (the first submit: a session submits once).
        gold: The gold answer revealed at submit.
        reward: The recorded reward (F1 for fuzzy tasks); None if unscored.
        scoring: The scoring method named at submit.
        end_reason: The ``end`` event's reason.
        elapsed_ms: ``ms`` of the submit (the clock stops there), else of the last event.
        paused_ms: Time between ``pause`` and the next ``resume`` (or the stop).
        idle_ms: The idle part of long gaps before the stop (beyond the idle threshold).
        active_ms: ``elapsed_ms - paused_ms - idle_ms`` (never negative).
        away_ms: Time the terminal had no focus while the clock ran (not subtracted).
        wall_ms: Wall-clock time from the start to the stop (None: unknown).
        submitted_at: Wall time of the submit (None: not submitted).
        queries: Steps with a query: typed queries plus browse actions (each browse action
            stands for the query a model would have run).
        typed_queries: ``run_query`` events only.
        query_errors: Typed queries that failed.
        browse_actions: Browse events.
        records: Record Ids touched (see module docs).
        objects: sObjects touched.
        model_calls: Number of ``model_call`` events.
        prompt_tokens: Their prompt tokens.
        completion_tokens: Their completion tokens.
        cost: Sum of their costs; None without calls or if any call's cost is unknown.
        org_path: The org path from the header.
        org_digest: The org digest from the header.
        scratch_steps: A human's scratch steps: values opened whole, copies, computes and
            notes edits (:data:`crmtui.record.events.SCRATCH_TYPES`).
        scored_by: What produced the reward (metric, method, extractor, judge), as the
            ``submit`` recorded it; None for recordings made before it was recorded.
        score_details: The ``submit`` event's details (what was compared, extracted or
            judged), for recomputing the reward.
        dialogue: A dialogue's numbers (the multi-turn mode); None for a single-turn session.
    """

    path: Path
    session_id: str
    actor_kind: str
    actor_id: str
    strategy: str | None
    idx: int
    task: str
    reward_metric: str
    started_at: str
    finished: bool
    submitted: bool
    answer: str | None
    gold: Any
    reward: float | None
    scoring: str | None
    end_reason: str | None
    elapsed_ms: int
    paused_ms: int
    idle_ms: int
    active_ms: int
    queries: int
    typed_queries: int
    query_errors: int
    browse_actions: int
    records: frozenset[str]
    objects: frozenset[str]
    model_calls: int
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    org_path: str | None
    org_digest: str | None
    away_ms: int = 0
    scratch_steps: int = 0
    scored_by: dict[str, Any] | None = None
    score_details: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    dialogue: DialogueStats | None = field(default=None, compare=False, repr=False)
    wall_ms: int | None = None
    submitted_at: str | None = None
    #: The instance: idx, task and question (None: built by hand, keyed by idx and task).
    instance: InstanceKey | None = field(default=None, compare=False)
    #: The org and task source it was played on and from (:func:`instance_place`).
    place: tuple[str, str] | None = field(default=None, compare=False)

    @property
    def instance_key(self) -> InstanceKey:
        """Which instance this session is of (see :mod:`crmtui.review.instance_key`)."""
        if self.instance is not None:
            return self.instance
        return InstanceKey(self.idx, self.task, "")

    @property
    def actor_label(self) -> str:
        """``alice`` for a human, ``gpt-4o (react)`` for a model and its strategy."""
        return actor_label(self.actor_kind, self.actor_id, self.strategy)

    @property
    def abbreviation(self) -> str:
        """Leaderboard abbreviation of the task (``HTU``)."""
        return abbreviation(self.task)

    @property
    def tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    @property
    def records_viewed(self) -> int:
        """Distinct record Ids the session touched: opened or named in its steps, plus (when
        the trajectory was built with a re-runner, as ``crmtui compare`` does) the rows its
        queries returned. ``crmtui export`` and ``report`` use the recording alone."""
        return len(self.records)

    @property
    def active_seconds(self) -> float:
        """Active time in seconds."""
        return self.active_ms / 1000

    @property
    def away_seconds(self) -> float:
        """Time away from the terminal in seconds (not subtracted from active time)."""
        return self.away_ms / 1000

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "path": str(self.path),
            "session_id": self.session_id,
            "actor": {"kind": self.actor_kind, "id": self.actor_id, "strategy": self.strategy},
            "actor_label": self.actor_label,
            "idx": self.idx,
            "task": self.task,
            "abbreviation": self.abbreviation,
            "reward_metric": self.reward_metric,
            "started_at": self.started_at,
            "finished": self.finished,
            "submitted": self.submitted,
            "answer": self.answer,
            "gold": self.gold,
            "reward": self.reward,
            "scoring": self.scoring,
            "end_reason": self.end_reason,
            "elapsed_ms": self.elapsed_ms,
            "paused_ms": self.paused_ms,
            "idle_ms": self.idle_ms,
            "active_ms": self.active_ms,
            "away_ms": self.away_ms,
            "wall_ms": self.wall_ms,
            "submitted_at": self.submitted_at,
            "queries": self.queries,
            "typed_queries": self.typed_queries,
            "query_errors": self.query_errors,
            "browse_actions": self.browse_actions,
            "records_viewed": self.records_viewed,
            "records": sorted(self.records),
            "objects": sorted(self.objects),
            "model_calls": self.model_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "tokens": self.tokens,
            "cost": self.cost,
            "org_path": self.org_path,
            "org_digest": self.org_digest,
            "scratch_steps": self.scratch_steps,
            "scored_by": self.scored_by,
            "dialogue": None if self.dialogue is None else self.dialogue.to_dict(),
        }


def actor_label(kind: str, actor_id: str, strategy: str | None) -> str:
    """How an actor is named in tables: the id, plus ``(strategy)`` for models."""
    return f"{actor_id} ({strategy})" if kind == "model" and strategy else actor_id


def summarize(
    recording: Recording, steps: list[Step] | None = None, result_ids: ResultIds | None = None
) -> SessionSummary:
    """Summarize one session (``steps`` may be passed in when already extracted)."""
    if steps is None:
        steps = extract_steps(recording, result_ids)
    header = recording.header
    actor = header["actor"]
    instance = header["instance"]
    submit = recording.submit
    end = recording.end
    times = session_times(recording.events, started_at=header["started_at"])
    calls = recording.of_type(ev.MODEL_CALL)
    costs = [event.payload["cost"] for event in calls]
    records: set[str] = set()
    objects: set[str] = set()
    for step in steps:
        records |= step.records
        objects |= step.objects
    return SessionSummary(
        path=recording.path,
        session_id=header["session_id"],
        actor_kind=actor["kind"],
        actor_id=actor["id"],
        strategy=actor.get("strategy"),
        idx=instance["idx"],
        task=instance["task"],
        reward_metric=instance["reward_metric"],
        started_at=header["started_at"],
        finished=end is not None,
        submitted=submit is not None,
        answer=submit.payload["answer"] if submit else None,
        gold=submit.payload["gold"] if submit else None,
        reward=submit.payload["reward"] if submit else None,
        scoring=submit.payload["scoring"] if submit else None,
        end_reason=end.payload["reason"] if end else None,
        elapsed_ms=times.elapsed_ms,
        paused_ms=times.paused_ms,
        idle_ms=times.idle_ms,
        active_ms=times.active_ms,
        away_ms=times.away_ms,
        wall_ms=times.wall_ms,
        submitted_at=submit.t if submit else None,
        # A compute reads rows through a query too, but it is scratch work, not a query.
        queries=sum(1 for step in steps if step.query and step.kind != ev.COMPUTE),
        typed_queries=sum(1 for step in steps if step.kind == ev.RUN_QUERY),
        query_errors=sum(1 for step in steps if step.error_code),
        browse_actions=sum(1 for step in steps if step.kind in ev.BROWSE_TYPES),
        records=frozenset(records),
        objects=frozenset(objects),
        model_calls=len(calls),
        prompt_tokens=sum(int(event.payload["prompt_tokens"]) for event in calls),
        completion_tokens=sum(int(event.payload["completion_tokens"]) for event in calls),
        # No calls (a human) or any call of unknown price: the cost is unknown, not 0.
        cost=None if not costs or any(c is None for c in costs) else float(sum(costs)),
        org_path=header["org"].get("path"),
        org_digest=header["org"].get("digest"),
        scratch_steps=sum(1 for step in steps if step.kind in ev.SCRATCH_TYPES),
        scored_by=_scored_by(submit.payload if submit else None),
        score_details=_details(submit.payload if submit else None),
        dialogue=dialogue_stats(recording),
        instance=instance_key(header),
        place=instance_place(header),
    )


def _details(submit: dict[str, Any] | None) -> dict[str, Any] | None:
    details = (submit or {}).get("details")
    return dict(details) if isinstance(details, dict) else None


def _scored_by(submit: dict[str, Any] | None) -> dict[str, Any] | None:
    details = (submit or {}).get("details")
    found = details.get("scored_by") if isinstance(details, dict) else None
    return dict(found) if isinstance(found, dict) else None
