"""Settings shared by every way of running an agent (``crmtui run`` and ``crmtui watch``).

:class:`AgentSettings` holds the model, strategy, task selection and limits, validates them,
and builds the pieces both modes need: the strategy, a model client and the scorer. The
batch and watch settings extend it with what only they need.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from crmtui.errors import ConfigError

__all__ = ["AgentSettings"]


@dataclass(frozen=True)
class AgentSettings:
    """The agent, the instances it works on, and its limits.

    Attributes:
        model: litellm model name.
        strategy: ``react``, ``act`` or ``tool_call``.
        toolset: For ``tool_call``: ``query`` or ``upstream``.
        tasks: Task source (``None`` = the sample org's tasks).
        org: Org path or name (``None`` = the sample org).
        task: Only instances of this task type (code or abbreviation).
        api_base: OpenAI-compatible server URL.
        max_turns: Model calls per instance.
        time_limit_s: Wall-clock limit per instance.
        timeout: Seconds per HTTP attempt.
        aided: Upstream's aided mode (``metadata.optional`` in the prompt).
        llm_extract: Score with LLM answer extraction (upstream HEAD's evaluator).
        extract_model: Model for the extraction (default: ``model``).
        fsync: Sync every recorded event (off only in tests and benchmarks).
        client_options: Further ``ModelClient`` keyword arguments (tests: backoff, retries).
    """

    model: str
    strategy: str = "react"
    toolset: str = "query"
    tasks: str | None = None
    org: str | None = None
    task: str | None = None
    api_base: str | None = None
    max_turns: int = 20
    time_limit_s: float = 600.0
    timeout: float = 60.0
    aided: bool = False
    llm_extract: bool = False
    extract_model: str | None = None
    fsync: bool = True
    client_options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def tasks_label(self) -> str:
        """The task source as recorded in headers."""
        return self.tasks or "sample"

    def check(self) -> None:
        """Reject impossible settings with a one-line :class:`ConfigError`."""
        if not self.model or not self.model.strip():
            raise ConfigError("--model is required (a litellm model name, e.g. openai/gpt-4o)")
        if self.max_turns < 1:
            raise ConfigError(f"--max-turns must be at least 1, got {self.max_turns}")
        if self.time_limit_s <= 0:
            raise ConfigError(f"--time-limit must be positive, got {self.time_limit_s:g}")
        if self.timeout <= 0:
            raise ConfigError(f"--timeout must be positive, got {self.timeout:g}")

    def strategy_object(self) -> Any:
        """The :class:`~crmtui.agent.strategies.Strategy` to play (raises ConfigError)."""
        from crmtui.agent.strategies import make_strategy

        return make_strategy(self.strategy, toolset=self.toolset, model=self.model)

    def client(self, model: str | None = None) -> Any:
        """A model client (imports litellm on first call: build it off the UI thread)."""
        from crmtui.agent.client import ModelClient

        return ModelClient(
            model or self.model,
            api_base=self.api_base,
            timeout=self.timeout,
            **dict(self.client_options),
        )

    def scorer(
        self, instance: Any, client: Callable[[str], Any] | None = None
    ) -> Callable[[str], Any]:
        """The scorer for ``instance``: LLM extraction when asked for, else the default.

        Args:
            instance: The instance being solved.
            client: How to get a client for the extraction model (default: :meth:`client`;
                the batch passes its per-thread cache).
        """
        from crmtui.agent.session import make_scorer

        if not self.llm_extract:
            return make_scorer(instance)
        from crmtui.agent.extract import LLMExtractor

        make_client = client or self.client
        extractor = LLMExtractor(make_client(self.extract_model or self.model))
        return make_scorer(instance, "llm_extract", extractor)
