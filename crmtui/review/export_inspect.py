"""``crmtui export --format inspect``: recordings as Inspect AI eval logs.

One log per actor and setting (each annotator, each model + strategy; the task source,
the mode and, for dialogues, who played each side), written with ``inspect_ai``'s own types
and writer, so ``inspect view`` lists and opens them and ``inspect_ai.log.read_eval_log``
and ``inspect_ai.analysis.samples_df`` read them. People and models sit side by side in
one folder, a log each, as Inspect keeps a human baseline (its ``human_agent``) beside
model runs.

* A sample is an instance (``id`` = idx); an actor's repeated sessions of an instance are
  its epochs, oldest first. ``input`` is the task text, ``target`` the gold answer revealed
  at the submit (``"None"`` for a None gold, the JSON list for CRMArena-Pro's list gold;
  empty when nothing was submitted).
* ``scores["crmtui"]``: value = the reward (token F1 for fuzzy tasks), answer = the
  submitted answer, explanation = how it was scored (``exact_match: head_rules, ...``),
  metadata = metric, method, what scored it (extractor, judge) and whether it is right and
  counted by ``crmtui report``.
* ``messages`` and ``events``: :mod:`crmtui.review.inspect_events`.
* ``started_at``/``completed_at``: the recording's wall times; ``total_time``: wall
  seconds; ``working_time``: active seconds (pauses and idle removed); ``model_usage``:
  tokens and cost of a model's calls.
* ``metadata``: the session's numbers as ``crmtui export --format jsonl`` has them
  (counted, session id, path, queries, records viewed, times in ms, dialogue...).
* A session a harness or model error ended carries ``error``; it is never scored wrong.

``inspect_ai`` is an optional extra (``pip install -e '.[inspect]'``): its dependencies
are many, and one of them (tenacity) changes litellm's retry path in crmtui's own tests.
"""

from __future__ import annotations

import hashlib
import re
import statistics
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from crmtui import __version__
from crmtui.errors import ConfigError
from crmtui.record.verify import Recording
from crmtui.review.report import ERROR_ENDS, scoring_label
from crmtui.review.summary import SessionSummary, is_right
from crmtui.scoring.rules import gold_text

#: The command that installs what this export needs.
INSTALL = "pip install -e '.[inspect]'"
SCORER = "crmtui"


def require_inspect() -> None:
    """Raise a one-line error naming the install command when inspect_ai is missing.

    Raises:
        ConfigError: ``inspect_ai`` cannot be imported.
    """
    try:
        import inspect_ai.log  # noqa: F401
    except ImportError as exc:
        raise ConfigError(
            f"--format inspect needs the inspect_ai package; install it with: {INSTALL}"
        ) from exc


def setting_of(recording: Recording, summary: SessionSummary) -> str:
    """The setting a session belongs to: task source, mode, and a dialogue's pairing."""
    header = recording.header
    parts = [str(header.get("tasks_source") or "tasks")]
    if header.get("mode") not in (None, "default"):
        parts.append(str(header["mode"]))
    if summary.dialogue is not None:
        parts.append(f"multi-turn {summary.dialogue.spec.pairing}")
    return " ".join(parts)


def model_name(summary: SessionSummary) -> str:
    """The log's model: the model id, or ``human/NAME`` for a person."""
    if summary.actor_kind == "human":
        return f"human/{summary.actor_id}"
    return summary.actor_id if "/" in summary.actor_id else f"model/{summary.actor_id}"


def _id(*parts: str) -> str:
    """A stable 22-character id (Inspect's ids are that long): exports are reproducible."""
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:22]


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "log"


#: A session's export row (:func:`crmtui.review.export.session_row`), given by the caller
#: (export imports this module; importing it back would be a cycle).
RowOf = Callable[[Recording, SessionSummary, bool], dict[str, Any]]


