"""The data of a batch run: its settings, each attempt's outcome, running totals, the report.

Kept apart from :mod:`crmtui.agent.batch` (the run loop) so displays and tests can use them
without the threading code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crmtui.agent.batch_files import SummaryRow
from crmtui.agent.runner import AgentResult
from crmtui.errors import ConfigError

__all__ = ["BatchConfig", "BatchReport", "InstanceOutcome", "Tally"]


@dataclass(frozen=True)
class BatchConfig:
    """Settings of one ``crmtui run``.

    Attributes:
        model: litellm model name.
        strategy: ``react``, ``act`` or ``tool_call``.
        toolset: For ``tool_call``: ``query`` or ``upstream``.
        tasks: Task source (``None`` = the sample org's tasks).
        org: Org path or name (``None`` = the sample org).
        task: Only this task type (code or abbreviation).
        idxs: Only these instance idx values.
        limit: At most this many of the selected instances.
        concurrency: Instances in flight at once.
        out: Output folder (recordings under ``out/recordings``, results file in ``out``).
        api_base: OpenAI-compatible server URL.
        max_turns: Model calls per instance.
        time_limit_s: Wall-clock limit per instance.
        aided: Upstream's aided mode (``metadata.optional`` in the prompt).
        llm_extract: Score with LLM answer extraction (upstream HEAD's evaluator).
        extract_model: Model for the extraction (default: ``model``).
        timeout: Seconds per HTTP attempt.
        fsync: Sync every recorded event (off only in tests and benchmarks).
        client_options: Further ``ModelClient`` keyword arguments (tests: backoff, retries).
    """

    model: str
    strategy: str = "react"
    toolset: str = "query"
    tasks: str | None = None
    org: str | None = None
    task: str | None = None
    idxs: tuple[int, ...] = ()
    limit: int | None = None
    concurrency: int = 1
    out: Path = Path("runs")
    api_base: str | None = None
    max_turns: int = 20
    time_limit_s: float = 600.0
    aided: bool = False
    llm_extract: bool = False
    extract_model: str | None = None
    timeout: float = 60.0
    fsync: bool = True
    client_options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def tasks_label(self) -> str:
        """The task source as recorded in headers."""
        return self.tasks or "sample"

    @property
    def recordings(self) -> Path:
        """Where the per-instance recordings go."""
        return Path(self.out) / "recordings"

    def check(self) -> None:
        """Reject impossible settings with a one-line :class:`ConfigError`."""
        if not self.model or not self.model.strip():
            raise ConfigError("--model is required (a litellm model name, e.g. openai/gpt-4o)")
        if self.concurrency < 1:
            raise ConfigError(f"--concurrency must be at least 1, got {self.concurrency}")
        if self.max_turns < 1:
            raise ConfigError(f"--max-turns must be at least 1, got {self.max_turns}")
        if self.time_limit_s <= 0:
            raise ConfigError(f"--time-limit must be positive, got {self.time_limit_s:g}")
        if self.timeout <= 0:
            raise ConfigError(f"--timeout must be positive, got {self.timeout:g}")
        if self.limit is not None and self.limit < 0:
            raise ConfigError(f"--limit must be >= 0, got {self.limit}")


@dataclass(frozen=True)
class InstanceOutcome:
    """How one attempt ended.

    Attributes:
        idx: Instance idx.
        task: Task code.
        result: The runner's result.
        path: The recording.
        done: False when interrupted (or a harness failure): not in the results file.
    """

    idx: int
    task: str
    result: AgentResult
    path: Path
    done: bool

    @property
    def reward(self) -> float:
        """Numeric reward (0 without an answer)."""
        value = self.result.reward
        return float(value) if isinstance(value, int | float) else 0.0


@dataclass
class Tally:
    """Running totals for a progress display.

    Attributes:
        total: Instances to run in this invocation (already-done ones excluded).
        skipped: Instances skipped because a finished recording exists.
        finished: Attempts ended so far (done or not).
        reward_sum: Sum of rewards of the done attempts.
        scored: Done attempts.
        cost: Known model cost so far (USD).
        unknown_cost: Whether some call had no known price.
        interrupted: Attempts that ended without an outcome.
    """

    total: int = 0
    skipped: int = 0
    finished: int = 0
    reward_sum: float = 0.0
    scored: int = 0
    cost: float = 0.0
    unknown_cost: bool = False
    interrupted: int = 0

    @property
    def accuracy(self) -> float:
        """Mean reward of the done attempts (0 before the first)."""
        return self.reward_sum / self.scored if self.scored else 0.0


@dataclass
class BatchReport:
    """What a batch did.

    Attributes:
        results_path: The results file.
        tally: Final totals of this invocation.
        summary: Per task type rows over the whole results file (earlier runs included).
        stopped: Whether the batch was stopped before running everything.
        seconds: Wall time.
        outcomes: The attempts of this invocation, in completion order.
    """

    results_path: Path
    tally: Tally
    summary: list[SummaryRow]
    stopped: bool
    seconds: float
    outcomes: list[InstanceOutcome] = field(default_factory=list)
