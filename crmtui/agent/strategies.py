"""Agent strategies: how a prompt is built, a reply parsed, and results fed back.

* ``react``: thought + ``<execute>``/``<respond>`` tags, observations as user messages.
* ``act``: the same without thoughts.
* ``tool_call``: native function calling; toolset ``query`` (free SOQL/SOSL + respond, schema
  in the prompt) or ``upstream`` (the 25 helper tools, no schema, as upstream's tool_call).
* ``tool_call_flex`` (``--preset naacl|head`` only): upstream's helper tools plus its
  ``issue_soql_query`` and ``issue_sosl_query``, the schema in the prompt.

Under ``naacl`` / ``head`` every text the model receives is upstream's own, read at run time
from the user's copy of upstream's harness: the helper tools' function schemas
(:mod:`crmtui.agent.upstream_texts`) and the system prompts, schema section, reminders,
observation prefix and invalid tool call message (:mod:`crmtui.agent.upstream_prompts`).

``observations`` says whose harness the model meets: ``crmtui`` (crmtui's observations and
parsing), or ``naacl`` / ``head``, upstream's two harness versions reproduced: their reply
parsing, helper tool outputs (:mod:`crmtui.agent.upstream_exact`) and the points where their
agent crashes (:meth:`Strategy.upstream_crash`). ``naacl`` also names the answer action
``submit``, as the paper's code does.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from crmtui.agent.client import ModelReply, uses_single_user_message
from crmtui.agent.execution import Observation
from crmtui.agent.parsing import (
    Action,
    parse_tagged,
    parse_tagged_upstream,
    parse_tool_reply,
    parse_tool_reply_upstream,
)
from crmtui.agent.prompts import (
    ACT_INSTRUCTIONS,
    ACT_REMINDER,
    EXTERNAL_AUDIENCE,
    EXTERNAL_FACING_TASKS,
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
    with_answer_action,
)
from crmtui.agent.prompts_dialogue import ACT_DIALOGUE_INSTRUCTIONS, REACT_DIALOGUE_INSTRUCTIONS
from crmtui.agent.tool_specs import TOOLSETS, with_answer_tool
from crmtui.agent.upstream_prompts import UpstreamPrompts
from crmtui.agent.upstream_tools import call_upstream_tool
from crmtui.errors import ConfigError

__all__ = [
    "OBSERVATIONS",
    "STRATEGIES",
    "TOOL_STRATEGIES",
    "Strategy",
    "ToolOutcome",
    "make_strategy",
]

STRATEGIES = ("react", "act", "tool_call", "tool_call_flex")
#: Strategies that call tools natively (``tool_call_flex``: upstream's helpers plus its two
#: query tools, with the schema in the prompt).
TOOL_STRATEGIES = ("tool_call", "tool_call_flex")
#: Whose harness the model meets: crmtui's, or one of upstream's two versions reproduced.
OBSERVATIONS = ("crmtui", "naacl", "head")

#: Runs one query and records it; what tools get instead of the bare executor.
Run = Callable[[str], Observation]


@dataclass(frozen=True)
class ToolOutcome:
    """Result of a non-respond tool call.

    Attributes:
        text: What the model sees as the tool result.
        query: The query text for the raw query tools, else ``None``.
        observation: The raw query's observation for the raw query tools.
        value: Upstream's helper result before ``str()`` (``naacl`` / ``head`` only).
    """

    text: str
    query: str | None = None
    observation: Observation | None = None
    value: Any = None


@dataclass
class Strategy:
    """One strategy's behaviour. Build with :func:`make_strategy`.

    Attributes:
        name: ``react``, ``act`` or ``tool_call``.
        toolset: For ``tool_call``: ``query`` or ``upstream``.
        single_user_message: Put the whole prompt in one user message (o1-style models).
        privacy_aware: CRMArena-Pro customer-facing rows get the confidentiality rules
            (upstream's ``--privacy_aware_prompt true``).
        observations: ``crmtui``, ``naacl`` or ``head`` (see the module docstring).
        upstream_dir: The upstream harness folder the user named (``None``: found as
            :func:`~crmtui.agent.upstream_texts.find_harness` says).
    """

    name: str
    toolset: str = "query"
    single_user_message: bool = False
    _instructions: str = field(default="", repr=False)
    _reminder: str = field(default="", repr=False)
    privacy_aware: bool = False
    observations: str = "crmtui"
    upstream_dir: str | None = None
    _specs: list[dict[str, Any]] | None = field(default=None, repr=False)
    interactive: bool = False
    _prompts: UpstreamPrompts | None = field(default=None, repr=False)

    @property
    def upstream(self) -> bool:
        """Whether upstream's harness is reproduced (``naacl`` or ``head``)."""
        return self.observations != "crmtui"

    @property
    def answer_action(self) -> str:
        """The final-answer tag and tool: ``submit`` in the paper's code, else ``respond``."""
        return "submit" if self.observations == "naacl" else "respond"

    @property
    def native_tools(self) -> bool:
        """Whether this strategy uses native function calling."""
        return self.name in TOOL_STRATEGIES

    @property
    def tools(self) -> list[dict[str, Any]] | None:
        """Function specs to send with each call, or ``None`` for text strategies.

        Upstream's helper tools under ``naacl`` / ``head`` are upstream's own schemas, byte
        for byte (read once from its harness folder); crmtui's own words otherwise.

        Raises:
            ConfigError: Upstream's harness folder cannot be found (says how to get one).
        """
        if not self.native_tools:
            return None
        if self.upstream and self.toolset == "upstream":
            if self._specs is None:
                from crmtui.agent.upstream_texts import upstream_tool_specs

                full = self.name == "tool_call_flex"
                self._specs = upstream_tool_specs(
                    self.observations, full=full, named=self.upstream_dir
                )
            return self._specs
        return with_answer_tool(TOOLSETS[self.toolset], self.answer_action)

    @property
    def upstream_prompts(self) -> UpstreamPrompts:
        """Upstream's texts for this version (read once from its harness folder).

        Raises:
            ConfigError: Upstream's harness folder cannot be found or read.
        """
        if self._prompts is None:
            from crmtui.agent.upstream_prompts import upstream_prompts

            self._prompts = upstream_prompts(self.observations, self.upstream_dir)
        return self._prompts

    def schema_text(self, schema: Any) -> str:
        """The schema section of the system prompt for ``schema`` (a
        :class:`~crmtui.data.schema.Schema`): upstream's layout under ``naacl`` / ``head``,
        crmtui's otherwise.

        Upstream reads the schema rows through ``datasets``, whose ``fields`` column is one
        struct of every object's field names: each object lists its fields in that struct's
        order (first seen across the objects, each object's fields alphabetical, as the
        hub's rows and ``crmtui upstream run``'s hook give them), not alphabetically.
        """
        if not self.upstream:
            text: str = schema.render_prompt_text()
            return text
        listed = [(obj.name, {f.name: f.description for f in obj.listed_fields}) for obj in schema]
        order: dict[str, None] = {}
        for _, fields in listed:
            order.update(dict.fromkeys(fields))
        objects = [
            (name, [(k, fields[k]) for k in order if fields.get(k) is not None])
            for name, fields in listed
        ]
        return self.upstream_prompts.schema_text(objects)

    def prompt_digest(self) -> str:
        """A short digest of every fixed text this strategy sends (instructions, reminders,
        tool specs, the observation prefix): it changes whenever the prompts do."""
        texts = [self._instructions, self._reminder, OBSERVATION_PREFIX, TOOL_REMINDER]
        if self.upstream:
            from crmtui.agent.upstream_prompts import describe

            texts.append(json.dumps(describe(self.upstream_prompts), sort_keys=True))
        texts.append(json.dumps(self.tools, sort_keys=True))
        texts.append(str(self.single_user_message))
        texts += [INTERNAL_AUDIENCE, EXTERNAL_AUDIENCE]
        if self.privacy_aware:
            texts.append(PRIVACY_RULES)
        if self.upstream:  # crmtui's own observations add nothing to the digest
            texts.append(self.observations)
        digest = hashlib.sha256("\x1f".join(texts).encode("utf-8")).hexdigest()
        return digest[:12]

    def system_prompt(self, instance: InstanceLike, schema_text: str, *, aided: bool) -> str:
        """The full system prompt for ``instance``."""
        if self.upstream:
            return self._upstream_prompt(instance, schema_text, aided=aided).strip()
        with_schema = self.name != "tool_call" or self.toolset != "upstream"
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
        first = instance.query if query is None else query
        if self.upstream:
            raw = self._upstream_prompt(instance, schema_text, aided=aided)
            if self.single_user_message:  # upstream strips neither part here
                return [{"role": "user", "content": raw + "\n\n" + first}]
            return [
                {"role": "system", "content": raw.strip()},
                {"role": "user", "content": first.strip()},
            ]
        prompt = self.system_prompt(instance, schema_text, aided=aided)
        return build_messages(prompt, first, single_user_message=self.single_user_message)

    def _upstream_prompt(self, instance: InstanceLike, schema_text: str, *, aided: bool) -> str:
        """Upstream's system prompt before its final strip (see :class:`UpstreamPrompts`)."""
        prompts = self.upstream_prompts
        name = prompts.template(
            self.name,
            external=getattr(instance, "task", None) in EXTERNAL_FACING_TASKS,
            privacy_aware=self.privacy_aware,
            interactive=self.interactive,
        )
        meta = instance.metadata
        return prompts.system_prompt(
            name,
            schema_text=schema_text,
            required=getattr(meta, "required", None),
            optional=getattr(meta, "optional", None),
            aided=aided,
        )

    def parse(self, reply: ModelReply) -> Action:
        """The action a reply asks for."""
        if self.upstream:
            if self.native_tools:
                return parse_tool_reply_upstream(reply, self.answer_action).action
            return parse_tagged_upstream(reply.content, self.answer_action)
        return parse_tool_reply(reply) if self.native_tools else parse_tagged(reply.content)

    def upstream_crash(self, reply: ModelReply, action: Action) -> str | None:
        """The exception text upstream's agent dies with at this reply, if it would.

        Upstream strips the reply text (``message["content"].strip()``: every react/act
        reply, a tool-call reply whose action is invalid), which raises when the provider
        sent ``null`` for the text: run_tasks.py then writes its exception row. An empty
        text (``""``) is no crash: upstream shows its format reminder and goes on. The paper's
        ToolEnv also raises on a submit without ``content`` (HEAD answers it with an
        ``Error:`` observation instead, see :meth:`call_tool`). ``None``: no crash.
        """
        if not self.upstream:
            return None
        if reply.content_null and (action.kind == "invalid" or not self.native_tools):
            return "'NoneType' object has no attribute 'strip'"
        if action.kind == "respond" and self.native_tools and self.observations == "naacl":
            arguments = self._arguments(reply)
            if not isinstance(arguments, dict):
                return f"{type(arguments).__name__} indices must be integers or slices, not str"
            if "content" not in arguments:
                return "'content'"
        return None

    def respond_error(self, reply: ModelReply, action: Action) -> str | None:
        """HEAD's observation for a respond call its ToolEnv cannot read (else ``None``)."""
        if not (self.upstream and self.native_tools and action.kind == "respond"):
            return None
        arguments = self._arguments(reply)
        if not isinstance(arguments, dict):
            return f"Error: {type(arguments).__name__} indices must be integers or slices, not str"
        if "content" not in arguments:
            return "Error: 'content'"
        return None

    def scoring_error(self, instance: Any, answer: str) -> str | None:
        """HEAD ToolEnv's observation for an answer its reward raised on (else ``None``).

        HEAD's ToolEnv scores a respond call inside a ``try`` and shows the exception as an
        ``Error:`` observation, the episode going on: a fuzzy-match answer that normalises
        to nothing makes upstream's ROUGE raise ``Hypothesis is empty.``. (The paper's
        ToolEnv and both ChatEnvs let it escape: run_tasks.py's exception row.)
        """
        if not (self.native_tools and self.observations == "head"):
            return None
        if getattr(instance, "reward_metric", None) != "fuzzy_match":
            return None
        from crmtui.scoring.metrics import normalize_answer

        return None if normalize_answer(answer) else "Error: Hypothesis is empty."

    def _arguments(self, reply: ModelReply) -> object:
        return parse_tool_reply_upstream(reply, self.answer_action).arguments

    def assistant_message(self, reply: ModelReply, action: Action) -> dict[str, Any]:
        """The assistant message to keep in the history (only the first tool call survives)."""
        if not self.native_tools:
            return {"role": "assistant", "content": reply.content.strip()}
        content = reply.content or None
        if self.upstream:  # upstream keeps the message as the provider sent it: "" stays ""
            content = None if reply.content_null else reply.content
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if reply.tool_calls:
            message["tool_calls"] = [reply.tool_calls[0].to_message()]
        return message

    def result_messages(self, action: Action, text: str) -> list[dict[str, Any]]:
        """Messages carrying an observation or tool result back to the model."""
        if action.tool_call is not None:
            call = action.tool_call
            if self.upstream:  # upstream strips both
                ids = {"tool_call_id": call.id.strip(), "name": call.name.strip()}
                return [{"role": "tool", **ids, "content": text}]
            return [{"role": "tool", "tool_call_id": call.id, "name": call.name, "content": text}]
        prefix = self.upstream_prompts.observation_prefix if self.upstream else OBSERVATION_PREFIX
        return [{"role": "user", "content": prefix + text}]

    def invalid_messages(self, action: Action) -> list[dict[str, Any]]:
        """Messages asking for a well-formed reply after an invalid one."""
        if self.upstream:
            prompts = self.upstream_prompts
            if action.tool_call is not None:  # a tool call whose arguments are not JSON
                return self.result_messages(action, prompts.invalid_tool_call)
            return [{"role": "user", "content": prompts.reminder(self.name)}]
        if action.tool_call is not None:
            # Every tool call id needs an answer before the next request is accepted.
            text = f"{self._tool_reminder} Problem: {action.content}."
            return self.result_messages(action, text)
        if self.native_tools:
            return [{"role": "user", "content": self._tool_reminder}]
        return [{"role": "user", "content": self._reminder}]

    @property
    def _tool_reminder(self) -> str:
        return with_answer_action(TOOL_REMINDER, self.answer_action)

    def call_tool(self, action: Action, run: Run) -> ToolOutcome:
        """Run a non-respond tool call; ``run`` executes (and records) a query."""
        call = action.tool_call
        if call is None or (call.arguments is None and not self.upstream):
            raise ValueError("call_tool needs a parsed tool call")
        if self.upstream and self.toolset == "upstream":
            from crmtui.agent.upstream_exact import exact_tool_value

            connector = getattr(run, "connector", None)
            if connector is None:
                raise ValueError("upstream's helper tools need an upstream_executor")
            arguments = parse_tool_reply_upstream_arguments(call)
            flex = self.name == "tool_call_flex"
            value = exact_tool_value(call.name, arguments, connector, flex=flex)
            return ToolOutcome(str(value), value=value)
        if self.toolset == "query":
            if call.name not in ("soql_query", "sosl_search"):
                return ToolOutcome(f"Unknown action {call.name}")
            query = call.arguments.get("query")
            if not isinstance(query, str) or not query.strip():
                return ToolOutcome("Error: the query argument must be a non-empty string")
            observation = run(query.strip())
            return ToolOutcome(observation.text, query.strip(), observation)
        return ToolOutcome(call_upstream_tool(call.name, dict(call.arguments), run))


def parse_tool_reply_upstream_arguments(call: Any) -> object:
    """A tool call's arguments as upstream decodes them (any JSON value)."""
    return json.loads(call.arguments_text.strip())


def make_strategy(
    name: str,
    *,
    toolset: str = "query",
    single_user_message: bool | None = None,
    model: str | None = None,
    privacy_aware: bool = False,
    interactive: bool = False,
    observations: str = "crmtui",
    upstream_dir: str | None = None,
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
        observations: ``crmtui``, ``naacl`` or ``head`` (see the module docstring).
        upstream_dir: The upstream harness folder the user named, if any.

    Raises:
        ConfigError: For an unknown strategy, toolset or observations, or ``tool_call``
            (or the NAACL harness's observations) in the multi-turn mode.
    """
    if observations not in OBSERVATIONS:
        raise ConfigError(
            f"unknown --observations {observations!r}: choose one of {', '.join(OBSERVATIONS)}"
        )
    answer = "submit" if observations == "naacl" else "respond"
    if single_user_message is None:
        single_user_message = bool(model) and uses_single_user_message(model or "")
    key = name.strip().lower()
    if key == "tool_call_flex":
        if observations == "crmtui":
            raise ConfigError(
                "--strategy tool_call_flex is upstream's (its helper tools plus two query "
                "tools): use it with --preset naacl or head"
            )
        toolset = "upstream"
    if interactive and key in TOOL_STRATEGIES:
        raise ConfigError(
            "the multi-turn mode (--interactive) works with --strategy react or act "
            "(upstream's interactive mode runs react); tool_call has no way to talk to the user"
        )
    if interactive and observations == "naacl":
        raise ConfigError(
            "the multi-turn mode (--interactive) is CRMArena-Pro's; the NAACL harness "
            "(--observations naacl) has none"
        )
    texts = {
        "react": (
            REACT_DIALOGUE_INSTRUCTIONS if interactive else REACT_INSTRUCTIONS,
            REACT_REMINDER,
        ),
        "act": (ACT_DIALOGUE_INSTRUCTIONS if interactive else ACT_INSTRUCTIONS, ACT_REMINDER),
        "tool_call": (TOOL_CALL_INSTRUCTIONS, TOOL_REMINDER),
        "tool_call_flex": (TOOL_CALL_INSTRUCTIONS, TOOL_REMINDER),
    }
    if key in texts:
        if key in TOOL_STRATEGIES and toolset not in TOOLSETS:
            raise ConfigError(f"unknown toolset {toolset!r}: choose {' or '.join(TOOLSETS)}")
        instructions, reminder = (with_answer_action(t, answer) for t in texts[key])
        return Strategy(
            key,
            toolset if key in TOOL_STRATEGIES else "query",
            single_user_message,
            instructions,
            reminder,
            privacy_aware,
            observations,
            upstream_dir,
            interactive=interactive,
        )
    raise ConfigError(f"unknown strategy {name!r}: choose one of {', '.join(STRATEGIES)}")


def describe_tool_call(name: str, arguments: dict[str, Any] | None) -> str:
    """``name({...})`` for logs and recordings."""
    return f"{name}({json.dumps(arguments or {}, sort_keys=True)})"
