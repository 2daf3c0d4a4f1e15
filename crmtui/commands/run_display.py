"""The terminal display of ``crmtui run``: a rich progress bar and the summary table."""

from __future__ import annotations

import threading
from types import TracebackType
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from crmtui.agent.batch import BatchReport, InstanceOutcome, Tally


def _stats(tally: Tally) -> str:
    cost = f"${tally.cost:.4f}" + ("+?" if tally.unknown_cost else "")
    text = f"acc {tally.accuracy:.2f} · cost {cost}"
    if tally.interrupted:
        text += f" · {tally.interrupted} interrupted"
    return text


class BatchDisplay:
    """Progress bar with running accuracy and cost; notes a pending stop."""

    def __init__(self, stop: threading.Event, console: Console | None = None) -> None:
        self.stop = stop
        self.console = console or Console(stderr=True)
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[stats]}"),
            console=self.console,
            transient=False,
        )
        self._task: Any = None
        self._stopping_noted = False

    def __enter__(self) -> BatchDisplay:
        # The bar starts with the work (see start()): an error while loading the org or
        # tasks then prints only its own one-line message.
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._task is not None:
            self.progress.stop()

    def start(self, tally: Tally) -> None:
        """Called once the work is known."""
        if tally.skipped:
            self.console.print(
                f"Resuming: {tally.skipped} instance(s) already done, {tally.total} to run."
            )
        self.progress.start()
        self._task = self.progress.add_task("running", total=tally.total, stats=_stats(tally))

    def advance(self, outcome: InstanceOutcome, tally: Tally) -> None:
        """Called after each attempt."""
        if self.stop.is_set() and not self._stopping_noted:
            self._stopping_noted = True
            self.console.print("Stopping: no new instances; running ones end after this step.")
        description = "stopping" if self.stop.is_set() else "running"
        self.progress.update(self._task, advance=1, description=description, stats=_stats(tally))


def print_summary(report: BatchReport, console: Console | None = None) -> None:
    """The per task type table (accuracy, n, mean cost, mean turns) and where files went."""
    out = console or Console()
    if not report.summary:
        out.print("No finished instances yet.")
    table = Table(title="Results by task type")
    for name in ("task", "n", "accuracy", "mean cost", "mean turns"):
        table.add_column(name, justify="left" if name == "task" else "right")
    for row in report.summary:
        table.add_row(
            row.task,
            str(row.n),
            f"{row.accuracy:.3f}",
            f"${row.mean_cost:.5f}",
            f"{row.mean_turns:.1f}",
        )
    if report.summary:
        out.print(table)
    tally = report.tally
    status = "stopped" if report.stopped else "finished"
    out.print(
        f"{status}: ran {tally.finished}, skipped {tally.skipped} already done, "
        f"{tally.interrupted} interrupted (run again to resume) in {report.seconds:.1f} s"
    )
    if tally.unknown_cost:
        out.print("Some calls have no known price: costs shown are lower bounds.")
    out.print(f"results: {report.results_path}")
