"""Classifying a failed model call: retry or not, after how long, of which kind, said how.

Kept apart from :mod:`crmtui.agent.client` so the rules read as one table. ``litellm`` is
passed in (never imported here): its exception classes decide most cases.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType

from crmtui.agent.deadline import DeadlineExceeded
from crmtui.agent.replies import ModelError
from crmtui.agent.secrets import scrub_secrets

__all__ = ["Failure", "classify", "one_line", "retry_after"]

_MAX_ERROR_CHARS = 300
# What litellm says when the body of a 200 reply is not the JSON it expected.
_UNREADABLE_MARKERS = ("Received response", "Expecting value", "JSONDecodeError")
# ... and when the JSON does not have the shape of a completion.
_BAD_SHAPE_MARKERS = ("Invalid response object",)
_MISSING_KEY_MARKERS = ("Missing credentials", "api_key client option must be set")


@dataclass(frozen=True)
class Failure:
    """How one failed attempt is handled.

    Attributes:
        kind: One of :data:`crmtui.agent.replies.ERROR_KINDS`.
        message: One line for the user (secrets scrubbed).
        retryable: Whether another attempt may succeed.
        retry_after: Seconds the provider asked us to wait, when it said so sanely.
    """

    kind: str
    message: str
    retryable: bool = False
    retry_after: float | None = None


def one_line(text: str) -> str:
    """``text`` on one line, cut to a readable length."""
    line = " ".join(text.split())
    return line if len(line) <= _MAX_ERROR_CHARS else line[: _MAX_ERROR_CHARS - 1] + "…"


def classify(
    litellm: ModuleType,
    exc: Exception,
    *,
    model: str,
    timeout: float,
    at_budget: bool,
    secrets: Sequence[str],
    key_hint: Callable[[], str],
) -> Failure:
    """What a failed attempt means.

    Args:
        litellm: The litellm module (its exception classes).
        exc: What the attempt raised.
        model: The model name, for messages.
        timeout: The client's per-attempt limit, for messages.
        at_budget: The attempt's deadline was the caller's whole budget (not the per-attempt
            limit): a timeout then means no time is left.
        secrets: Values to scrub from the provider's text.
        key_hint: Says which variable to set, for authentication failures.
    """
    detail = one_line(scrub_secrets(str(exc), secrets))
    if isinstance(exc, ModelError):
        return Failure(exc.kind, str(exc), retryable=exc.retryable)
    if isinstance(exc, DeadlineExceeded):
        if at_budget:
            return Failure("unavailable", f"model {model} did not answer in the time left")
        limit = f"{timeout:g} s"
        return Failure("unavailable", f"model {model} did not answer within {limit}", True)
    if isinstance(exc, litellm.AuthenticationError) or any(
        marker in str(exc) for marker in _MISSING_KEY_MARKERS
    ):
        return Failure("config", f"authentication failed for model {model}: {key_hint()}")
    if isinstance(exc, litellm.RateLimitError):
        message = f"rate limited by the provider of {model}: {detail}"
        return Failure("unavailable", message, True, retry_after(exc))
    if isinstance(exc, litellm.Timeout):
        limit = f"{timeout:g} s"
        return Failure("unavailable", f"model {model} did not answer within {limit}", True)
    if any(marker in str(exc) for marker in _UNREADABLE_MARKERS):
        return Failure("malformed", f"model {model} sent a reply that is not valid JSON")
    if any(marker in str(exc) for marker in _BAD_SHAPE_MARKERS):
        message = f"model {model} sent a reply crmtui cannot read (not a chat completion)"
        return Failure("malformed", message)
    # litellm reports a refused/dropped connection from the OpenAI SDK as a 500
    # "Connection error."; say what actually happened.
    if isinstance(exc, litellm.APIConnectionError) or "Connection error" in str(exc):
        return Failure("unreachable", f"cannot reach the provider of {model}: {detail}", True)
    status = getattr(exc, "status_code", None)
    if isinstance(exc, litellm.NotFoundError):
        return Failure("config", f"model {model} not found: {detail}")
    if isinstance(exc, litellm.PermissionDeniedError):
        return Failure("config", f"access to model {model} denied: {detail}")
    if isinstance(exc, litellm.ContextWindowExceededError):
        return Failure("rejected", f"prompt too long for model {model}: {detail}")
    if isinstance(exc, litellm.BadRequestError):
        if "LLM Provider NOT provided" in str(exc):
            return Failure("config", f"litellm knows no provider for model {model!r}")
        return Failure("rejected", f"model {model} rejected the request: {detail}")
    if isinstance(status, int) and (status >= 500 or status in (408, 409)):
        message = f"server error {status} from {model}: {detail}"
        return Failure("unavailable", message, True, retry_after(exc))
    if isinstance(exc, litellm.APIError | litellm.OpenAIError):
        return Failure("rejected", f"model {model} call failed: {detail}")
    # Anything else came out of parsing the provider's reply inside litellm.
    reason = f"{type(exc).__name__}: {detail}"
    return Failure("malformed", f"model {model} sent a reply crmtui cannot read ({reason})")


def retry_after(exc: Exception) -> float | None:
    """Seconds from a ``Retry-After`` (or ``retry-after-ms``) header on the error, if sane.

    A value that is not a finite, non-negative number (``nan``, ``inf``, ``-3``, an HTTP
    date) is ignored: our own backoff applies instead.
    """
    headers: Mapping[str, str] | None = None
    response = getattr(exc, "response", None)
    if response is not None:
        headers = getattr(response, "headers", None)
    if headers is None:
        headers = getattr(exc, "headers", None)
    if not headers:
        return None
    try:
        lowered = {str(k).lower(): v for k, v in dict(headers).items()}
    except (TypeError, ValueError):
        return None
    try:
        if "retry-after-ms" in lowered:
            value = float(lowered["retry-after-ms"]) / 1000
        elif "retry-after" in lowered:
            value = float(lowered["retry-after"])
        else:
            return None
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) and value >= 0 else None
