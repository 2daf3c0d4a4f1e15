"""The terminal display of ``crmtui run``: the settings, a progress bar, the summary table."""

from __future__ import annotations

import threading
from types import TracebackType
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from crmtui.agent.batch import BatchReport, InstanceOutcome, Tally

#: Settings shown on the one-line settings summary, in this order.
_SHOWN = (
    "strategy",
    "toolset",
    "scoring",
    "list_scoring",
    "judge",
    "date_literals",
    "max_tokens",
    "temperature",
    "max_turns",
    "observation_chars",
    "aided",
)


def _stats(tally: Tally) -> str:
    cost = f"${tally.cost:.4f}" + ("+?" if tally.unknown_cost else "")
    text = f"acc {tally.accuracy:.2f} · {tally.right} right · {tally.wrong} wrong"
    errors = tally.model_errors + tally.harness_errors
    if errors:
        text += f" · {errors} error{'s' if errors != 1 else ''}"
    text += f" · cost {cost}"
    stopped = tally.interrupted - tally.harness_errors
    if stopped > 0:
        text += f" · {stopped} interrupted"
    return text


def settings_line(settings: dict[str, Any]) -> str:
    """``preset upstream (overrides: scoring) · strategy react · scoring paper · ...``."""
    preset = str(settings.get("preset", "crmtui"))
    overrides = settings.get("overrides") or []
    head = f"preset {preset}" + (f" (overridden: {', '.join(overrides)})" if overrides else "")
    parts = [head]
    for key in _SHOWN:
        if key in settings and settings[key] is not None:
            parts.append(f"{key} {settings[key]}")
    if settings.get("observation_chars") is None:
        parts.append("observations unbounded")
    if settings.get("extract_model"):
        parts.append(f"extract_model {settings['extract_model']}")
    return " · ".join(parts)


def _idx_list(idxs: list[int], limit: int = 30) -> str:
    shown = ", ".join(str(i) for i in idxs[:limit])
    return shown + (f", ... ({len(idxs)} in all)" if len(idxs) > limit else "")


class BatchDisplay:
    """Progress bar with running accuracy, outcome counts and cost; notes a pending stop."""

    def __init__(
        self, stop: threading.Event, config: Any = None, console: Console | None = None
    ) -> None:
        self.stop = stop
        self.config = config
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
        config = self.config
        if config is not None:
            self.console.print(
                f"Settings: {escape(settings_line(config.resolved.to_json()))}", highlight=False
            )
        if config is not None and config.limit is not None and not config.idxs:
            self.console.print(
                f"Taking {len(tally.selected)} instance(s) spread over the task types: "
                f"idx {_idx_list(tally.selected)}",
                highlight=False,
            )
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
            self.console.print("Stopping: no new instances; calls in flight are abandoned.")
        description = "stopping" if self.stop.is_set() else "running"
        self.progress.update(self._task, advance=1, description=description, stats=_stats(tally))


def print_summary(report: BatchReport, console: Console | None = None) -> None:
    """Settings, the per task type table (accuracy, outcome counts, cost, turns), files."""
    out = console or Console()
    if report.settings:
        out.print(f"Settings: {escape(settings_line(report.settings))}", highlight=False)
    for note in report.notes:
        out.print(f"Note: {escape(note)}", highlight=False)
    if not report.summary:
        out.print("No finished instances yet.")
    table = Table(title="Results by task type")
    columns = ("task", "n", "accuracy", "right", "wrong", "model err", "harness err")
    for name in (*columns, "mean cost", "mean turns"):
        table.add_column(name, justify="left" if name == "task" else "right")
    for row in report.summary:
        table.add_row(
            row.task,
            str(row.n),
            f"{row.accuracy:.3f}",
            str(row.right),
            str(row.wrong),
            str(row.model_errors),
            str(row.harness_errors),
            f"${row.mean_cost:.5f}",
            f"{row.mean_turns:.1f}",
        )
    if report.summary:
        out.print(table)
    tally = report.tally
    status = "stopped" if report.stopped else "finished"
    line = (
        f"{status}: ran {tally.finished} ({tally.right} right, {tally.wrong} wrong, "
        f"{tally.model_errors} model errors, {tally.harness_errors} harness errors), "
        f"skipped {tally.skipped} already done"
    )
    unfinished = tally.interrupted
    if unfinished:
        line += f", {unfinished} not finished (run again to resume)"
    out.print(f"{line} in {report.seconds:.1f} s", highlight=False)
    if report.errors:
        out.print(
            f"{report.errors} row(s) of the results file ended in model or harness errors "
            "(scored 0; see each row's crmtui.end_reason)."
        )
    if tally.unknown_cost:
        out.print("Some calls have no known price: costs shown are lower bounds.")
    out.print(f"results: {report.results_path}", highlight=False)
