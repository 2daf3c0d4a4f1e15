"""Run one agent episode on one instance: model call -> action -> observation, until done.

One step is one model call and the action it asks for. Every step emits recorder events
(``model_call`` then ``thought`` / ``run_query`` / ``answer_edit`` / ``submit``) and a final
``end``, so the whole transcript can be rebuilt from a recording: model text comes from
``model_call.content``/``tool_calls`` and every tool or query result from
``run_query.observation``. The episode ends on a respond (``Submit action``), when the turn
budget is spent (``Max turns reached``, or ``SOQL/SOSL query error`` if the last step's query
failed), on a model failure (``source: api``), at the wall-clock limit or when asked to stop
(``source: runner``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from crmtui.agent.execution import Executor, Observation
from crmtui.agent.parsing import Action
from crmtui.agent.replies import ModelError, ModelReply
from crmtui.agent.strategies import Strategy, describe_tool_call

__all__ = ["AgentResult", "StepInfo", "run_instance"]

Emit = Callable[[str, dict[str, Any]], None]
#: ``score(answer)`` -> ``(reward, method)``, ``(reward, method, details)`` or an object with
#: ``reward``, ``method`` and ``details`` (``crmtui.scoring.rewards.Score``).
Score = Callable[[str], Any]

SUBMIT = "Submit action"
MAX_TURNS = "Max turns reached"
QUERY_ERROR = "SOQL/SOSL query error"
MODEL_ERROR = "Model error"
TIME_LIMIT = "Time limit reached"
STOPPED = "Stopped"


class ClientLike(Protocol):
    """What the runner needs from a model client (``ModelClient`` or a test double)."""

    def complete(
        self, messages: Any, tools: Any = None, *, timeout: float | None = None, **kwargs: Any
    ) -> ModelReply: ...


@dataclass(frozen=True)
class StepInfo:
    """What happened in one step, for a UI to stream.

    Attributes:
        index: 1-based step number (= model calls so far).
        reply: The model reply.
        action: The parsed action.
        result: The observation / tool result text fed back, or ``None``.
        done: Whether the episode ended with this step.
        reward: The reward when this step submitted an answer.
    """

    index: int
    reply: ModelReply
    action: Action
    result: str | None
    done: bool
    reward: Any = None


@dataclass
class AgentResult:
    """Outcome of one episode.

    Attributes:
        task_id: Instance idx.
        task_type: Instance task name.
        gt_answer: Gold answer.
        reward: Reward (0 without a submitted answer).
        answer: Submitted answer, if any.
        scoring: Name of the scoring method used, if an answer was scored.
        end_reason: ``{source, message[, content][, parsed_answer]}``.
        strategy: Strategy name.
        messages: The full chat history, system prompt included.
        observation_sizes: Row counts of the successful queries.
        costs / prompt_tokens / completion_tokens: One entry per model call; a cost is ``None``
            when the model has no known price.
        steps: Model calls made.
    """

    task_id: Any
    task_type: str
    gt_answer: Any
    strategy: str
    reward: Any = 0
    answer: str | None = None
    scoring: str | None = None
    end_reason: dict[str, Any] = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)
    observation_sizes: list[int] = field(default_factory=list)
    costs: list[float | None] = field(default_factory=list)
    prompt_tokens: list[int] = field(default_factory=list)
    completion_tokens: list[int] = field(default_factory=list)
    steps: int = 0

    @property
    def total_cost(self) -> float:
        """Sum of the known per-call costs."""
        return float(sum(c for c in self.costs if c is not None))

    def to_upstream_result(self) -> dict[str, Any]:
        """One entry of upstream ``run_tasks.py``'s results file.

        ``num_turns`` is ``[user_turns, agent_turns]`` for the text strategies (upstream's
        ChatAgent tuple) and an int for ``tool_call``.
        """
        num_turns: Any = self.steps if self.strategy == "tool_call" else [1, self.steps]
        return {
            "task_id": self.task_id,
            "task_type": self.task_type,
            "gt_answer": self.gt_answer,
            "reward": self.reward,
            "agent_info": {
                "observation_sizes": list(self.observation_sizes),
                "end_reason": dict(self.end_reason),
                "usage": {
                    "cost": list(self.costs),
                    "completion_tokens": list(self.completion_tokens),
                    "prompt_tokens": list(self.prompt_tokens),
                    "total_tokens": [
                        p + c
                        for p, c in zip(self.prompt_tokens, self.completion_tokens, strict=True)
                    ],
                },
                "total_cost": self.total_cost,
                "num_turns": num_turns,
            },
            "traj": [dict(m) for m in self.messages],
        }


def _model_call_payload(reply: ModelReply) -> dict[str, Any]:
    return {
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "cost": reply.cost,
        "latency_ms": round(reply.latency_ms, 3),
        "content": reply.content,
        "tool_calls": [c.to_json() for c in reply.tool_calls],
        "finish_reason": reply.finish_reason,
        "attempts": reply.attempts,
    }


def run_instance(
    instance: Any,
    client: ClientLike,
    strategy: Strategy,
    execute: Executor,
    emit: Emit,
    score: Score,
    *,
    schema_text: str | None = None,
    max_turns: int = 20,
    time_limit_s: float = 600,
    aided: bool = False,
    clock: Callable[[], float] = time.monotonic,
    on_step: Callable[[StepInfo], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    on_delta: Callable[[str], None] | None = None,
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
        schema_text: Schema section of the prompt; defaults to the built-in schema.
        max_turns: Model calls allowed (invalid replies count).
        time_limit_s: Wall-clock limit for the whole episode.
        aided: Add ``metadata.optional`` to the prompt (upstream's aided mode).
        clock: Monotonic seconds (injectable for tests).
        on_step: Called after every step.
        should_stop: Polled before every step; it may block (pause) and returns True to stop.
        on_delta: Receives reply text as it streams in (the client is asked to stream).
    """
    if schema_text is None:
        from crmtui.data.schema import builtin_schema

        schema_text = builtin_schema().render_prompt_text()
    messages = strategy.initial_messages(instance, schema_text, aided=aided)
    result = AgentResult(
        task_id=getattr(instance, "idx", None),
        task_type=getattr(instance, "task", ""),
        gt_answer=getattr(instance, "answer", None),
        strategy=strategy.name,
        messages=messages,
    )
    start = clock()
    step_reason: dict[str, Any] | None = None

    def finish(reason: dict[str, Any]) -> AgentResult:
        result.end_reason = reason
        emit("end", {"reason": reason["message"], "reward": result.reward, "end_reason": reason})
        return result

    def run_query(text: str) -> Observation:
        observation = execute(text)
        emit("run_query", observation.event_payload(text))
        return observation

    while result.steps < max_turns:
        if should_stop is not None and should_stop():
            return finish({"source": "runner", "message": STOPPED})
        remaining = time_limit_s - (clock() - start)
        if remaining <= 0:
            return finish({"source": "runner", "message": TIME_LIMIT})
        try:
            extra = {"on_delta": on_delta} if on_delta is not None else {}
            reply = client.complete(messages, strategy.tools, timeout=remaining, **extra)
        except ModelError as exc:
            if clock() - start >= time_limit_s:
                return finish({"source": "runner", "message": TIME_LIMIT})
            return finish({"source": "api", "message": MODEL_ERROR, "content": str(exc)})
        result.steps += 1
        result.costs.append(reply.cost)
        result.prompt_tokens.append(reply.prompt_tokens)
        result.completion_tokens.append(reply.completion_tokens)
        emit("model_call", _model_call_payload(reply))

        action = strategy.parse(reply)
        messages.append(strategy.assistant_message(reply, action))
        if action.thought:
            emit("thought", {"text": action.thought})
        step_reason = None
        feedback: str | None = None

        if action.kind == "respond":
            answer = action.content
            emit("answer_edit", {"text": answer})
            reward, method, details = _scored(score(answer))
            result.reward, result.answer, result.scoring = reward, answer, method
            submitted: dict[str, Any] = {
                "answer": answer,
                "reward": reward,
                "scoring": method,
                "gold": result.gt_answer,
            }
            if details:
                submitted["details"] = details
            emit("submit", submitted)
            if action.tool_call is not None:
                # Keep the history valid for a follow-up request (e.g. a transcript export).
                messages.extend(strategy.result_messages(action, "DONE"))
            if on_step:
                on_step(StepInfo(result.steps, reply, action, None, True, reward))
            reason = {"source": "agent", "message": SUBMIT, "content": answer}
            reason["parsed_answer"] = answer
            return finish(reason)

        if action.kind == "execute":
            observation = run_query(action.content)
            feedback = observation.text
            step_reason = _observe(result, observation)
            messages.extend(strategy.result_messages(action, feedback))
        elif action.kind == "tool":
            tool_start = time.perf_counter()
            outcome = strategy.call_tool(action, _tool_runner(strategy, execute, run_query))
            tool_ms = (time.perf_counter() - tool_start) * 1000
            feedback = outcome.text
            if outcome.observation is not None:
                step_reason = _observe(result, outcome.observation)
            else:
                call = action.tool_call
                emit(
                    "run_query",
                    {
                        "text": describe_tool_call(
                            action.content, call.arguments if call else None
                        ),
                        "kind": "tool",
                        "tool": action.content,
                        "rows": None,
                        "ms": round(tool_ms, 3),
                        "error_code": None,
                        "error": feedback if feedback.startswith("Error:") else None,
                        "observation": feedback,
                    },
                )
            messages.extend(strategy.result_messages(action, feedback))
        else:
            messages.extend(strategy.invalid_messages(action))
        if on_step:
            on_step(StepInfo(result.steps, reply, action, feedback, False))

    if step_reason is not None:
        return finish(step_reason)
    last = messages[-1].get("content") if messages else None
    return finish({"source": "agent", "message": MAX_TURNS, "content": last})


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


def _observe(result: AgentResult, observation: Observation) -> dict[str, Any] | None:
    """Book a query outcome; returns the step's end reason for a failed query."""
    if observation.ok:
        result.observation_sizes.append(observation.rows or 0)
        return None
    return {"source": "agent", "message": QUERY_ERROR, "content": observation.text}


def _tool_runner(
    strategy: Strategy, execute: Executor, recorded: Callable[[str], Observation]
) -> Callable[[str], Observation]:
    """Raw query tools record each query; helper tools record one ``tool`` event instead."""
    return recorded if strategy.toolset == "query" else execute
