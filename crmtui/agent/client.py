"""The model client: the only module that imports ``litellm``, and only inside functions.

``ModelClient.complete`` makes one chat-completions call with retries (exponential backoff with
jitter, ``Retry-After`` honoured) on rate limits, server errors, timeouts and dropped
connections, and turns every other failure into a one-line :class:`ModelError`. API keys come
from the environment (or an explicit ``api_key`` for tests); they are never recorded, and any
key-looking text is scrubbed from error messages.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

from crmtui.agent.replies import ModelError, ModelReply, ToolCall, parse_tool_call
from crmtui.secrets import scrub as scrub_secrets  # the one scrubber every writer uses

#: Set to "1" to let litellm fetch its price map and tokenizers from the network.
ONLINE_ENV = "CRMTUI_LITELLM_ONLINE"

# Model families that take no system message / need a large completion budget (upstream's
# lists). Matched on the name after the provider prefix: "o1..." as a prefix, others as parts.
_SINGLE_MESSAGE_MARKERS = ("o3-mini", "deepseek-r1", "gemini-2.5-flash")
_REASONING_MARKERS = ("o3-mini", "deepseek-r1", "gemini-2.5")

_RETRY_CAP_S = 60.0
_MAX_ERROR_CHARS = 300

__all__ = [
    "ModelClient",
    "ModelError",
    "ModelReply",
    "ToolCall",
    "default_max_tokens",
    "load_litellm",
    "parse_tool_call",
    "scrub_secrets",
    "uses_single_user_message",
]

_litellm_lock = threading.Lock()
_litellm_module: ModuleType | None = None


def uses_single_user_message(model: str) -> bool:
    """True for models that take the whole prompt as one user message (no system role)."""
    name = model.rsplit("/", 1)[-1].lower()
    return name.startswith("o1") or any(m in name for m in _SINGLE_MESSAGE_MARKERS)


def default_max_tokens(model: str) -> int:
    """Upstream's completion budget: 50,000 for reasoning models, else 2,000."""
    name = model.rsplit("/", 1)[-1].lower()
    if name.startswith("o1") or any(m in name for m in _REASONING_MARKERS):
        return 50_000
    return 2_000


def _import_litellm() -> ModuleType:
    """The one place litellm is imported (lazily: it costs ~3 s and must follow the flags)."""
    import litellm

    return litellm


def load_litellm(online: bool | None = None) -> ModuleType:
    """Import litellm once, offline unless the user opted in (``CRMTUI_LITELLM_ONLINE=1``).

    The offline flags must be set before the import: litellm fetches its price map at import
    time and tokenizers on first use, each with long retries on a dead network.
    """
    global _litellm_module
    with _litellm_lock:
        if _litellm_module is None:
            if online is None:
                online = os.environ.get(ONLINE_ENV, "").strip().lower() in {"1", "true", "yes"}
            if not online:
                os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
                os.environ["LITELLM_OFFLINE_MODE"] = "true"
            litellm = _import_litellm()
            litellm.suppress_debug_info = True
            _litellm_module = litellm
        return _litellm_module


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= _MAX_ERROR_CHARS else line[: _MAX_ERROR_CHARS - 1] + "…"


