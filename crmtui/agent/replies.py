"""Provider-neutral results of a model call: replies, tool calls and the model error type.

Kept apart from :mod:`crmtui.agent.client` so readers of recordings and test doubles can use
them without touching the litellm-facing code.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from crmtui.errors import CrmtuiError

__all__ = [
    "ERROR_KINDS",
    "ModelCancelled",
    "ModelError",
    "ModelReply",
    "ToolCall",
    "parse_tool_call",
    "read_completion",
]

#: What went wrong in a failed model call, which decides what a batch does next:
#:
#: * ``unavailable``: rate limits, 5xx, timeouts, dropped connections; retried in the call,
#:   then the instance ends as a model error that a resumed run tries again.
#: * ``malformed``: a reply crmtui cannot read (no choices, invalid JSON, lone surrogates);
#:   the instance ends as a model error, scored 0 and finished.
#: * ``rejected``: the provider refused this request (bad request, prompt too long);
#:   scored 0 and finished.
#: * ``unreachable``: no connection to the server, even after retries; nothing reached a
#:   model, so there is no outcome: a batch stops (the server is gone) and runs it again.
#: * ``config``: the run cannot work at all (bad key, unknown model, no permission, server
#:   refusing connections); the batch stops at once and writes no result for it.
#: * ``cancelled``: the caller abandoned the call (Ctrl-C, stop).
ERROR_KINDS = ("unavailable", "unreachable", "malformed", "rejected", "config", "cancelled")


class ModelError(CrmtuiError):
    """A model call failed for good (after retries, or at once for a non-retryable error).

    Attributes:
        retryable: Whether the last failure was of a kind that retries could have fixed.
        attempts: How many HTTP attempts were made.
        kind: One of :data:`ERROR_KINDS`.
    """

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        attempts: int = 1,
        kind: str = "rejected",
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.attempts = attempts
        self.kind = kind
        if kind == "config":
            self.exit_code = 2  # a configuration mistake, like a bad option


class ModelCancelled(ModelError):
    """The call was abandoned because the caller was asked to stop."""

    def __init__(self, message: str = "model call cancelled") -> None:
        super().__init__(message, kind="cancelled")


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
    if "\\u" in text and not _valid_unicode(json.dumps(value, ensure_ascii=False)):
        # Valid JSON can still escape a lone surrogate ("\\ud800"): no file can store it.
        return ToolCall(
            call_id,
            name,
            text,
            None,
            "arguments hold text that is not valid Unicode (a lone "
            "surrogate escape such as \\ud800)",
        )
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
        deployment: Which of several model servers answered (``--api-base`` repeated or
            ``--deployments``); ``None`` with one server.
        stream_fallback: This call asked for a stream, got an empty one, and was answered
            by a repeat without streaming (streaming stays off for the client after it).
        content_null: The provider sent no text at all (``null``), not an empty one:
            upstream's agents raise on ``None.strip()`` but go on after ``""``.
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
    stream_fallback: bool = False
    deployment: str | None = None
    content_null: bool = False

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens


def _valid_unicode(text: str | None) -> bool:
    """False when ``text`` holds lone surrogates (a reply no file can store as UTF-8)."""
    if not text:
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def read_completion(
    response: Any,
    *,
    model: str,
    cost: Callable[[], float | None],
    latency_ms: float,
    attempts: int,
    stream_fallback: bool = False,
) -> ModelReply:
    """The useful parts of a chat completion (litellm's response object, read duck-typed).

    Raises:
        ModelError: Kind ``malformed``: no choices, fields of the wrong shape, or text with
            lone surrogates (which no UTF-8 file can store).
    """
    if response is None or not getattr(response, "choices", None):
        raise ModelError(f"model {model} sent a reply with no choices", kind="malformed")
    try:
        choice = response.choices[0]
        message = choice.message
        calls = [
            parse_tool_call(c.id or f"call_{i}", c.function.name or "", c.function.arguments)
            for i, c in enumerate(getattr(message, "tool_calls", None) or [])
        ]
        content_null = message.content is None
        content = message.content or ""
        if not isinstance(content, str):
            raise TypeError(f"content is {type(content).__name__}, not text")
        usage = getattr(response, "usage", None)
        prompt_tokens = max(0, int(getattr(usage, "prompt_tokens", 0) or 0))
        completion_tokens = max(0, int(getattr(usage, "completion_tokens", 0) or 0))
        finish_reason = choice.finish_reason
    except (AttributeError, IndexError, KeyError, TypeError, ValueError) as exc:
        detail = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        raise ModelError(
            f"model {model} sent a reply crmtui cannot read ({detail})", kind="malformed"
        ) from None
    texts = [content, *(c.name for c in calls), *(c.arguments_text for c in calls)]
    if not all(_valid_unicode(t) for t in texts):
        raise ModelError(
            f"model {model} sent text that is not valid Unicode (a lone surrogate)",
            kind="malformed",
        )
    return ModelReply(
        content=content,
        tool_calls=calls,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        cost=cost(),
        latency_ms=latency_ms,
        finish_reason=finish_reason if isinstance(finish_reason, str) else None,
        attempts=attempts,
        raw=response,
        stream_fallback=stream_fallback,
        content_null=content_null,
    )
