"""Rows of ``results_*.json`` in upstream ``run_tasks.py``'s shape, crmtui's facts beside them.

Upstream's file (run_tasks.py with crm_sandbox/env/env.py and crm_sandbox/agents/) differs by
strategy, and a script written for it must read
ours unchanged, so each row follows the strategy's agent and environment:

* ``react`` / ``act`` (ChatAgent + ChatEnv at HEAD): ``reward`` is ``1``/``0`` (an int) or,
  for knowledge QA, the metrics object ``{em, f1, bleu, rouge: {rouge-1, rouge-2, rouge-l}}``;
  the submit end reason carries ``parsed_answer`` (a list); ``num_turns`` is
  ``[user_turns, agent_turns + 1]`` with user turns 0 (single-turn) and the agent counter
  reset to 0 by a respond, so a submitted answer always shows ``[0, 1]`` and a spent
  budget ``[0, max_turns + 1]``, exactly as upstream writes it.
* ``tool_call`` (ToolCallAgent + ToolEnv): ``num_turns`` is the number of model calls;
  ``observation_sizes`` stays empty (ToolEnv never fills it); every helper call sets the end
  reason ``{source: tool, message: "tool_call error: <name>", content: <result>}`` (even a
  successful one, as upstream does), an unknown tool ``Invalid tool: <name>``, so an episode
  that runs out of turns ends with the last of those; no ``parsed_answer``.
* ``--observations naacl`` (the paper's code): ChatAgent rows have ``num_turns`` = the
  number of model calls (an int) and no ``parsed_answer``; tool_call rows as above.
* An attempt that failed at the model API or in the harness has upstream's exception shape:
  ``reward: 0``, ``agent_info: {source: api, content: "Error: ..."}``. So does a knowledge QA
  answer that normalises to nothing (upstream's ROUGE raises: ``Error: Hypothesis is empty.``).

Everything crmtui knows beyond that (the answer, the numeric reward, the scoring method and
its details, crmtui's own end reason, step count, recording, settings) goes under the row's
``crmtui`` key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crmtui.agent.result import INVALID_ACTION, SUBMIT, AgentResult

__all__ = ["OUTCOMES", "outcome_of", "upstream_reward", "upstream_row"]

#: How an attempt ended, for counting: the four kinds a summary shows, plus ``stopped``.
OUTCOMES = ("right", "wrong", "model_error", "harness_error", "stopped")


def outcome_of(end_reason: Mapping[str, Any], reward: Any) -> str:
    """``right`` (reward 1), ``wrong``, ``model_error``, ``harness_error`` or ``stopped``."""
    source, message = end_reason.get("source"), end_reason.get("message")
    if source == "api":
        return "model_error"
    if source == "runner" and message == "Harness error":
        return "harness_error"
    if source == "runner" and message in ("Stopped", "Interrupted"):
        return "stopped"
    value = reward.get("f1") if isinstance(reward, Mapping) else reward
    return "right" if isinstance(value, int | float) and float(value) >= 1.0 else "wrong"


def upstream_reward(result: AgentResult) -> Any:
    """The reward as upstream writes it: ``1``/``0``, or the knowledge-QA metrics object."""
    metrics = result.score_details.get("metrics")
    if isinstance(metrics, Mapping):
        return {
            "em": bool(metrics.get("em")),
            "f1": metrics.get("f1", 0.0),
            "bleu": metrics.get("bleu", 0.0),
            "rouge": {
                "rouge-1": metrics.get("rouge_1", 0.0),
                "rouge-2": metrics.get("rouge_2", 0.0),
                "rouge-l": metrics.get("rouge_l", 0.0),
            },
        }
    value = result.reward
    return 1 if isinstance(value, int | float) and float(value) >= 1.0 else 0


def _parsed_answer(result: AgentResult) -> list[Any]:
    """HEAD Evaluator's ``parsed_answer``: the list it compared with the gold."""
    details = result.score_details
    if isinstance(details.get("parsed"), list):
        return list(details["parsed"])
    if "compared" in details:
        return [details["compared"]]
    return [result.answer]


def _usage(result: AgentResult) -> dict[str, list[Any]]:
    return {
        "cost": list(result.costs),
        "completion_tokens": list(result.completion_tokens),
        "prompt_tokens": list(result.prompt_tokens),
        "total_tokens": [
            p + c for p, c in zip(result.prompt_tokens, result.completion_tokens, strict=True)
        ],
    }


