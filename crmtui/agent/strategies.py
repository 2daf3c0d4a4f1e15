"""Agent strategies: how a prompt is built, a reply parsed, and results fed back.

* ``react``: thought + ``<execute>``/``<respond>`` tags, observations as user messages.
* ``act``: the same without thoughts.
* ``tool_call``: native function calling; toolset ``query`` (free SOQL/SOSL + respond, schema
  in the prompt) or ``upstream`` (the 25 helper tools, no schema, as upstream's tool_call).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from crmtui.agent.client import ModelReply, uses_single_user_message
from crmtui.agent.execution import Observation
from crmtui.agent.parsing import Action, parse_tagged, parse_tool_reply
from crmtui.agent.prompts import (
    ACT_INSTRUCTIONS,
    ACT_REMINDER,
    EXTERNAL_AUDIENCE,
    INTERNAL_AUDIENCE,
    OBSERVATION_PREFIX,
    PRIVACY_RULES,
    REACT_INSTRUCTIONS,
    REACT_REMINDER,
    TOOL_CALL_INSTRUCTIONS,
    TOOL_REMINDER,
    InstanceLike,
    audience_text,
    build_messages,
    build_system_prompt,
)
from crmtui.agent.prompts_dialogue import ACT_DIALOGUE_INSTRUCTIONS, REACT_DIALOGUE_INSTRUCTIONS
from crmtui.agent.tool_specs import TOOLSETS
from crmtui.agent.upstream_tools import call_upstream_tool
from crmtui.errors import ConfigError

__all__ = ["STRATEGIES", "Strategy", "ToolOutcome", "make_strategy"]

STRATEGIES = ("react", "act", "tool_call")

#: Runs one query and records it; what tools get instead of the bare executor.
Run = Callable[[str], Observation]


@dataclass(frozen=True)
class ToolOutcome:
    """Result of a non-respond tool call.

    Attributes:
        text: What the model sees as the tool result.
        query: The query text for the raw query tools, else ``None``.
        observation: The raw query's observation for the raw query tools.
    """

    text: str
    query: str | None = None
    observation: Observation | None = None


@dataclass
class Strategy:
    """One strategy's behaviour. Build with :func:`make_strategy`.

    Attributes:
        name: ``react``, ``act`` or ``tool_call``.
        toolset: For ``tool_call``: ``query`` or ``upstream``.
        single_user_message: Put the whole prompt in one user message (o1-style models).
        privacy_aware: CRMArena-Pro customer-facing rows get the confidentiality rules
            (upstream's ``--privacy_aware_prompt true``).
    """

    name: str
    toolset: str = "query"
    single_user_message: bool = False
    _instructions: str = field(default="", repr=False)
    _reminder: str = field(default="", repr=False)
    privacy_aware: bool = False

    @property
    def native_tools(self) -> bool:
        """Whether this strategy uses native function calling."""
        return self.name == "tool_call"

    @property
    def tools(self) -> list[dict[str, Any]] | None:
        """Function specs to send with each call, or ``None`` for text strategies."""
        return TOOLSETS[self.toolset] if self.native_tools else None

    def prompt_digest(self) -> str:
        """A short digest of every fixed text this strategy sends (instructions, reminders,
        tool specs, the observation prefix): it changes whenever the prompts do."""
        texts = [self._instructions, self._reminder, OBSERVATION_PREFIX, TOOL_REMINDER]
        texts.append(json.dumps(self.tools, sort_keys=True))
        texts.append(str(self.single_user_message))
        texts += [INTERNAL_AUDIENCE, EXTERNAL_AUDIENCE]
        if self.privacy_aware:
            texts.append(PRIVACY_RULES)
        digest = hashlib.sha256("\x1f".join(texts).encode("utf-8")).hexdigest()
        return digest[:12]

    def system_prompt(self, instance: InstanceLike, schema_text: str, *, aided: bool) -> str:
        """The full system prompt for ``instance``."""
        with_schema = not (self.native_tools and self.toolset == "upstream")
        meta = instance.metadata
        return build_system_prompt(
            self._instructions,
            schema_text=schema_text if with_schema else None,
            required=getattr(meta, "required", None),
            optional=getattr(meta, "optional", None),
            aided=aided,
            audience=audience_text(instance, privacy_aware=self.privacy_aware),
        )

    def initial_messages(
        self, instance: InstanceLike, schema_text: str, *, aided: bool, query: str | None = None
    ) -> list[dict[str, Any]]:
        """``[system, user]`` (or one user message) to start an episode.

        ``query`` replaces the instance's query as the first user message (in the multi-turn
        mode, the user's opening message: the agent never sees the query itself).
        """
        prompt = self.system_prompt(instance, schema_text, aided=aided)
        first = instance.query if query is None else query
        return build_messages(prompt, first, single_user_message=self.single_user_message)

    def parse(self, reply: ModelReply) -> Action:
        """The action a reply asks for."""
        return parse_tool_reply(reply) if self.native_tools else parse_tagged(reply.content)

    def assistant_message(self, reply: ModelReply, action: Action) -> dict[str, Any]:
        """The assistant message to keep in the history (only the first tool call survives)."""
        if not self.native_tools:
            return {"role": "assistant", "content": reply.content.strip()}
        message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
        if reply.tool_calls:
            message["tool_calls"] = [reply.tool_calls[0].to_message()]
        return message

    def result_messages(self, action: Action, text: str) -> list[dict[str, Any]]:
        """Messages carrying an observation or tool result back to the model."""
        if action.tool_call is not None:
            call = action.tool_call
            return [{"role": "tool", "tool_call_id": call.id, "name": call.name, "content": text}]
        return [{"role": "user", "content": OBSERVATION_PREFIX + text}]

    def invalid_messages(self, action: Action) -> list[dict[str, Any]]:
        """Messages asking for a well-formed reply after an invalid one."""
        if action.tool_call is not None:
            # Every tool call id needs an answer before the next request is accepted.
            text = f"{TOOL_REMINDER} Problem: {action.content}."
            return self.result_messages(action, text)
        if self.native_tools:
            return [{"role": "user", "content": TOOL_REMINDER}]
        return [{"role": "user", "content": self._reminder}]

    def call_tool(self, action: Action, run: Run) -> ToolOutcome:
        """Run a non-respond tool call; ``run`` executes (and records) a query."""
        call = action.tool_call
        if call is None or call.arguments is None:
            raise ValueError("call_tool needs a parsed tool call")
        if self.toolset == "query":
            if call.name not in ("soql_query", "sosl_search"):
                return ToolOutcome(f"Unknown action {call.name}")
            query = call.arguments.get("query")
            if not isinstance(query, str) or not query.strip():
                return ToolOutcome("Error: the query argument must be a non-empty string")
            observation = run(query.strip())
            return ToolOutcome(observation.text, query.strip(), observation)
        return ToolOutcome(call_upstream_tool(call.name, dict(call.arguments), run))


def make_strategy(
    name: str,
    *,
    toolset: str = "query",
    single_user_message: bool | None = None,
    model: str | None = None,
    privacy_aware: bool = False,
    interactive: bool = False,
) -> Strategy:
    """Build a strategy by name.

    Args:
        name: ``react``, ``act`` or ``tool_call``.
        toolset: For ``tool_call``: ``query`` or ``upstream``.
        single_user_message: Force the one-user-message prompt layout on or off.
        model: When ``single_user_message`` is None, decide it from the model name (o1
            family, o3-mini, DeepSeek-R1, Gemini 2.5 Flash get one user message).
        privacy_aware: Confidentiality rules for CRMArena-Pro's customer-facing rows.
        interactive: The multi-turn mode: ``respond`` talks to a user
            (:mod:`crmtui.agent.prompts_dialogue`); react and act only, as upstream's
            interactive mode (its tool-calling agent has none).

    Raises:
        ConfigError: For an unknown strategy or toolset, or ``tool_call`` in the
            multi-turn mode.
    """
    if single_user_message is None:
        single_user_message = bool(model) and uses_single_user_message(model or "")
    key = name.strip().lower()
    single = single_user_message
    if key == "react":
        text = REACT_DIALOGUE_INSTRUCTIONS if interactive else REACT_INSTRUCTIONS
        return Strategy(key, "query", single, text, REACT_REMINDER, privacy_aware)
    if key == "act":
        text = ACT_DIALOGUE_INSTRUCTIONS if interactive else ACT_INSTRUCTIONS
        return Strategy(key, "query", single, text, ACT_REMINDER, privacy_aware)
    if key == "tool_call" and interactive:
        raise ConfigError(
            "the multi-turn mode (--interactive) works with --strategy react or act, as "
            "upstream's interactive mode; tool_call has no way to talk to the user"
        )
    if key == "tool_call":
        if toolset not in TOOLSETS:
            raise ConfigError(f"unknown toolset {toolset!r}: choose {' or '.join(TOOLSETS)}")
        return Strategy(key, toolset, single, TOOL_CALL_INSTRUCTIONS, TOOL_REMINDER, privacy_aware)
    raise ConfigError(f"unknown strategy {name!r}: choose one of {', '.join(STRATEGIES)}")


def describe_tool_call(name: str, arguments: dict[str, Any] | None) -> str:
    """``name({...})`` for logs and recordings."""
    return f"{name}({json.dumps(arguments or {}, sort_keys=True)})"
