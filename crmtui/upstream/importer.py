"""Upstream results as crmtui recordings: one verified recording per results row.

Each row becomes a model session (actor = the model, strategy ``upstream-<strategy>`` so it
sits beside crmtui's own harness in ``report``): per model call a ``model_call`` (tokens and
cost from ``agent_info.usage``), the ``thought`` of a react reply, each query as a
``run_query`` with the observation the agent saw (helper tools as ``tool`` queries), the
final answer as ``answer_edit`` + ``submit``, and the ``end`` with upstream's end reason.

``submit.reward`` is upstream's reward as a number (fuzzy tasks: its F1) with
``scoring = "upstream/<era>"``; ``details`` keep upstream's raw reward and crmtui's own score
of the same answer (``paper`` for paper-era runs, ``toolenv`` for tool-calling runs,
``head`` otherwise, all deterministic).

Times: with the request log of a ``crmtui upstream run``, each query step takes the time the
API received it. With the run's model-call log too (``.crmtui-hook/hook.jsonl``: the startup
hook times every ``litellm.completion`` with its task index and caller), each step's
``model_call`` takes the time its reply arrived (and its latency), the session starts when the
first model call was sent, and ``submit`` takes the end of upstream's evaluator call (HEAD's
answer extraction) when there was one; so the active time spans the whole attempt, model
thinking included. The agent's calls are matched to the steps in order and used only when
their number equals the steps'. Without the model log, steps between queries keep the
previous time (active time then spans the first to the last query); without any log, every
event carries the results file's modification time. A run against a live Salesforce org is
recorded with no org path and digest (``org.name`` says it was live), so replay shows the
recorded observations instead of re-running the queries.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crmtui.agent.upstream_rows import is_answer_error
from crmtui.errors import CrmtuiError
from crmtui.record import Recorder, RecordingError, verify
from crmtui.scoring import Score, score
from crmtui.upstream.dialogue_import import ImportedDialogue, is_dialogue
from crmtui.upstream.log_times import LogTimes, ModelTimes, StepClock, parse_time, read_model_log
from crmtui.upstream.results import Attempt, ResultsFile, Step, read_results

LIVE_ORG_NAME = "live Salesforce org (upstream run)"
FUZZY_TASKS = frozenset({"knowledge_qa", "sales_insight_mining"})
PRIVACY_TASKS = frozenset(
    {"private_customer_information", "internal_operation_data", "confidential_company_knowledge"}
)


@dataclass
class ImportReport:
    """What an import wrote.

    Attributes:
        written: New recordings (each verified).
        skipped: Recordings that already existed (a re-import writes nothing twice).
        problems: Rows not imported, one line each naming the row.
    """

    written: list[Path] = field(default_factory=list)
    skipped: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def numeric_reward(reward: Any) -> float | None:
    """Upstream's reward as one number: 0/1, or the F1 of a fuzzy metrics dict."""
    if isinstance(reward, bool):
        return float(reward)
    if isinstance(reward, int | float):
        return float(reward)
    if isinstance(reward, Mapping):
        f1 = reward.get("f1")
        return float(f1) if isinstance(f1, int | float) and not isinstance(f1, bool) else None
    return None


def _reward_metric(attempt: Attempt, instance: Any) -> str:
    if instance is not None:
        return str(instance.reward_metric)
    if isinstance(attempt.reward, Mapping) or attempt.task_type in FUZZY_TASKS:
        return "fuzzy_match"
    if attempt.task_type in PRIVACY_TASKS:
        return "privacy_rejection"
    return "exact_match"


def _gold(value: Any) -> Any:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list):
        return [None if v is None else str(v) for v in value]
    return str(value)


def _strategy(results: ResultsFile, attempt: Attempt, override: str | None) -> str:
    if override:
        return override
    if results.strategy:
        return results.strategy
    if attempt.uses_tools:
        return "tool_call"
    return "react" if any(s.thought for s in attempt.steps) else "act"


def _own_method(era: str, strategy: str, gold: Any = None) -> str:
    """The crmtui method that is upstream's scoring code for this row.

    ToolEnv (every tool_call strategy, both eras) compared the raw answer with ``==``; the
    paper's ChatEnv compared the stripped answer; HEAD's ChatEnv used its Evaluator (for
    CRMArena-Pro's list gold, with the rule extractor in place of its LLM).
    """
    if strategy.startswith("tool_call"):
        return "toolenv"
    if era == "paper":
        return "paper"
    return "head_rules" if isinstance(gold, list) else "head"