def _tool_end_reason(result: AgentResult) -> dict[str, Any]:
    """ToolEnv's end reason for an episode that did not submit (see module docstring)."""
    last = result.last_step
    if last is None or last.kind == "invalid" or last.tool is None:
        content = last.reply.strip() if last is not None else ""
        return {"source": "agent", "message": INVALID_ACTION, "content": content}
    feedback = last.feedback or ""
    if feedback.startswith("Unknown action "):
        return {"source": "agent", "message": f"Invalid tool: {last.tool}", "content": feedback}
    return {"source": "tool", "message": f"tool_call error: {last.tool}", "content": feedback}


def _end_reason(result: AgentResult, tool_call: bool, naacl: bool) -> dict[str, Any]:
    reason = result.end_reason
    keep = {k: reason[k] for k in ("source", "message", "content") if k in reason}
    if reason.get("message") == SUBMIT and reason.get("source") == "agent":
        if not tool_call and not naacl:
            keep["parsed_answer"] = _parsed_answer(result)
        return keep
    if tool_call and reason.get("source") == "agent":
        return _tool_end_reason(result)
    return keep


def _is_exception(result: AgentResult) -> str | None:
    """The ``Error: ...`` text when upstream would have recorded an exception row."""
    reason = result.end_reason
    if reason.get("source") == "api" or (
        reason.get("source") == "runner" and reason.get("message") == "Harness error"
    ):
        return f"Error: {reason.get('content') or reason.get('message')}"
    metrics = result.score_details.get("metrics")
    if isinstance(metrics, Mapping) and metrics.get("empty_prediction"):
        return "Error: Hypothesis is empty."
    return None


def upstream_row(result: AgentResult, crmtui: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One entry of upstream ``run_tasks.py``'s results file, plus the ``crmtui`` key.

    Args:
        result: The attempt.
        crmtui: Further facts for the ``crmtui`` key (recording path, settings, ...).
    """
    tool_call = result.strategy == "tool_call"
    settings = (crmtui or {}).get("settings")
    naacl = isinstance(settings, Mapping) and settings.get("observations") == "naacl"
    usage = _usage(result)
    facts: dict[str, Any] = {
        "answer": result.answer,
        "reward": result.reward if isinstance(result.reward, int | float) else 0.0,
        "scoring": result.scoring,
        # What produced the reward: metric, method, extractor, judge (crmtui.scoring).
        "scored_by": result.score_details.get("scored_by"),
        "score_details": dict(result.score_details),
        "end_reason": dict(result.end_reason),
        "outcome": outcome_of(result.end_reason, result.reward),
        "steps": result.steps,
        "observation_sizes": list(result.observation_sizes),
        "usage": usage,
        "total_cost": result.total_cost,
        "truncated_observations": result.truncated_observations,
        "stream_fallback": result.stream_fallback,
    }
    facts.update(crmtui or {})
    error = _is_exception(result)
    if error is not None:
        return {
            "task_id": result.task_id,
            "task_type": result.task_type,
            "gt_answer": result.gt_answer,
            "reward": 0,
            "agent_info": {"source": "api", "content": error},
            "traj": [dict(m) for m in result.messages],
            "crmtui": facts,
        }
    submitted = result.end_reason.get("message") == SUBMIT
    if tool_call or naacl:
        num_turns: Any = result.steps
    else:
        # ChatAgent: (env.current_user_turn, current_agent_turn + 1), the counter reset by
        # a respond; single-turn ChatEnv keeps user turns at 0.
        num_turns = [result.user_turns, 1 if submitted else result.turn_steps + 1]
    return {
        "task_id": result.task_id,
        "task_type": result.task_type,
        "gt_answer": result.gt_answer,
        "reward": upstream_reward(result),
        "agent_info": {
            "observation_sizes": [] if tool_call else list(result.observation_sizes),
            "end_reason": _end_reason(result, tool_call, naacl),
            "usage": usage,
            "total_cost": result.total_cost,
            "num_turns": num_turns,
        },
        "traj": [dict(m) for m in result.messages],
        "crmtui": facts,
    }
