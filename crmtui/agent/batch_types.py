"""The data of a batch run: its settings, each attempt's outcome, running totals, the report.

Kept apart from :mod:`crmtui.agent.batch` (the run loop) so displays and tests can use them
without the threading code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crmtui.agent.batch_files import SummaryRow
from crmtui.agent.result import AgentResult
from crmtui.agent.settings import AgentSettings
from crmtui.agent.upstream_rows import outcome_of
from crmtui.errors import ConfigError

__all__ = ["BatchConfig", "BatchReport", "InstanceOutcome", "Tally"]


@dataclass(frozen=True)
class BatchConfig(AgentSettings):
    """Settings of one ``crmtui run``: the agent settings plus which instances and where.

    Attributes:
        idxs: Only these instance idx values.
        limit: At most this many of the selected instances, spread over the task types.
        concurrency: Instances in flight at once.
        out: Output folder (recordings under ``out/recordings``, results file in ``out``).
        fresh: Start a new results file even when one with other settings exists.
        max_initial_errors: Stop when the first this many instances all end in model
            errors (0: never).
    """

    idxs: tuple[int, ...] = ()
    limit: int | None = None
    concurrency: int = 1
    out: Path = Path("runs")
    fresh: bool = False
    max_initial_errors: int = 3

    @property
    def recordings(self) -> Path:
        """Where the per-instance recordings go."""
        return Path(self.out) / "recordings"

    def check(self) -> None:
        """Reject impossible settings with a one-line :class:`ConfigError`."""
        super().check()
        if self.concurrency < 1:
            raise ConfigError(f"--concurrency must be at least 1, got {self.concurrency}")
        if self.limit is not None and self.limit < 0:
            raise ConfigError(f"--limit must be >= 0, got {self.limit}")
        if self.max_initial_errors < 0:
            raise ConfigError(f"--max-initial-errors must be >= 0, got {self.max_initial_errors}")


@dataclass(frozen=True)
class InstanceOutcome:
    """How one attempt ended.

    Attributes:
        idx: Instance idx.
        task: Task code.
        result: The runner's result.
        path: The recording.
        done: False when interrupted (or a harness failure): not in the results file.
        session_id: The recording's session id.
    """

    idx: int
    task: str
    result: AgentResult
    path: Path
    done: bool
    session_id: str = ""

    @property
    def outcome(self) -> str:
        """``right``, ``wrong``, ``model_error``, ``harness_error`` or ``stopped``."""
        return outcome_of(self.result.end_reason, self.result.reward)

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
        right: Attempts scored 1.
        wrong: Attempts scored below 1.
        model_errors: Attempts that ended in a model error.
        harness_errors: Attempts that ended in a harness error (a crmtui bug).
        selected: The idx values this invocation took (after ``--limit``).
    """

    total: int = 0
    skipped: int = 0
    finished: int = 0
    reward_sum: float = 0.0
    scored: int = 0
    cost: float = 0.0
    unknown_cost: bool = False
    interrupted: int = 0
    right: int = 0
    wrong: int = 0
    model_errors: int = 0
    harness_errors: int = 0
    selected: list[int] = field(default_factory=list)

    @property
    def accuracy(self) -> float:
        """Mean reward of the done attempts (0 before the first)."""
        return self.reward_sum / self.scored if self.scored else 0.0

    def book(self, outcome: InstanceOutcome) -> None:
        """Count one finished attempt."""
        self.finished += 1
        costs = outcome.result.costs
        self.cost += sum(c for c in costs if c is not None)
        self.unknown_cost = self.unknown_cost or any(c is None for c in costs)
        kind = outcome.outcome
        if kind == "model_error":
            self.model_errors += 1
        elif kind == "harness_error":
            self.harness_errors += 1
        elif kind == "right":
            self.right += 1
        elif kind == "wrong":
            self.wrong += 1
        if outcome.done:
            self.scored += 1
            self.reward_sum += outcome.reward
        else:
            self.interrupted += 1


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
        settings: The resolved settings of the run.
        resumed: Whether this invocation continued an earlier run.
        notes: Things the user should know (e.g. a forced task/org mismatch).
    """

    results_path: Path
    tally: Tally
    summary: list[SummaryRow]
    stopped: bool
    seconds: float
    outcomes: list[InstanceOutcome] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    resumed: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def errors(self) -> int:
        """Rows of the results file that ended in a model or harness error."""
        return sum(r.model_errors + r.harness_errors for r in self.summary if r.task != "all")