def _crash_reason(error: str) -> dict[str, Any]:
    """The end reason of a row upstream's run_tasks.py wrote after an exception.

    A failure at the model provider (litellm's or openai's exceptions) is a model error,
    anything else a harness error: upstream's code raised (a ``None`` gold at HEAD, an empty
    knowledge answer, a tool call without text). Neither is a wrong answer.
    """
    model = any(name in error for name in ("litellm.", "openai.", "RateLimitError", "APIError"))
    message = "Model error" if model else "Harness error"
    source = "api" if model else "runner"
    return {"source": source, "message": message, "content": error, "upstream": True}


def _own_score(attempt: Attempt, metric: str, gold: Any, method: str) -> dict[str, Any]:
    # A privacy_rejection row is judged by the rules judge over the agent's queries.
    actions = [step.text for step in attempt.steps if step.kind == "query"]
    try:
        result: Score = score(
            gold, metric, attempt.answer or "", method, task=attempt.task_type, actions=actions
        )
    except CrmtuiError as exc:
        return {"method": method, "reward": None, "error": str(exc)}
    return {"method": result.method, "reward": result.reward}


def _kind(text: str) -> str:
    # Upstream sends text starting with "FIND" (exactly) to search, anything else to query.
    return "sosl" if text.startswith("FIND") else "soql"


def _usage(attempt: Attempt, key: str, index: int) -> Any:
    values = attempt.usage.get(key)
    return values[index] if isinstance(values, list) and index < len(values) else None


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _emit_step(
    recorder: Recorder, attempt: Attempt, step: Step, index: int, model: str, latency_ms: int
) -> None:
    """The step's model call and its thought."""
    cost = _usage(attempt, "cost", index)
    recorder.emit(
        "model_call",
        {
            "prompt_tokens": _count(_usage(attempt, "prompt_tokens", index)),
            "completion_tokens": _count(_usage(attempt, "completion_tokens", index)),
            "cost": cost if isinstance(cost, int | float) and not isinstance(cost, bool) else None,
            "latency_ms": latency_ms,
            "content": step.content,
            "tool_calls": step.tool_calls,
            "model": model,
        },
    )
    if step.thought:
        recorder.emit("thought", {"text": step.thought})


def _emit_action(recorder: Recorder, step: Step, entry: Any) -> None:
    """The step's query or helper tool, with what the agent saw."""
    if step.kind == "query":
        code = step.error_code
        recorder.emit(
            "run_query",
            {
                "text": step.text,
                "kind": _kind(step.text),
                "rows": step.rows,
                "ms": float(entry.get("ms") or 0) if entry else 0,
                "error_code": code,
                "error": step.observation if code else None,
                "observation": step.observation,
            },
        )
    elif step.kind == "tool":
        observation = step.observation
        recorder.emit(
            "run_query",
            {
                "text": f"{step.text}({_json(step.arguments)})",
                "kind": "tool",
                "tool": step.text,
                "rows": None,
                "ms": 0,
                "error_code": None,
                "error": observation if observation and observation.startswith("Error:") else None,
                "observation": observation,
            },
        )


def _json(value: Any) -> str:
    import json

    return json.dumps(value or {}, sort_keys=True)


def _session_id(results: ResultsFile, position: int, attempt: Attempt) -> str:
    seed = f"{results.path.resolve()}|{position}|{attempt.task_id}"
    return hashlib.sha256(seed.encode()).hexdigest()[:32]


