"""Run one agent episode on one instance: model call -> action -> observation, until done.

One step is one model call and the action it asks for. Every step emits recorder events
(``model_call`` then ``thought`` / ``run_query`` / ``answer_edit`` / ``submit``) and a final
``end``, so the whole transcript can be rebuilt from a recording: model text comes from
``model_call.content``/``tool_calls`` and every tool or query result from
``run_query.observation``. The end reasons are listed in :mod:`crmtui.agent.result`.

In the multi-turn mode (``dialogue``: a :class:`~crmtui.agent.dialogue_turns.DialogueDriver`)
the user's opening message replaces the query, each ``respond`` goes to the user and the
reply comes back as the next user message; ``max_turns`` then counts the model calls
between two messages to the user (upstream resets its counter after each respond). The
episode ends when the user accepts (the last message is scored: ``Submit action``), after
``max_user_turns`` replies (``Max user turns reached``, no answer), or as a single-turn
episode would; a failed user model ends it as ``Model error`` with ``role: user``.

Every failure outside the harness becomes an outcome, never an exception: a failed model
call ends the episode as ``Model error`` with the error's kind; a query that breaks the
engine is a query error the agent sees (``UNKNOWN_EXCEPTION``); a helper tool that raises
answers ``Error: ...`` as upstream's ToolEnv does. Observations longer than
``observation_cap`` are cut with a note to the agent (see :mod:`crmtui.agent.limits`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from crmtui.agent.dialogue_turns import DialogueDriver
from crmtui.agent.execution import Executor, Observation, query_kind
from crmtui.agent.limits import cap_observation, cap_stored
from crmtui.agent.parsing import Action
from crmtui.agent.replies import ModelCancelled, ModelError, ModelReply
from crmtui.agent.result import (
    HARNESS_ERROR,
    INVALID_ACTION,
    MAX_TURNS,
    MODEL_ERROR,
    QUERY_ERROR,
    STOPPED,
    SUBMIT,
    TIME_LIMIT,
    AgentResult,
    LastStep,
    StepInfo,
    UpstreamCrash,
)
from crmtui.agent.strategies import Strategy, ToolOutcome, describe_tool_call
from crmtui.play.dialogue import MAX_USER_TURNS, DialogueEnd
from crmtui.play.dialogue_sides import DialogueCancelled

__all__ = ["STOPPED", "AgentResult", "ClientLike", "StepInfo", "run_instance"]

Emit = Callable[[str, dict[str, Any]], None]
#: ``score(answer)`` -> ``(reward, method)``, ``(reward, method, details)`` or an object with
#: ``reward``, ``method`` and ``details`` (``crmtui.scoring.rewards.Score``).
Score = Callable[[str], Any]


class ClientLike(Protocol):
    """What the runner needs from a model client (``ModelClient`` or a test double)."""

    def complete(
        self, messages: Any, tools: Any = None, *, timeout: float | None = None, **kwargs: Any
    ) -> ModelReply: ...


def _model_call_payload(reply: ModelReply) -> dict[str, Any]:
    content, content_chars = cap_stored(reply.content)
    calls = []
    for call in reply.tool_calls:
        entry = call.to_json()
        entry["arguments"], arguments_chars = cap_stored(entry["arguments"])
        if arguments_chars is not None:
            entry["arguments_chars"] = arguments_chars
        calls.append(entry)
    payload: dict[str, Any] = {
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "cost": reply.cost,
        "latency_ms": round(reply.latency_ms, 3),
        "content": content,
        "tool_calls": calls,
        "finish_reason": reply.finish_reason,
        "attempts": reply.attempts,
    }
    if content_chars is not None:
        payload["content_chars"] = content_chars
    if reply.stream_fallback:
        payload["stream_fallback"] = True
    if reply.deployment is not None:
        payload["deployment"] = reply.deployment
    return payload


def _broken_query(text: str, exc: Exception, ms: float) -> Observation:
    """What the agent sees when the engine fails in a way it should not (never a crash)."""
    message = (
        "UNKNOWN_EXCEPTION: An unexpected error occurred while running the query "
        f"({type(exc).__name__})"
    )
    return Observation(message, query_kind(text), None, ms, "UNKNOWN_EXCEPTION", message)


@dataclass(frozen=True)
class EpisodeOptions:
    """How one episode runs: its prompt, its limits and the hooks that watch or stop it.

    Built once by the caller (``crmtui run``'s batch, the watch screen, a person playing the
    user) and handed through :meth:`crmtui.agent.session.AgentSession.run` to
    :func:`run_instance` unchanged, so a new option is added in one place.

    Attributes:
        schema_text: Schema section of the prompt; defaults to the built-in schema.
        max_turns: Model calls allowed (invalid replies count).
        time_limit_s: Wall-clock limit for the whole episode, held during a model call too,
            a simulated user's included; a person's time to answer is not counted.
        aided: Add ``metadata.optional`` to the prompt (upstream's aided mode).
        clock: Monotonic seconds (injectable for tests).
        on_step: Called after every step.
        should_stop: Polled before every step; it may block (pause) and returns True to stop.
        on_delta: Receives reply text as it streams in (the client is asked to stream).
        cancel: When set, a model call in flight is abandoned and the episode ends as
            ``Stopped`` at once.
        observation_cap: Characters of an observation shown to the model (``None``: all).
    """

    schema_text: str | None = None
    max_turns: int = 20
    time_limit_s: float = 600
    aided: bool = False
    clock: Callable[[], float] = time.monotonic
    on_step: Callable[[StepInfo], None] | None = None
    should_stop: Callable[[], bool] | None = None
    on_delta: Callable[[str], None] | None = None
    cancel: threading.Event | None = None
    observation_cap: int | None = None


def run_instance(
    instance: Any,
    client: ClientLike,
    strategy: Strategy,
    execute: Executor,
    emit: Emit,
    score: Score,
    options: EpisodeOptions | None = None,
    *,
    dialogue: DialogueDriver | None = None,
) -> AgentResult:
    """Run ``strategy`` with ``client`` on ``instance`` until it ends.

    Args:
        instance: Has ``idx``, ``task``, ``query``, ``answer``, ``metadata.required``,
            ``metadata.optional``.
        client: The model client.
        strategy: From :func:`crmtui.agent.strategies.make_strategy`.
        execute: Runs one SOQL/SOSL text (see :mod:`crmtui.agent.execution`).
        emit: Recorder sink ``emit(event_type, payload)``.
        score: ``score(answer) -> (reward, method_name)``.
        options: Prompt, limits and hooks (:class:`EpisodeOptions`; default: its defaults).
        dialogue: The conversation with a user (the multi-turn mode); None: single-turn.
    """
    options = options or EpisodeOptions()
    schema_text, max_turns = options.schema_text, options.max_turns
    time_limit_s, aided, clock = options.time_limit_s, options.aided, options.clock
    on_step, should_stop, on_delta = options.on_step, options.should_stop, options.on_delta
    cancel, observation_cap = options.cancel, options.observation_cap
    if schema_text is None:
        from crmtui.data.schema import builtin_schema

        schema_text = strategy.schema_text(builtin_schema())
    result = AgentResult(
        task_id=getattr(instance, "idx", None),
        task_type=getattr(instance, "task", ""),
        gt_answer=getattr(instance, "answer", None),
        strategy=strategy.name,
    )
    start = clock()
    step_reason: dict[str, Any] | None = None
    extra: dict[str, Any] = {}
    if on_delta is not None:
        extra["on_delta"] = on_delta
    if cancel is not None:
        extra["cancel"] = cancel

    def finish(reason: dict[str, Any]) -> AgentResult:
        result.end_reason = reason
        result.turn_steps = turn_steps
        if dialogue is not None:
            result.user_turns = dialogue.dialogue.user_turns
        emit("end", {"reason": reason["message"], "reward": result.reward, "end_reason": reason})
        return result

    def submit(answer: str) -> float | None:
        """Score ``answer`` and record it (``answer_edit`` then ``submit``)."""
        emit("answer_edit", {"text": cap_stored(answer)[0] or ""})
        reward, method, details = _scored(score(answer))
        result.reward, result.answer, result.scoring = reward, answer, method
        result.score_details = details
        submitted: dict[str, Any] = {
            "answer": cap_stored(answer)[0] or "",
            "reward": reward,
            "scoring": method,
            "gold": result.gt_answer,
        }
        if details:
            submitted["details"] = details
        emit("submit", submitted)
        return reward

    def dialogue_over(end: DialogueEnd) -> AgentResult:
        """The user ended the conversation: score the last message when it was accepted."""
        if end.scored and end.answer is not None:
            submit(end.answer)
            if raised := result.score_details.get("upstream_raised"):  # head_as_is
                reason = {"source": "runner", "message": HARNESS_ERROR, "content": raised}
                return finish({**reason, "upstream": True})
        else:
            result.answer = end.answer
        return finish(end.end_reason())

    def time_left() -> float:
        """Seconds left in the time limit (a person's time to answer is not counted)."""
        waited = dialogue.waited_s if dialogue is not None else 0.0
        return time_limit_s - (clock() - start - waited)

    def user_failed(exc: Exception) -> AgentResult:
        if isinstance(exc, (DialogueCancelled, ModelCancelled)):
            return finish({"source": "runner", "message": STOPPED})
        if dialogue is not None and dialogue.timed and time_left() <= 0:
            # The user model's call was given the time left and used it all: the instance
            # ends at its limit, saying the user (not the agent) ran the clock out.
            reason = {"source": "runner", "message": TIME_LIMIT, "role": "user"}
            reason["content"] = (
                f"the user model did not reply within the time limit ({time_limit_s:g} s)"
            )
            return finish(reason)
        reason = {"source": "api", "message": MODEL_ERROR, "content": f"user model: {exc}"}
        reason["kind"] = getattr(exc, "kind", "rejected")
        reason["role"] = "user"
        return finish(reason)

    turn_steps = 0  # model calls since the last message to the user
    query_text = instance.query
    if dialogue is not None:
        try:
            query_text = dialogue.open(cancel, timeout=time_left())
        except (ModelError, DialogueCancelled) as exc:
            return user_failed(exc)
        if dialogue.dialogue.end is not None:  # the user ended at once
            return dialogue_over(dialogue.dialogue.end)
    messages = strategy.initial_messages(instance, schema_text, aided=aided, query=query_text)
    result.messages = messages

    def shown(text: str) -> str:
        capped = cap_observation(text, observation_cap)
        if capped is not text:
            result.truncated_observations += 1
        return capped

    def run_query(text: str) -> Observation:
        began = time.perf_counter()
        try:
            observation = execute(text)
        except UpstreamCrash:
            raise
        except Exception as exc:  # noqa: BLE001 - an engine failure is the agent's observation
            observation = _broken_query(text, exc, (time.perf_counter() - began) * 1000)
        payload = observation.event_payload(text)
        payload["observation"], full = cap_stored(
            cap_observation(observation.text, observation_cap)
        )
        if full is not None:
            payload["observation_chars"] = full
        emit("run_query", payload)
        return observation

    while turn_steps < max_turns:
        if should_stop is not None and should_stop():
            return finish({"source": "runner", "message": STOPPED})
        if dialogue is not None and (ended := dialogue.ended_by_user()) is not None:
            return dialogue_over(ended)
        remaining = time_left()
        if remaining <= 0:
            return finish({"source": "runner", "message": TIME_LIMIT})
        try:
            reply = client.complete(messages, strategy.tools, timeout=remaining, **extra)
        except ModelCancelled:
            return finish({"source": "runner", "message": STOPPED})
        except ModelError as exc:
            if time_left() <= 0:
                return finish({"source": "runner", "message": TIME_LIMIT})
            reason = {"source": "api", "message": MODEL_ERROR, "content": str(exc)}
            reason["kind"] = getattr(exc, "kind", "rejected")
            return finish(reason)
        result.steps += 1
        turn_steps += 1
        result.costs.append(reply.cost)
        result.prompt_tokens.append(reply.prompt_tokens)
        result.completion_tokens.append(reply.completion_tokens)
        result.stream_fallback = result.stream_fallback or reply.stream_fallback
        emit("model_call", _model_call_payload(reply))

        action = strategy.parse(reply)
        messages.append(strategy.assistant_message(reply, action))
        if action.thought:
            emit("thought", {"text": cap_stored(action.thought)[0] or ""})
        step_reason = None
        feedback: str | None = None
        value: Any = None  # a helper tool's result before str(), for upstream's rows
        tool = action.tool_call.name if action.tool_call is not None else None
        crash = strategy.upstream_crash(reply, action)
        if crash is not None:
            # Upstream's agent raises here and run_tasks.py writes its exception row.
            result.last_step = LastStep(action.kind, reply.content, tool)
            reason = {"source": "runner", "message": HARNESS_ERROR, "content": crash}
            return finish({**reason, "upstream": True})
        refused = strategy.respond_error(reply, action)
        if refused is not None:
            # HEAD's ToolEnv answers an unreadable respond call with an Error: observation.
            messages.extend(strategy.result_messages(action, refused))
            step_reason = {"source": "tool", "message": "tool_call error: respond"}
            step_reason["content"] = refused
            result.last_step = LastStep("tool", reply.content, tool, refused)
            if on_step:
                on_step(StepInfo(result.steps, reply, action, refused, False))
            continue

        if action.kind == "respond" and dialogue is not None:
            answer = _answer_text(action)
            result.answer = answer
            if on_step:  # shown before the user answers (a person may take minutes)
                on_step(StepInfo(result.steps, reply, action, None, False))
            try:
                said, ended = dialogue.respond(answer, cancel, timeout=time_left())
            except (ModelError, DialogueCancelled) as exc:
                return user_failed(exc)
            turn_steps = 0  # upstream resets the agent's counter after each respond
            result.last_step = LastStep("respond", reply.content, tool, said)
            if ended is not None:
                return dialogue_over(ended)
            messages.extend(_user_reply(strategy, action, said))
            continue

        if action.kind == "respond" and (
            failed := strategy.scoring_error(instance, _answer_text(action))
        ):
            # HEAD's ToolEnv shows the exception its reward raised and goes on.
            messages.extend(strategy.result_messages(action, failed))
            step_reason = {"source": "tool", "message": "tool_call error: respond"}
            step_reason["content"] = failed
            result.last_step = LastStep("tool", reply.content, tool, failed)
            if on_step:
                on_step(StepInfo(result.steps, reply, action, failed, False))
            continue

        if action.kind == "respond":
            answer = _answer_text(action)
            reward = submit(answer)
            if raised := result.score_details.get("upstream_raised"):
                # HEAD's evaluator raised on this gold (head_as_is): upstream's exception row.
                result.last_step = LastStep("respond", reply.content, tool)
                reason = {"source": "runner", "message": HARNESS_ERROR, "content": raised}
                return finish({**reason, "upstream": True})
            if action.tool_call is not None and not strategy.upstream:
                # Keep the history valid for a follow-up request (e.g. a transcript export);
                # upstream's trajectories end with the call itself.
                messages.extend(strategy.result_messages(action, "DONE"))
            result.last_step = LastStep("respond", reply.content, tool)
            if on_step:
                on_step(StepInfo(result.steps, reply, action, None, True, reward))
            return finish(
                {"source": "agent", "message": SUBMIT, "content": answer, "parsed_answer": answer}
            )

        if action.kind == "execute":
            try:
                observation = run_query(action.content)
            except UpstreamCrash as exc:
                reason = {"source": "runner", "message": HARNESS_ERROR, "content": str(exc)}
                return finish({**reason, "upstream": True})
            feedback = shown(observation.text)
            step_reason = _observe(result, observation, feedback)
            messages.extend(strategy.result_messages(action, feedback))
        elif action.kind == "tool":
            outcome = _call_tool(strategy, action, execute, run_query, emit)
            value = outcome.value
            feedback = shown(outcome.text)
            if outcome.observation is not None:
                step_reason = _observe(result, outcome.observation, feedback)
            messages.extend(strategy.result_messages(action, feedback))
        else:
            messages.extend(strategy.invalid_messages(action))
            step_reason = {
                "source": "agent",
                "message": INVALID_ACTION,
                "content": reply.content.strip(),
            }
        result.last_step = LastStep(action.kind, reply.content, tool, feedback, value)
        if on_step:
            on_step(StepInfo(result.steps, reply, action, feedback, False))
        # Upstream HEAD's count: a query after the user's last allowed reply ends it.
        spent = None
        if dialogue is not None and action.kind != "invalid":
            # Upstream's reason: the action's content, or its query error.
            limit = {"source": "user", "message": MAX_USER_TURNS, "content": action.content}
            spent = dialogue.dialogue.limit_spent(step_reason or limit)
        if spent is not None:
            return dialogue_over(spent)

    if step_reason is not None:
        return finish(step_reason)
    last = result.last_step.reply.strip() if result.last_step is not None else ""
    return finish({"source": "agent", "message": MAX_TURNS, "content": last})


def _user_reply(strategy: Strategy, action: Action, text: str) -> list[dict[str, Any]]:
    """The user's reply as the model sees it: a plain user message (upstream's), or the
    respond tool's result for a tool-calling strategy."""
    if action.tool_call is not None:
        return strategy.result_messages(action, text)
    return [{"role": "user", "content": text}]


def _answer_text(action: Action) -> str:
    """The submitted answer: a respond tool's ``content`` exactly as sent, else the tag body.

    Upstream's ToolEnv compares the tool argument unstripped, so the raw text is kept
    (scoring methods that strip do so themselves).
    """
    call = action.tool_call
    if call is not None and call.arguments is not None:
        raw = call.arguments.get("content")
        if isinstance(raw, str):
            return raw
    return action.content


def _call_tool(
    strategy: Strategy,
    action: Action,
    execute: Executor,
    run_query: Callable[[str], Observation],
    emit: Emit,
) -> ToolOutcome:
    """Run a non-respond tool; raw query tools record each query, helper tools one event."""
    raw_queries = strategy.toolset == "query"
    began = time.perf_counter()
    try:
        outcome = strategy.call_tool(action, run_query if raw_queries else execute)
    except Exception as exc:  # noqa: BLE001 - upstream's ToolEnv answers "Error: ..." too
        outcome = ToolOutcome(f"Error: {type(exc).__name__}: {exc}")
    if outcome.observation is None or not raw_queries:
        call = action.tool_call
        text, stored = outcome.text, cap_stored(outcome.text)
        emit(
            "run_query",
            {
                "text": describe_tool_call(action.content, call.arguments if call else None),
                "kind": "tool",
                "tool": action.content,
                "rows": None,
                "ms": round((time.perf_counter() - began) * 1000, 3),
                "error_code": None,
                "error": stored[0] if text.startswith("Error:") else None,
                "observation": stored[0],
                **({"observation_chars": stored[1]} if stored[1] is not None else {}),
            },
        )
    return outcome


def _scored(outcome: Any) -> tuple[float | None, str, dict[str, Any]]:
    """Normalise a scorer's answer to (numeric reward, method, details)."""
    if isinstance(outcome, tuple):
        reward, method = outcome[0], outcome[1]
        details = dict(outcome[2]) if len(outcome) > 2 and outcome[2] else {}
    else:
        reward, method = outcome.reward, outcome.method
        details = dict(getattr(outcome, "details", None) or {})
    if isinstance(reward, Mapping):
        # Upstream's fuzzy metrics dict: keep it in details, report F1 as the reward.
        details = {**details, "metrics": dict(reward)}
        f1 = reward.get("f1")
        reward = float(f1) if isinstance(f1, int | float) else None
    elif isinstance(reward, bool):
        reward = float(reward)
    return reward, str(method), details


def _observe(
    result: AgentResult, observation: Observation, shown_text: str
) -> dict[str, Any] | None:
    """Book a query outcome; returns the step's end reason for a failed query."""
    if observation.ok:
        result.observation_sizes.append(observation.rows or 0)
        return None
    return {"source": "agent", "message": QUERY_ERROR, "content": shown_text}