def _sample(
    recording: Recording, summary: SessionSummary, epoch: int, counted: bool, row_of: RowOf
) -> Any:
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.model import ChatMessageAssistant, ModelOutput, ModelUsage
    from inspect_ai.scorer import Score

    from crmtui.review.inspect_events import timestamp, transcript

    name = model_name(summary)
    steps = transcript(recording, name)
    row = row_of(recording, summary, counted)
    metadata = {
        key: value
        for key, value in row.items()
        if key not in ("events", "header", "query", "gold", "answer")
    }
    metadata["path"] = str(recording.path)
    right = is_right(summary.reward, summary.reward_metric)
    scores = None
    if summary.submitted and summary.reward is not None:
        scores = {
            SCORER: Score(
                value=float(summary.reward),
                answer=summary.answer,
                explanation=scoring_label(summary),
                metadata={
                    "metric": summary.reward_metric,
                    "scoring": summary.scoring,
                    "scored_by": summary.scored_by,
                    "right": right,
                    "counted": counted,
                },
            )
        }
    output = ModelOutput(model=name)
    if summary.submitted:
        output = ModelOutput.from_content(name, summary.answer or "")
        output.choices[0].message = ChatMessageAssistant(
            id=f"{summary.session_id[:12]}-output", content=summary.answer or "", model=name
        )
    usage = {}
    if summary.model_calls:
        usage[name] = ModelUsage(
            input_tokens=summary.prompt_tokens,
            output_tokens=summary.completion_tokens,
            total_tokens=summary.tokens,
            total_cost=summary.cost,
        )
    events = recording.events
    completed = summary.submitted_at or (events[-1].t if events else summary.started_at)
    error = None
    if summary.end_reason in ERROR_ENDS:
        error = EvalError(message=summary.end_reason, traceback="", traceback_ansi="")
    return EvalSample(
        id=summary.idx,
        epoch=epoch,
        input=recording.header["instance"]["query"],
        target=gold_text(summary.gold) if summary.submitted else "",
        messages=steps.messages,
        output=output,
        scores=scores,
        metadata=metadata,
        events=steps.events,
        model_usage=usage,
        started_at=timestamp(summary.started_at),
        completed_at=timestamp(completed),
        total_time=None if summary.wall_ms is None else summary.wall_ms / 1000,
        working_time=summary.active_seconds,
        uuid=summary.session_id,
        error=error,
    )