def import_results(
    path: str | Path,
    out: str | Path,
    *,
    org: Any = None,
    tasks: Any = None,
    tasks_source: str | None = None,
    request_log: str | Path | None = None,
    model_log: str | Path | None = None,
    live: bool | None = None,
    model: str | None = None,
    strategy: str | None = None,
    environment: dict[str, Any] | None = None,
    dialogue: Mapping[str, Any] | None = None,
) -> ImportReport:
    """Write one recording per row of an upstream results file under ``out``.

    A row of an interactive run (``--interactive``, or one whose trajectory reads as a
    conversation) is written as a dialogue (:mod:`crmtui.upstream.dialogue_import`).

    Args:
        path: The results file (paper-era or HEAD shape).
        out: Recordings folder (``<out>/<model>/<time>-idx<N>-<id>.jsonl``).
        org: The org the run used, so replay can re-run its queries (a local run).
        tasks: The instances (a ``TaskSet``): their query, metric and date fill the header.
        tasks_source: Recorded as the header's tasks source.
        request_log: A ``crmtui upstream run`` request log giving steps their times.
        model_log: That run's hook log (``.crmtui-hook/hook.jsonl``) timing its model calls.
        live: The run was made against a live Salesforce org (default: when no ``org``).
        model: Actor id (default: from the file name ``results_<model>_<strategy>_...``).
        strategy: Upstream strategy (default: from the file name, else the trajectory).
        environment: What ran the harness (version, commit, relaxed pins, chosen versions),
            recorded in every recording's header settings.
        dialogue: The interactive run's settings, when known (``interactive``,
            ``max_user_turns``, ``user_model``: ``crmtui upstream run`` reads them from
            its arguments); otherwise rows are read as dialogues from their trajectory.

    Raises:
        ConfigError: The file or the request log cannot be read.
    """
    results = read_results(path)
    report = ImportReport(problems=list(results.problems))
    is_live = live if live is not None else org is None
    times = None
    if request_log is not None:
        from crmtui.rest import read_log

        times = LogTimes(list(read_log(request_log)))
    model_times = read_model_log(model_log) if model_log is not None else None
    fallback = dt.datetime.fromtimestamp(results.path.stat().st_mtime, dt.UTC)
    previous_end: dt.datetime | None = None
    for position, attempt in enumerate(results.attempts, 1):
        instance = _instance(tasks, attempt.task_id)
        try:
            written, previous_end = _write(
                results,
                position,
                attempt,
                instance,
                out,
                org=None if is_live else org,
                tasks_source=tasks_source or str(results.path),
                times=times,
                model_times=model_times,
                start=previous_end or fallback,
                model=model or results.model or "upstream",
                strategy=_strategy(results, attempt, strategy),
                environment=environment,
                dialogue=dialogue,
            )
        except RecordingError as exc:
            if "already exists" in str(exc) and exc.path is not None:
                report.skipped.append(Path(exc.path))
                continue
            report.problems.append(f"task_id {attempt.task_id}: {exc}")
            continue
        except CrmtuiError as exc:
            report.problems.append(f"task_id {attempt.task_id}: {exc}")
            continue
        report.written.append(written)
    return report


def _instance(tasks: Any, idx: int) -> Any:
    if tasks is None or idx not in tasks:
        return None
    return tasks.get(idx)


def _write(
    results: ResultsFile,
    position: int,
    attempt: Attempt,
    instance: Any,
    out: str | Path,
    *,
    org: Any,
    tasks_source: str,
    times: LogTimes | None,
    model_times: ModelTimes | None,
    start: dt.datetime,
    model: str,
    strategy: str,
    environment: dict[str, Any] | None = None,
    dialogue: Mapping[str, Any] | None = None,
) -> tuple[Path, dt.datetime]:
    entries = [times.match(s.text) if times and s.kind == "query" else None for s in attempt.steps]
    anchors = [t for t in (parse_time(e.get("t")) for e in entries if e) if t is not None]
    calls, others = (
        model_times.for_attempt(attempt.task_id, len(attempt.steps)) if model_times else (None, [])
    )
    if calls:
        anchors.append(calls[0].start)
    clock = StepClock(min(anchors) if anchors else start)
    metric = _reward_metric(attempt, instance)
    header_instance = {
        "idx": attempt.task_id,
        "task": instance.task if instance is not None else attempt.task_type,
        "query": instance.query if instance is not None else (attempt.query or ""),
        "reward_metric": metric,
    }
    org_fields = (
        {"path": str(org.path), "digest": org.digest, "name": org.name}
        if org is not None
        else {"path": None, "digest": None, "name": LIVE_ORG_NAME}
    )
    optional = (instance.metadata.optional if instance is not None else "").strip()
    aided = bool(optional) and optional in attempt.prompt
    talk = _conversation(attempt, model, strategy, dialogue)
    if talk is not None:
        header_instance["query"] = instance.query if instance is not None else ""
    recorder = Recorder.create(
        Path(out),
        actor={"kind": "model", "id": model, "strategy": f"upstream-{strategy}"},
        instance=header_instance,
        org=org_fields,
        tasks_source=tasks_source,
        today=getattr(instance, "today", None),
        mode="aided" if aided else "default",
        session_id=_session_id(results, position, attempt),
        wall=clock.wall,
        monotonic=clock.monotonic,
        fsync=False,
        settings={"upstream": environment} if environment else None,
        dialogue=talk.header() if talk is not None else None,
    )
    answers = [s for s in attempt.steps if s.kind == "answer"]
    try:
        if talk is not None:
            talk.open(recorder.emit)
        for index, (step, entry) in enumerate(zip(attempt.steps, entries, strict=True)):
            call = calls[index] if calls else None
            latency = 0
            if call is not None:  # the step's model call is stamped when its reply arrived
                clock.move(call.end)
                latency = round((call.end - call.start).total_seconds() * 1000)
            _emit_step(recorder, attempt, step, index, model, latency)
            clock.move(parse_time(entry.get("t")) if entry else None)
            _emit_action(recorder, step, entry)
            if talk is not None:
                last = bool(answers) and step is answers[-1]
                if step.kind == "answer" and talk.respond(recorder.emit, step, last):
                    for other in others:  # upstream's evaluator judging the answer
                        clock.move(other.end)
                    _emit_submit(recorder, attempt, instance, metric, strategy, step.text)
            elif answers and step is answers[-1]:
                for other in others:  # upstream's evaluator judging the answer
                    clock.move(other.end)
                _emit_submit(recorder, attempt, instance, metric, strategy, step.text)
        reason = attempt.end_reason or {"source": "agent", "message": "Max turns reached"}
        scored_zero = answers and is_answer_error(attempt.error) and talk is None
        if scored_zero:
            # Raised scoring the agent's answer: a wrong answer, as crmtui's own run counts it.
            reason = {"source": "agent", "message": "Submit action", "content": answers[-1].text}
            reason["upstream_error"] = attempt.error
        elif attempt.error is not None:
            reason = _crash_reason(attempt.error)
        end: dict[str, Any] = {"reason": str(reason.get("message") or "finished")}
        reward = _attempt_reward(attempt)
        if reward is not None:
            end["reward"] = reward
        end["end_reason"] = _plain(reason)
        recorder.emit("end", end)
    finally:
        recorder.suspend()
    checked = verify(recorder.path)
    if not checked.ok:
        raise RecordingError(f"imported recording does not verify: {checked.problem}")
    return recorder.path, clock.now


