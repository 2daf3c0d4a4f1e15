"""What one agent episode produced: :class:`AgentResult`, per-step :class:`StepInfo`, end names.

End reasons (``end_reason``) follow upstream's ``{source, message[, content]}`` with
upstream's messages where upstream has the case: ``Submit action``, ``Max turns reached``
(content: the model's last reply), ``Invalid action`` (the last reply could not be parsed),
``SOQL/SOSL query error``; crmtui's own: ``Model error`` (``source: api``, with the error
``kind``), ``Time limit reached``, ``Stopped`` / ``Interrupted`` and ``Harness error``
(``source: runner``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from crmtui.agent.parsing import Action
from crmtui.agent.replies import ModelReply

__all__ = [
    "INVALID_ACTION",
    "MAX_TURNS",
    "MODEL_ERROR",
    "QUERY_ERROR",
    "STOPPED",
    "SUBMIT",
    "TIME_LIMIT",
    "AgentResult",
    "LastStep",
    "StepInfo",
]

SUBMIT = "Submit action"
INVALID_ACTION = "Invalid action"
MAX_TURNS = "Max turns reached"
QUERY_ERROR = "SOQL/SOSL query error"
MODEL_ERROR = "Model error"
TIME_LIMIT = "Time limit reached"
STOPPED = "Stopped"
#: The harness failed: a crmtui bug, or (``upstream: true``) a point where upstream's own
#: harness raises, reproduced under ``--observations naacl|head``.
HARNESS_ERROR = "Harness error"


class UpstreamCrash(KeyError):
    """Upstream's connector raised here (a KeyError: SOSL rows of several objects lack the
    first row's keys); upstream's run ends in its exception row. ``str()`` is Python's."""


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


@dataclass(frozen=True)
class LastStep:
    """The last step of an episode, which upstream's end reasons are derived from.

    Attributes:
        kind: The action kind (``execute``, ``respond``, ``tool``, ``invalid``).
        reply: The model's reply text.
        tool: The tool called (tool strategies), if any.
        feedback: The observation or tool result fed back, if any.
        value: A helper tool's result before ``str()`` (JSON-safe), as upstream's ToolEnv
            keeps it in its end reason; ``None`` when there is none.
    """

    kind: str
    reply: str
    tool: str | None = None
    feedback: str | None = None
    value: Any = None


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
        score_details: What the scorer reported (compared text, parsed list, metrics).
        last_step: The last step taken, if any.
        stream_fallback: Streaming was switched off after an empty streamed reply.
        truncated_observations: Observations cut to the observation limit.
        user_turns: User replies in the multi-turn mode (0 single-turn).
        turn_steps: Model calls since the last message to the user (all of them single-turn):
            upstream's agent turn counter, reset by a respond.
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
    score_details: dict[str, Any] = field(default_factory=dict)
    last_step: LastStep | None = None
    stream_fallback: bool = False
    truncated_observations: int = 0
    user_turns: int = 0
    turn_steps: int = 0

    @property
    def total_cost(self) -> float:
        """Sum of the known per-call costs."""
        return float(sum(c for c in self.costs if c is not None))