class ModelClient:
    """Calls one model through litellm with retries and cost/usage accounting.

    Args:
        model: A litellm model name (``openai/gpt-4o``, ``anthropic/claude-...``).
        api_base: Base URL of an OpenAI-compatible server, when not the provider default.
        timeout: Seconds per HTTP attempt.
        max_retries: Retries after the first attempt for retryable failures.
        temperature: Sampling temperature (upstream uses 0).
        max_tokens: Completion budget; ``None`` picks upstream's default for the model.
        extra: Further keyword arguments for ``litellm.completion``.
        api_key: Explicit key (tests, local servers). Otherwise the provider's env variable.
        stream: Ask for a streamed reply (text arrives through ``on_delta``).
        sleep: Injectable sleep for backoff (tests pass a recorder).
        rng: Injectable random source for jitter.
        backoff_base_s: First backoff delay; doubles per retry, capped at 60 s.
    """

    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        timeout: float = 60,
        max_retries: int = 4,
        temperature: float = 0.0,
        max_tokens: int | None = 2000,
        extra: Mapping[str, Any] | None = None,
        *,
        api_key: str | None = None,
        stream: bool = False,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        backoff_base_s: float = 1.0,
    ) -> None:
        if not model or not model.strip():
            raise ModelError("no model given: pass a litellm model name such as openai/gpt-4o")
        if timeout <= 0:
            raise ModelError(f"timeout must be positive, got {timeout}")
        if max_retries < 0:
            raise ModelError(f"max_retries must be >= 0, got {max_retries}")
        self.model = model.strip()
        self.api_base = api_base
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.temperature = temperature
        self.max_tokens = max_tokens if max_tokens is not None else default_max_tokens(model)
        self.extra = dict(extra or {})
        self.stream = stream
        self._api_key = api_key
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._backoff_base_s = backoff_base_s

    def __repr__(self) -> str:
        return f"ModelClient(model={self.model!r}, api_base={self.api_base!r})"

    def settings(self) -> dict[str, Any]:
        """The call settings worth recording (never the API key)."""
        return {
            "model": self.model,
            "api_base": self.api_base,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "timeout": self.timeout,
            "max_retries": self.max_retries,
            "stream": self.stream,
        }

    @property
    def single_user_message(self) -> bool:
        """Whether prompts for this model must be one user message."""
        return uses_single_user_message(self.model)

    # -- public ----------------------------------------------------------------------------

    def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
        *,
        timeout: float | None = None,
        on_delta: Callable[[str], None] | None = None,
    ) -> ModelReply:
        """One completion, retried on transient failures.

        Args:
            messages: OpenAI-style chat messages.
            tools: OpenAI-style function specs for native tool calling.
            timeout: Time budget for this call, retries and backoff included (e.g. the time
                left in an episode); each attempt also keeps the client's own timeout.
            on_delta: Receives text pieces as they stream in (implies streaming).

        Raises:
            ModelError: On a non-retryable failure or when retries are used up.
        """
        litellm = load_litellm()
        attempts = 0
        began = time.monotonic()
        while True:
            attempts += 1
            start = time.perf_counter()
            left = None if timeout is None else timeout - (time.monotonic() - began)
            try:
                response = self._call(litellm, messages, tools, left, on_delta)
            except Exception as exc:  # noqa: BLE001 - classified below, re-raised if unknown
                retryable, retry_after, message = self._classify(litellm, exc)
                if message is None:
                    raise
                delay = self._delay(attempts, retry_after)
                out_of_time = left is not None and time.monotonic() - began + delay >= timeout
                if not retryable or attempts > self.max_retries or out_of_time:
                    if retryable:
                        plural = "attempt" if attempts == 1 else "attempts"
                        message += f" (gave up after {attempts} {plural})"
                    raise ModelError(message, retryable=retryable, attempts=attempts) from None
                self._sleep(delay)
                continue
            latency_ms = (time.perf_counter() - start) * 1000
            return self._reply(litellm, response, latency_ms, attempts)

    # -- internals -------------------------------------------------------------------------

    def _call(
        self,
        litellm: ModuleType,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None,
        timeout: float | None,
        on_delta: Callable[[str], None] | None,
    ) -> Any:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [dict(m) for m in messages],
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "timeout": self._attempt_timeout(timeout),
            # Our own loop does the retrying; the SDK's would hide attempts and Retry-After.
            "max_retries": 0,
            "num_retries": 0,
            # Reasoning models reject temperature=0; drop what a provider does not take.
            "drop_params": True,
        }
        if tools:
            kwargs["tools"] = [dict(t) for t in tools]
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self._api_key:
            kwargs["api_key"] = self._api_key
        kwargs.update(self.extra)
        if not (self.stream or on_delta):
            return litellm.completion(**kwargs)
        kwargs["stream"] = True
        kwargs["stream_options"] = {"include_usage": True}
        chunks = []
        for chunk in litellm.completion(**kwargs):
            chunks.append(chunk)
            if on_delta and chunk.choices:
                piece = getattr(chunk.choices[0].delta, "content", None)
                if piece:
                    on_delta(piece)
        built = litellm.stream_chunk_builder(chunks, messages=kwargs["messages"])
        if built is None:
            raise ModelError(f"model {self.model} sent an empty stream")
        return built

    def _attempt_timeout(self, timeout: float | None) -> float:
        # A caller's limit (time left in an episode) can only shorten the client's own.
        return self.timeout if timeout is None else max(0.001, min(self.timeout, timeout))

    def _classify(
        self, litellm: ModuleType, exc: Exception
    ) -> tuple[bool, float | None, str | None]:
        """(retryable, retry_after_s, one-line message); message None = not a model error."""
        model = self.model
        detail = _one_line(scrub_secrets(str(exc), [self._api_key or ""]))
        if isinstance(exc, ModelError):
            return False, None, str(exc)
        if isinstance(exc, litellm.AuthenticationError):
            return False, None, f"authentication failed for model {model}: {self._key_hint()}"
        if isinstance(exc, litellm.RateLimitError):
            return True, _retry_after(exc), f"rate limited by the provider of {model}: {detail}"
        if isinstance(exc, litellm.Timeout):
            limit = f"{self.timeout:g} s"
            return True, None, f"model {model} did not answer within {limit}"
        # litellm reports a refused/dropped connection from the OpenAI SDK as a 500
        # "Connection error."; say what actually happened.
        if isinstance(exc, litellm.APIConnectionError) or "Connection error" in str(exc):
            return True, None, f"cannot reach the provider of {model}: {detail}"
        status = getattr(exc, "status_code", None)
        if isinstance(exc, litellm.NotFoundError):
            return False, None, f"model {model} not found: {detail}"
        if isinstance(exc, litellm.PermissionDeniedError):
            return False, None, f"access to model {model} denied: {detail}"
        if isinstance(exc, litellm.ContextWindowExceededError):
            return False, None, f"prompt too long for model {model}: {detail}"
        if isinstance(exc, litellm.BadRequestError):
            return False, None, f"model {model} rejected the request: {detail}"
        if isinstance(status, int) and (status >= 500 or status in (408, 409)):
            return True, _retry_after(exc), f"server error {status} from {model}: {detail}"
        if isinstance(exc, litellm.APIError | litellm.OpenAIError):
            return False, None, f"model {model} call failed: {detail}"
        return False, None, None

    def _key_hint(self) -> str:
        litellm = load_litellm()
        try:
            missing = litellm.validate_environment(self.model).get("missing_keys") or []
        except Exception:  # noqa: BLE001 - a hint only; never hide the real error behind it
            missing = []
        if missing:
            return "set " + " / ".join(missing)
        return "check the API key for this provider"

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), _RETRY_CAP_S)
        ceiling = min(self._backoff_base_s * 2 ** (attempt - 1), _RETRY_CAP_S)
        # "Equal jitter": at least half the exponential step, so retries stay spread out.
        return ceiling / 2 + self._rng.uniform(0, ceiling / 2)

    def _reply(
        self, litellm: ModuleType, response: Any, latency_ms: float, attempts: int
    ) -> ModelReply:
        choice = response.choices[0]
        message = choice.message
        calls = [
            parse_tool_call(c.id or f"call_{i}", c.function.name or "", c.function.arguments)
            for i, c in enumerate(getattr(message, "tool_calls", None) or [])
        ]
        usage = getattr(response, "usage", None)
        prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        return ModelReply(
            content=message.content or "",
            tool_calls=calls,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cost=self._cost(litellm, response),
            latency_ms=latency_ms,
            finish_reason=choice.finish_reason,
            attempts=attempts,
            raw=response,
        )

    def _cost(self, litellm: ModuleType, response: Any) -> float | None:
        hidden = getattr(response, "_hidden_params", None) or {}
        cost = hidden.get("response_cost")
        if isinstance(cost, int | float):
            return float(cost)
        try:
            return float(litellm.completion_cost(completion_response=response, model=self.model))
        except Exception:  # noqa: BLE001 - litellm raises many kinds for unpriced models
            return None


def _retry_after(exc: Exception) -> float | None:
    """Seconds from a ``Retry-After`` (or ``retry-after-ms``) header on the error, if any."""
    headers: Mapping[str, str] | None = None
    response = getattr(exc, "response", None)
    if response is not None:
        headers = getattr(response, "headers", None)
    if headers is None:
        headers = getattr(exc, "headers", None)
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in dict(headers).items()}
    try:
        if "retry-after-ms" in lowered:
            return float(lowered["retry-after-ms"]) / 1000
        if "retry-after" in lowered:
            return float(lowered["retry-after"])
    except ValueError:
        # An HTTP-date Retry-After: fall back to our own backoff.
        return None
    return None