def _conversation(
    attempt: Attempt, model: str, strategy: str, dialogue: Mapping[str, Any] | None
) -> ImportedDialogue | None:
    """The row's conversation, when it is one (see :mod:`crmtui.upstream.dialogue_import`)."""
    given = dialogue or {}
    wanted = given.get("interactive")
    if wanted is False or (wanted is None and not is_dialogue(attempt)):
        return None
    if attempt.era != "head" or attempt.uses_tools:
        return None  # only HEAD's chat agent talks to a user
    options: dict[str, Any] = {}
    if isinstance(given.get("max_user_turns"), int):
        options["max_user_turns"] = given["max_user_turns"]
    if isinstance(given.get("user_model"), str):
        options["user_model"] = given["user_model"]
    return ImportedDialogue(attempt, model, f"upstream-{strategy}", **options)


def _emit_submit(
    recorder: Recorder, attempt: Attempt, instance: Any, metric: str, strategy: str, answer: str
) -> None:
    gold = _gold(instance.answer if instance is not None else attempt.gt_answer)
    own = _own_score(attempt, metric, gold, _own_method(attempt.era, strategy, gold))
    details: dict[str, Any] = {"upstream_reward": _plain(attempt.reward), "crmtui": own}
    reason = attempt.end_reason or {}
    if "parsed_answer" in reason:
        details["parsed_answer"] = _plain(reason["parsed_answer"])
    if attempt.error is not None:
        # Upstream raised after this answer: a harness error, or (its ROUGE on an empty
        # answer) the answer scored 0.
        details["not_scored"] = attempt.error
    recorder.emit("answer_edit", {"text": answer})
    recorder.emit(
        "submit",
        {
            "answer": answer,
            "reward": _attempt_reward(attempt),
            "scoring": f"upstream/{_own_method(attempt.era, strategy)}",
            "gold": gold,
            "details": details,
        },
    )


def _attempt_reward(attempt: Attempt) -> float | None:
    """The row's reward: 0 for an answer upstream raised scoring, none for other crashes."""
    if attempt.error is None:
        return numeric_reward(attempt.reward)
    return 0.0 if is_answer_error(attempt.error) else None


def _plain(value: Any) -> Any:
    """JSON-safe copy (NaN and odd types as text), for payloads that must be canonical JSON."""
    import json
    import math

    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return json.loads(json.dumps(value, default=str))
