"""Settings of ``crmtui watch`` and the pieces built from them (no UI imports).

The watch app gets a :class:`WatchConfig`; :meth:`WatchConfig.client` and
:meth:`WatchConfig.scorer` build the model client and scorer in the agent's worker thread, so
litellm is imported off the UI thread.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crmtui.errors import ConfigError

__all__ = ["WatchConfig"]


@dataclass(frozen=True)
class WatchConfig:
    """Everything ``crmtui watch`` needs.

    Attributes:
        model: litellm model name.
        strategy: ``react``, ``act`` or ``tool_call``.
        toolset: For ``tool_call``: ``query`` or ``upstream``.
        tasks: Task source (``None`` = the sample org's tasks).
        org: Org path or name (``None`` = the sample org).
        task: Watch the first instance of this task type.
        idx: Watch this instance.
        recordings: Root folder of recordings.
        api_base: OpenAI-compatible server URL.
        max_turns: Model calls per instance.
        time_limit_s: Wall-clock limit per instance.
        timeout: Seconds per HTTP attempt.
        aided: Upstream's aided mode.
        llm_extract: Score with LLM answer extraction.
        extract_model: Model for the extraction (default: ``model``).
        delay: Seconds between steps (the speed control starts here).
        paused: Start paused (press step or resume to begin).
        stream: Stream reply text into the transcript as it arrives.
        fsync: Sync every recorded event (off only in tests).
        client_options: Further ``ModelClient`` keyword arguments (tests).
    """

    model: str
    strategy: str = "react"
    toolset: str = "query"
    tasks: str | None = None
    org: str | None = None
    task: str | None = None
    idx: int | None = None
    recordings: Path = Path("recordings")
    api_base: str | None = None
    max_turns: int = 20
    time_limit_s: float = 600.0
    timeout: float = 60.0
    aided: bool = False
    llm_extract: bool = False
    extract_model: str | None = None
    delay: float = 0.0
    paused: bool = False
    stream: bool = True
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
        if self.delay < 0:
            raise ConfigError(f"--delay must be >= 0, got {self.delay:g}")

    def strategy_object(self) -> Any:
        """The :class:`~crmtui.agent.strategies.Strategy` to play (raises ConfigError)."""
        from crmtui.agent.strategies import make_strategy

        return make_strategy(self.strategy, toolset=self.toolset, model=self.model)

    def client(self, model: str | None = None) -> Any:
        """A model client (imports litellm on first call; run it in a worker)."""
        from crmtui.agent.client import ModelClient

        return ModelClient(
            model or self.model,
            api_base=self.api_base,
            timeout=self.timeout,
            **dict(self.client_options),
        )

    def scorer(self, instance: Any) -> Callable[[str], Any]:
        """The scorer for ``instance`` (LLM extraction when asked for)."""
        from crmtui.agent.session import make_scorer

        if not self.llm_extract:
            return make_scorer(instance)
        from crmtui.agent.extract import LLMExtractor

        extractor = LLMExtractor(self.client(self.extract_model or self.model))
        return make_scorer(instance, "llm_extract", extractor)
