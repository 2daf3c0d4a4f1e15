"""Provider-neutral results of a model call: replies, tool calls and the model error type.

Kept apart from :mod:`crmtui.agent.client` so readers of recordings and test doubles can use
them without touching the litellm-facing code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from crmtui.errors import CrmtuiError

__all__ = ["ModelError", "ModelReply", "ToolCall", "parse_tool_call"]


class ModelError(CrmtuiError):
    """A model call failed for good (after retries, or at once for a non-retryable error).

    Attributes:
        retryable: Whether the last failure was of a kind that retries could have fixed.
        attempts: How many HTTP attempts were made.
    """

    def __init__(self, message: str, *, retryable: bool = False, attempts: int = 1) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.attempts = attempts


@dataclass(frozen=True)
class ToolCall:
    """One native tool call from a reply.

    Attributes:
        id: Provider id, echoed back in the tool result message.
        name: Function name.
        arguments_text: The raw JSON text the model wrote.
        arguments: The decoded object, or ``None`` when the text is not a JSON object.
        parse_error: Why decoding failed, when it did.
    """

    id: str
    name: str
    arguments_text: str
    arguments: dict[str, Any] | None
    parse_error: str | None = None

    def to_json(self) -> dict[str, Any]:
        """A plain dict for recordings (``id``, ``name``, ``arguments``: the raw text)."""
        return {"id": self.id, "name": self.name, "arguments": self.arguments_text}

    def to_message(self) -> dict[str, Any]:
        """The OpenAI ``tool_calls`` entry for an assistant message."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments_text},
        }


def parse_tool_call(call_id: str, name: str, arguments_text: str | None) -> ToolCall:
    """Decode a tool call's argument text, keeping the failure reason instead of raising."""
    text = arguments_text or ""
    try:
        value = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        return ToolCall(call_id, name, text, None, f"arguments are not valid JSON ({exc.msg})")
    if not isinstance(value, dict):
        return ToolCall(call_id, name, text, None, "arguments must be a JSON object")
    return ToolCall(call_id, name, text, value, None)


@dataclass(frozen=True)
class ModelReply:
    """The useful parts of one completion.

    Attributes:
        content: Assistant text ("" when none).
        tool_calls: Native tool calls in the order given.
        prompt_tokens: Reported prompt tokens (0 when the provider reports none).
        completion_tokens: Reported completion tokens.
        cost: USD cost from litellm's price map, or ``None`` when the model has no known price.
        latency_ms: Wall time of the successful attempt.
        finish_reason: Provider finish reason.
        attempts: HTTP attempts made (1 = no retry).
        raw: The litellm response object (not serialisable; for debugging only).
    """

    content: str
    tool_calls: list[ToolCall]
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    latency_ms: float
    finish_reason: str | None
    attempts: int = 1
    raw: Any = field(default=None, repr=False, compare=False)

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens
