"""Turning a model reply into an action.

Text strategies (react, act) use upstream's tag protocol: the first ``<execute>...</execute>``
wins over any ``<respond>...</respond>``; empty content is invalid; ``<thought>`` is optional
for the parser. The tool-call strategy reads the first native tool call.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

from crmtui.agent.replies import ModelReply, ToolCall

__all__ = [
    "Action",
    "ActionKind",
    "parse_tagged",
    "parse_tagged_upstream",
    "parse_tool_reply",
    "parse_tool_reply_upstream",
]

ActionKind = Literal["execute", "respond", "tool", "invalid"]

_EXECUTE = re.compile(r"<execute>(.*?)</execute>", re.DOTALL)
_RESPOND = re.compile(r"<respond>(.*?)</respond>", re.DOTALL)
_THOUGHT = re.compile(r"<thought>(.*?)</thought>", re.DOTALL)


@dataclass(frozen=True)
class Action:
    """What the agent decided this step.

    Attributes:
        kind: ``execute`` (run a query), ``respond`` (final answer), ``tool`` (a helper tool
            call), or ``invalid``.
        content: The query, the answer, or for ``invalid`` why the reply was rejected.
        thought: Text of the ``<thought>`` block, when present.
        tool_call: The tool call behind this action (tool-call strategy only).
    """

    kind: ActionKind
    content: str
    thought: str | None = None
    tool_call: ToolCall | None = None


def parse_tagged(text: str | None) -> Action:
    """Parse a react/act reply.

    Examples:
        >>> parse_tagged("<thought>t</thought><execute> SELECT Id FROM Case </execute>").content
        'SELECT Id FROM Case'
        >>> parse_tagged("<respond></respond>").kind
        'invalid'
    """
    text = text or ""
    thought_match = _THOUGHT.search(text)
    thought = thought_match.group(1).strip() if thought_match else None
    for kind, pattern in (("execute", _EXECUTE), ("respond", _RESPOND)):
        match = pattern.search(text)
        if match:
            body = match.group(1).strip()
            if body:
                return Action(kind, body, thought)  # type: ignore[arg-type]
            return Action("invalid", f"empty <{kind}> block", thought)
    if not text.strip():
        return Action("invalid", "empty reply", thought)
    return Action("invalid", "no <execute> or <respond> block", thought)


def parse_tool_reply(reply: ModelReply, respond_tool: str = "respond") -> Action:
    """Parse a native tool-calling reply: the first tool call only, as upstream.

    A respond call becomes ``respond`` with its ``content`` argument; any other call becomes
    ``tool``; a reply without a usable call becomes ``invalid``.
    """
    thought = reply.content.strip() or None
    if not reply.tool_calls:
        reason = "reply has no tool call" if reply.content.strip() else "empty reply"
        return Action("invalid", reason, thought)
    call = reply.tool_calls[0]
    if call.parse_error or call.arguments is None:
        return Action("invalid", f"tool {call.name}: {call.parse_error}", thought, call)
    if call.name == respond_tool:
        content = call.arguments.get("content")
        if content is None:
            return Action("invalid", "respond needs a 'content' argument", thought, call)
        return Action("respond", str(content).strip(), thought, call)
    return Action("tool", call.name, thought, call)


def parse_tagged_upstream(text: str | None, answer: str = "respond") -> Action:
    """Upstream ChatAgent's parser: a non-empty ``<execute>`` body, else a non-empty answer body.

    Unlike :func:`parse_tagged`, an empty ``<execute></execute>`` does not hide a later answer
    (upstream strips each body and moves on when it is empty). ``answer`` is the answer tag:
    ``submit`` in the paper's code, ``respond`` at HEAD.
    """
    text = (text or "").strip()
    thought_match = _THOUGHT.search(text)
    thought = thought_match.group(1).strip() if thought_match else None
    match = _EXECUTE.search(text)
    if match and match.group(1).strip():
        return Action("execute", match.group(1).strip(), thought)
    answered = re.search(rf"<{answer}>(.*?)</{answer}>", text, re.DOTALL)
    if answered and answered.group(1).strip():
        return Action("respond", answered.group(1).strip(), thought)
    return Action("invalid", f"no non-empty <execute> or <{answer}> block", thought)


@dataclass(frozen=True)
class UpstreamToolAction:
    """A tool call as upstream's ToolCallAgent reads it (``--observations naacl|head``).

    Attributes:
        action: The action (``tool``, ``respond`` or ``invalid``).
        arguments: The decoded arguments: any JSON value, as upstream passes it on.
    """

    action: Action
    arguments: object = None


def parse_tool_reply_upstream(reply: ModelReply, answer: str = "respond") -> UpstreamToolAction:
    """Upstream's ``message_action_parser``: the first tool call, its stripped arguments text
    decoded as JSON (a JSON value that is not an object is kept: ToolEnv fails on it later);
    undecodable arguments make the reply invalid."""
    thought = reply.content.strip() or None
    if not reply.tool_calls:
        reason = "reply has no tool call" if reply.content.strip() else "empty reply"
        return UpstreamToolAction(Action("invalid", reason, thought))
    call = reply.tool_calls[0]
    try:
        arguments = json.loads(call.arguments_text.strip())
    except json.JSONDecodeError as exc:
        reason = f"tool {call.name}: arguments are not valid JSON ({exc.msg})"
        return UpstreamToolAction(Action("invalid", reason, thought, call))
    if call.name == answer:
        content = arguments.get("content") if isinstance(arguments, dict) else None
        text = content if isinstance(content, str) else "" if content is None else str(content)
        return UpstreamToolAction(Action("respond", text, thought, call), arguments)
    return UpstreamToolAction(Action("tool", call.name, thought, call), arguments)
