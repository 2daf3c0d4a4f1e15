"""Bar charts of accuracy per task type: one bar per actor, drawn with rich.

:func:`bar` and :func:`task_chart` are plain rich renderables (no textual), so they can be
printed to a console as well as shown in :class:`AccuracyBars`, a scrollable widget that
lays the per-task charts out in as many columns as its width allows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.events import Resize
from textual.widgets import Static

from crmtui.data.tasktypes import TASK_TYPES, abbreviation
from crmtui.review.report import OVERALL, Report

#: Eighths of a block, so a bar's end shows values between whole characters.
_PARTIAL = " ▏▎▍▌▋▊▉"
_FULL = "█"
#: One colour per actor, in row order (repeats after eight actors).
PALETTE = ("cyan", "magenta", "green", "yellow", "blue", "red", "bright_cyan", "bright_magenta")


def bar(value: float | None, width: int, style: str) -> Text:
    """A horizontal bar for ``value`` in [0, 1] (clamped), ``width`` cells long.

    The unfilled part is a dim track, so bars of different actors line up. ``None`` (no
    data) gives a dim "no data" label instead of a bar.
    """
    if value is None:
        return Text("no data".ljust(width), style="dim italic")
    eighths = round(max(0.0, min(1.0, value)) * width * 8)
    full, part = divmod(eighths, 8)
    text = Text(_FULL * full, style=style)
    if part:
        text.append(_PARTIAL[part], style=style)
    text.append("·" * (width - full - (1 if part else 0)), style="dim")
    return text


@dataclass(frozen=True)
class Series:
    """One actor's accuracy cells: task code (or ``Overall``) -> (value, instances)."""

    label: str
    style: str
    cells: dict[str, tuple[float | None, int]]


def series_of(report: Report) -> list[Series]:
    """Each report row as a series, coloured from :data:`PALETTE` in row order."""
    return [
        Series(
            row.label,
            PALETTE[n % len(PALETTE)],
            {column: (cell.value, cell.n) for column, cell in row.accuracy.items()},
        )
        for n, row in enumerate(report.rows)
    ]


def chart_columns(report: Report) -> list[str]:
    """Task columns with data for some actor, then ``Overall`` (when anyone has data)."""
    series = series_of(report)
    used = [
        task
        for task in report.tasks
        if any(s.cells.get(task, (None, 0))[0] is not None for s in series)
    ]
    return [*used, OVERALL] if used else []


def task_chart(column: str, series: Sequence[Series], width: int = 20) -> Panel:
    """One task type's chart: a bar per actor with its accuracy and instance count."""
    grid = Table.grid(padding=(0, 1))
    label_width = max((len(s.label) for s in series), default=5)
    grid.add_column(width=min(label_width, 18), no_wrap=True, overflow="ellipsis")
    grid.add_column(width=width, no_wrap=True)
    grid.add_column(justify="right", no_wrap=True)
    for s in series:
        value, n = s.cells.get(column, (None, 0))
        figure = Text("" if value is None else f"{value:.2f} ({n})")
        grid.add_row(Text(s.label, style=s.style), bar(value, width, s.style), figure)
    if column == OVERALL:
        title = "Overall (mean of the task columns)"
    else:
        known = TASK_TYPES.get(column)
        title = abbreviation(column) + (f" · {known.name}" if known else "")
    return Panel(grid, title=title, title_align="left", border_style="dim", expand=True)


def charts(report: Report, width: int = 100, bar_width: int = 20) -> RenderableType:
    """Every chart of the report, in as many columns as fit in ``width`` cells."""
    series = series_of(report)
    columns = chart_columns(report)
    if not columns:
        return Text("No scored sessions: nothing to chart.", style="dim")
    label_width = min(18, max(len(s.label) for s in series))
    # label + bar + "1.00 (99)" + padding and the panel's border.
    chart_width = label_width + bar_width + 9 + 2 + 4
    per_row = max(1, width // chart_width)
    grid = Table.grid(expand=True, padding=(0, 1))
    for _ in range(per_row):
        grid.add_column(ratio=1)
    panels = [task_chart(column, series, bar_width) for column in columns]
    for start in range(0, len(panels), per_row):
        chunk: list[RenderableType] = list(panels[start : start + per_row])
        chunk += [Text("")] * (per_row - len(chunk))
        grid.add_row(*chunk)
    empty = [abbreviation(t) for t in report.tasks if t not in columns]
    note = Text(
        "Accuracy 0..1 (KQA: mean F1), instances in parentheses."
        + (f" No data: {', '.join(empty)}." if empty else ""),
        style="dim",
    )
    return Group(note, grid)


class AccuracyBars(VerticalScroll):
    """Scrollable bar charts of a report's accuracy, one chart per task type."""

    def __init__(self, report: Report, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.report = report
        self.border_title = "Accuracy per task type"
        self._laid_out_for = 0

    def compose(self) -> Any:
        yield Static(id="bars-text")

    def on_resize(self, event: Resize) -> None:
        # The number of charts per row follows the width; redraw only when it changes.
        width = self.scrollable_content_region.width or event.size.width
        if width != self._laid_out_for:
            self._laid_out_for = width
            self.query_one("#bars-text", Static).update(charts(self.report, width))