def _log(
    key: tuple[str, str, str | None, str],
    members: list[tuple[Recording, SessionSummary, bool]],
    row_of: RowOf,
) -> Any:
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalMetric,
        EvalPlan,
        EvalPlanStep,
        EvalResults,
        EvalScore,
        EvalSpec,
        EvalStats,
    )

    from crmtui.review.inspect_events import timestamp

    kind, actor_id, strategy, setting = key
    members.sort(key=lambda m: (m[1].idx, m[1].started_at, m[1].session_id))
    epochs: dict[int, int] = defaultdict(int)
    samples = []
    for recording, summary, counted in members:
        epochs[summary.idx] += 1
        samples.append(_sample(recording, summary, epochs[summary.idx], counted, row_of))
    first = members[0][1]
    name = model_name(first)
    sessions = [m[1] for m in members]
    eval_id = _id(kind, actor_id, strategy or "", setting, *sorted(s.session_id for s in sessions))
    created = min(s.started_at for s in sessions)
    completed = max((s.completed_at for s in samples if s.completed_at), default=created)
    counted_rewards = [
        float(s.reward) for s, (_, _, c) in zip(sessions, members, strict=True)
        if c and s.reward is not None
    ]  # fmt: skip
    verdicts = [
        v for s, (_, _, c) in zip(sessions, members, strict=True)
        if c and (v := is_right(s.reward, s.reward_metric)) is not None
    ]  # fmt: skip
    metrics = {}
    if counted_rewards:
        metrics["mean"] = EvalMetric(name="mean", value=statistics.fmean(counted_rewards))
    if verdicts:
        metrics["right"] = EvalMetric(name="right", value=sum(verdicts) / len(verdicts))
    scored = sum(1 for s in samples if s.scores)
    usage: dict[str, Any] = {}
    for sample in samples:
        for model, used in sample.model_usage.items():
            usage[model] = usage[model] + used if model in usage else used
    task = f"crmarena {setting}"
    solver = strategy or kind  # a model's strategy; "human" for a person
    return EvalLog(
        version=2,
        status="success",
        eval=EvalSpec(
            eval_id=eval_id,
            run_id=_id("run", eval_id),
            created=timestamp(created),
            task=task,
            task_id=_id("task", setting, kind, actor_id, strategy or ""),  # one per log: the
            # viewer folds logs sharing a task id into one row (as retries of one run)
            task_display_name=f"{task}: {first.actor_label}",
            solver=solver,
            tags=[kind, setting],
            dataset=EvalDataset(
                name=setting,
                samples=len(epochs),
                sample_ids=sorted(epochs),
            ),
            model=name,
            config=EvalConfig(epochs=max(epochs.values())),
            packages={"crmtui": __version__},
            metadata={
                "crmtui": {
                    "actor": {"kind": kind, "id": actor_id, "strategy": strategy},
                    "actor_label": first.actor_label,
                    "setting": setting,
                    "exported_by": f"crmtui {__version__}",
                }
            },
        ),
        plan=EvalPlan(steps=[EvalPlanStep(solver=solver)]),
        results=EvalResults(
            total_samples=len(samples),
            completed_samples=sum(1 for s in samples if s.error is None),
            scores=[
                EvalScore(
                    name=SCORER,
                    scorer=SCORER,
                    scored_samples=scored,
                    unscored_samples=len(samples) - scored,
                    metrics=metrics,
                    metadata={
                        "mean": "mean reward of the sessions crmtui report counts",
                        "right": "share right (reward 1; fuzzy match: F1 >= 0.5) of those",
                    },
                )
            ],
        ),
        stats=EvalStats(started_at=timestamp(created), completed_at=completed, model_usage=usage),
        samples=samples,
    )


def write_inspect_logs(
    loaded: Sequence[tuple[Recording, SessionSummary]],
    counted: set[Path],
    folder: Path,
    row_of: RowOf,
) -> list[Path]:
    """Write one ``.eval`` log per actor and setting into ``folder``.

    Args:
        loaded: Verified recordings with their summaries.
        counted: Files of the sessions the report counts.
        folder: Where the logs go (created).
        row_of: A session's export row, kept as the sample's metadata.

    Returns:
        The files written, sorted.

    Raises:
        ConfigError: ``inspect_ai`` is missing, or the folder cannot be written.
    """
    require_inspect()
    from inspect_ai.log import write_eval_log

    from crmtui.review.inspect_events import timestamp

    groups: dict[tuple[str, str, str | None, str], list[tuple[Recording, SessionSummary, bool]]]
    groups = defaultdict(list)
    for recording, summary in loaded:
        key = (
            summary.actor_kind,
            summary.actor_id,
            summary.strategy,
            setting_of(recording, summary),
        )
        groups[key].append((recording, summary, summary.path in counted))
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot write {folder}: {exc.strerror}") from exc
    written = []
    for key in sorted(groups, key=lambda k: (k[0] != "human", k[1], k[2] or "", k[3])):
        log = _log(key, groups[key], row_of)
        created = min(s.started_at for _, s, _ in groups[key])
        stamp = timestamp(created).strftime("%Y-%m-%dT%H-%M-%S+00-00")
        actor = _slug(groups[key][0][1].actor_label)
        path = folder / f"{stamp}_{_slug(log.eval.task)}-{actor}_{log.eval.eval_id}.eval"
        try:
            write_eval_log(log, str(path), format="eval")
        except OSError as exc:
            raise ConfigError(f"cannot write {path}: {exc.strerror}") from exc
        written.append(path)
    return sorted(written)
