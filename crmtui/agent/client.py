"""The model client: the only module that imports ``litellm``, and only inside functions.

``ModelClient.complete`` makes one chat-completions call with retries (exponential backoff with
jitter, a sane ``Retry-After`` honoured) on rate limits, server errors, timeouts and dropped
connections, and turns every other failure into a one-line :class:`ModelError` whose ``kind``
says what a batch should do next (see :data:`~crmtui.agent.replies.ERROR_KINDS`). Each
attempt has a total deadline that holds mid-call and can be cancelled at once (see
:mod:`crmtui.agent.deadline`). A streamed request answered with nothing is asked again
without streaming; when that works, the client streams no more. API keys come from the
environment (or an explicit ``api_key`` for tests); they are never recorded, and any
key-looking text is scrubbed from error messages.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

from crmtui.agent.client_errors import Failure, classify
from crmtui.agent.deadline import Abandon, CallCancelled, call_with_deadline
from crmtui.agent.families import default_max_tokens, uses_single_user_message
from crmtui.agent.providers import key_hint
from crmtui.agent.replies import (
    ModelCancelled,
    ModelError,
    ModelReply,
    ToolCall,
    parse_tool_call,
    read_completion,
)
from crmtui.agent.secrets import scrub_secrets

#: Set to "1" to let litellm fetch its price map and tokenizers from the network.
ONLINE_ENV = "CRMTUI_LITELLM_ONLINE"

_RETRY_CAP_S = 60.0

__all__ = [
    "ModelCancelled",
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


def _import_litellm() -> ModuleType:
    """The one place litellm is imported (lazily: it is slow to import, see
    docs/performance.md, and must follow the flags)."""
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
            _warm_up(litellm)
            _litellm_module = litellm
        return _litellm_module


def _warm_up(litellm: ModuleType) -> None:
    """Make one offline mock call, so the first real call pays no lazy imports.

    litellm's first completion imports its HTTP stack (about a second, several on a loaded
    machine); without this, that time would count against the first call's deadline.
    """
    messages = [{"role": "user", "content": "warm-up"}]
    with contextlib.suppress(Exception):
        litellm.completion(model="openai/warm-up", messages=messages, mock_response="ok")


def _deployment_of(response: Any) -> str | None:
    """The router deployment that produced ``response`` (its name, else its URL)."""
    hidden = getattr(response, "_hidden_params", None) or {}
    name = hidden.get("model_id") or hidden.get("api_base")
    return str(name) if name else None


def _is_empty(response: Any) -> bool:
    """A completion without choices, or whose message has no text and no tool call."""
    choices = getattr(response, "choices", None)
    if not choices:
        return True
    message = getattr(choices[0], "message", None)
    return not (getattr(message, "content", None) or getattr(message, "tool_calls", None))


class ModelClient:
    """Calls one model through litellm with retries and cost/usage accounting.

    Args:
        model: A litellm model name (``openai/gpt-4o``, ``anthropic/claude-...``).
        api_base: Base URL of an OpenAI-compatible server, when not the provider default.
        timeout: Seconds one HTTP attempt may take in total, first byte to last (a server
            that trickles its reply is cut off here too); each retry gets its own.
        max_retries: Retries after the first attempt for retryable failures.
        temperature: Sampling temperature (upstream uses 0); ``None`` sends none.
        max_tokens: Completion budget; ``None`` picks upstream's default for the model.
        extra: Further keyword arguments for ``litellm.completion``.
        api_key: Explicit key (tests, local servers). Otherwise the provider's env variable.
        stream: Ask for a streamed reply (text arrives through ``on_delta``).
        sleep: Injectable sleep for backoff (tests pass a recorder).
        rng: Injectable random source for jitter.
        backoff_base_s: First backoff delay; doubles per retry, capped at 60 s.
        router: A ``litellm.Router`` over several servers
            (:func:`crmtui.agent.deployments.build_router`); calls go through it and each
            reply names the deployment that answered.

    Attributes:
        streaming_off: Set once a streamed request came back empty and the same request
            without streaming did not: later calls do not stream.
    """

    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        timeout: float = 60,
        max_retries: int = 4,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
        extra: Mapping[str, Any] | None = None,
        *,
        api_key: str | None = None,
        stream: bool = False,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        backoff_base_s: float = 1.0,
        router: Any = None,
    ) -> None:
        if not model or not model.strip():
            raise ModelError(
                "no model given: pass a litellm model name such as openai/gpt-4o", kind="config"
            )
        if not (timeout > 0 and math.isfinite(timeout)):
            raise ModelError(f"timeout must be a positive number, got {timeout}", kind="config")
        if max_retries < 0:
            raise ModelError(f"max_retries must be >= 0, got {max_retries}", kind="config")
        self.model = model.strip()
        self.api_base = api_base
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.temperature = temperature
        self.max_tokens = max_tokens if max_tokens is not None else default_max_tokens(model)
        self.extra = dict(extra or {})
        self.stream = stream
        self.streaming_off = False
        self._api_key = api_key
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._backoff_base_s = backoff_base_s
        self.router = router

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
            "stream": self.stream and not self.streaming_off,
            "router": self.router is not None,
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
        cancel: threading.Event | None = None,
    ) -> ModelReply:
        """One completion, retried on transient failures.

        Args:
            messages: OpenAI-style chat messages.
            tools: OpenAI-style function specs for native tool calling.
            timeout: Time budget for this call, retries and backoff included (e.g. the time
                left in an episode); each attempt also keeps the client's own timeout.
            on_delta: Receives text pieces as they stream in (implies streaming).
            cancel: When set (from any thread), the call is abandoned at once and
                :class:`ModelCancelled` raised.

        Raises:
            ModelError: On a non-retryable failure or when retries are used up.
            ModelCancelled: ``cancel`` was set.
        """
        litellm = load_litellm()
        attempts = 0
        began = time.monotonic()
        budget_end = None if timeout is None else began + max(0.0, timeout)
        while True:
            attempts += 1
            start = time.perf_counter()
            attempt_end = time.monotonic() + self.timeout
            if budget_end is not None:
                attempt_end = min(attempt_end, budget_end)
            try:
                response, fell_back = self._attempt(
                    litellm, messages, tools, attempt_end, on_delta, cancel
                )
            except CallCancelled:
                raise ModelCancelled() from None
            except Exception as exc:  # noqa: BLE001 - every failure is classified below
                failure = self._classify(litellm, exc, attempt_end == budget_end)
                delay = self._delay(attempts, failure.retry_after)
                out_of_time = budget_end is not None and time.monotonic() + delay >= budget_end
                if not failure.retryable or attempts > self.max_retries or out_of_time:
                    message = failure.message
                    if failure.retryable:
                        plural = "attempt" if attempts == 1 else "attempts"
                        message += f" (gave up after {attempts} {plural})"
                    raise ModelError(
                        message, retryable=failure.retryable, attempts=attempts, kind=failure.kind
                    ) from None
                self._wait(delay, cancel)
                continue
            latency_ms = (time.perf_counter() - start) * 1000
            return self._reply(litellm, response, latency_ms, attempts, fell_back)

    # -- internals -------------------------------------------------------------------------

    def _attempt(
        self,
        litellm: ModuleType,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None,
        deadline: float,
        on_delta: Callable[[str], None] | None,
        cancel: threading.Event | None,
    ) -> tuple[Any, bool]:
        """One HTTP attempt within ``deadline``; an empty stream is asked again unstreamed."""
        stream = (self.stream or on_delta is not None) and not self.streaming_off

        def call(streamed: bool) -> Any:
            def run(abandon: Abandon) -> Any:
                left = deadline - time.monotonic()
                return self._call(litellm, messages, tools, left, on_delta, streamed, abandon)

            return call_with_deadline(run, deadline, cancel=cancel)

        response = call(stream)
        if not (stream and _is_empty(response)):
            return response, False
        # Some OpenAI-compatible servers ignore ``stream`` (or stream nothing): ask once more
        # without streaming; if that answers, streaming stays off for this client.
        again = call(False)
        if _is_empty(again):
            return again, False
        self.streaming_off = True
        if on_delta is not None:
            content = getattr(again.choices[0].message, "content", None)
            if isinstance(content, str) and content:
                on_delta(content)
        return again, True

    def _call(
        self,
        litellm: ModuleType,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None,
        timeout: float,
        on_delta: Callable[[str], None] | None,
        stream: bool,
        abandon: Abandon,
    ) -> Any:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [dict(m) for m in messages],
            "max_tokens": self.max_tokens,
            # Per read, inside the total deadline the caller keeps.
            "timeout": max(0.001, timeout),
            # Our own loop does the retrying; the SDK's would hide attempts and Retry-After.
            "max_retries": 0,
            "num_retries": 0,
            # Reasoning models reject temperature=0; drop what a provider does not take.
            "drop_params": True,
        }
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        if tools:
            kwargs["tools"] = [dict(t) for t in tools]
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self._api_key:
            kwargs["api_key"] = self._api_key
        kwargs.update(self.extra)
        target: Any = litellm
        if self.router is not None:
            from crmtui.agent.deployments import GROUP

            # The router picks the server, its key and its retries across servers.
            for key in ("api_base", "api_key", "max_retries", "num_retries"):
                kwargs.pop(key, None)
            kwargs["model"] = GROUP
            target = self.router
        if not stream:
            return target.completion(**kwargs)
        kwargs["stream"] = True
        kwargs["stream_options"] = {"include_usage": True}
        chunks = []
        deployment = None
        for chunk in target.completion(**kwargs):
            if deployment is None:
                deployment = _deployment_of(chunk)
            if abandon.is_set:
                break  # the caller gave up: stop reading (closes the connection)
            chunks.append(chunk)
            if on_delta and chunk.choices:
                piece = getattr(chunk.choices[0].delta, "content", None)
                if piece:
                    on_delta(piece)
        if not chunks:
            return None
        built = litellm.stream_chunk_builder(chunks, messages=kwargs["messages"])
        if deployment is not None and built is not None:
            built._crmtui_deployment = deployment  # the builder drops the chunks' hidden params
        return built

    def _wait(self, delay: float, cancel: threading.Event | None) -> None:
        """Back off ``delay`` seconds; a cancel request cuts the wait short."""
        if cancel is not None and self._sleep is time.sleep:
            if cancel.wait(delay):
                raise ModelCancelled()
            return
        self._sleep(delay)
        if cancel is not None and cancel.is_set():
            raise ModelCancelled()

    def _classify(self, litellm: ModuleType, exc: Exception, at_budget: bool) -> Failure:
        """What a failed attempt means (see :func:`crmtui.agent.client_errors.classify`)."""
        return classify(
            litellm,
            exc,
            model=self.model,
            timeout=self.timeout,
            at_budget=at_budget,
            secrets=[self._api_key or ""],
            key_hint=self._key_hint,
        )

    def _key_hint(self) -> str:
        return key_hint(self.model, explicit_key=bool(self._api_key))

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, _RETRY_CAP_S)
        ceiling = min(self._backoff_base_s * 2 ** (attempt - 1), _RETRY_CAP_S)
        # "Equal jitter": at least half the exponential step, so retries stay spread out.
        return ceiling / 2 + self._rng.uniform(0, ceiling / 2)

    def _reply(
        self,
        litellm: ModuleType,
        response: Any,
        latency_ms: float,
        attempts: int,
        stream_fallback: bool,
    ) -> ModelReply:
        """The reply's useful parts; an unreadable one is a ``malformed`` ModelError."""
        reply = read_completion(
            response,
            model=self.model,
            cost=lambda: self._cost(litellm, response),
            latency_ms=latency_ms,
            attempts=attempts,
            stream_fallback=stream_fallback,
        )
        if self.router is None:
            return reply
        deployment = getattr(response, "_crmtui_deployment", None) or _deployment_of(response)
        return dataclasses.replace(reply, deployment=deployment)

    def _cost(self, litellm: ModuleType, response: Any) -> float | None:
        if self.model in getattr(self.router, "crmtui_unpriced", ()):
            return None  # a router deployment's model litellm has no price for (not 0.0)
        hidden = getattr(response, "_hidden_params", None) or {}
        cost = hidden.get("response_cost")
        if isinstance(cost, int | float) and math.isfinite(cost):
            return float(cost)
        try:
            value = float(litellm.completion_cost(completion_response=response, model=self.model))
        except Exception:  # noqa: BLE001 - litellm raises many kinds for unpriced models
            return None
        return value if math.isfinite(value) else None
