"""The compute tool: group a table's rows and aggregate a number or a duration.

Opened over the browser's table view or the console's last query; it runs over every row
of that view or query (the full-row query is built by the caller and run through the
engine in a worker, :func:`crmtui.play.compute.run_compute`), never only the loaded page.
The result is a table that sorts (``s``, header click) and copies like any other. What was
computed is handed to ``on_computed`` / ``on_failed`` so the play screen records it.

Its field choices (groupings, measure, a duration's start and end) are the filter dialog's
:class:`~crmtui.ui.widgets.field_chooser.FieldChooser`: any part of a name finds it, so a
related field deep in a list of sixty (``Opportunity.OwnerId``) is a few letters away.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Input, Label, Select
from textual.widgets.data_table import ColumnKey

from crmtui.errors import CrmtuiError
from crmtui.play.cells import ValueRef
from crmtui.play.compute import AGGREGATES, UNITS, ComputeRun, ComputeSpec, run_compute, sort_rows
from crmtui.ui.widgets.cell_table import CellTable
from crmtui.ui.widgets.field_chooser import Choice, FieldChooser

NONE = "(none)"
ROWS = "(count rows)"
DURATION = "(duration: end - start)"
HINT = (
    "F5/Ctrl+R compute · a field: type any part of its name, ↑/↓, Enter · s sort by column · "
    "y copy · Y copy row · v view · Esc close"
)
#: Lines of a field list while it shows: the form and a result still fit an 80x24 terminal.
LIST_HEIGHT = 5
#: The field choosers of the form, in Tab order.
CHOOSERS = ("compute-group", "compute-group2", "compute-measure", "compute-start", "compute-end")


@dataclass(frozen=True)
class ComputeSource:
    """What the compute tool runs over.

    Attributes:
        kind: ``table`` (a browser view) or ``console`` (the console's last query).
        label: Shown in the title (``Case · Status = Closed``).
        columns: Columns the spec may name.
        build_query: The full-row SOQL/SOSL for a spec (no paging).
        object_name: The view's object (None for a console query).
        dates: Columns holding dates, offered as groups by month and year too.
        summary_query: The SOQL aggregate a spec equals (None when SOQL has none).
    """

    kind: str
    label: str
    columns: list[str]
    build_query: Callable[[ComputeSpec], str]
    object_name: str | None = None
    dates: list[str] = field(default_factory=list)
    summary_query: Callable[[ComputeSpec], str | None] | None = None

    def group_options(self) -> list[str]:
        """What a grouping may name: every column, then each date column by month, year and
        month in year (its name, whatever the year)."""
        buckets = [f"{b}({c})" for c in self.dates for b in ("month", "year", "month_in_year")]
        return [*self.columns, *buckets]


@dataclass(frozen=True)
class ComputeHooks:
    """What the screen that opened the tool does with its outcomes (records them)."""

    computed: Callable[[ComputeRun, ComputeSource], None]
    failed: Callable[[str, ComputeSpec, str, ComputeSource], None]
    copy: Callable[[ValueRef, str, str], None]
    view: Callable[[ValueRef, str], None]
    #: Keys and clicks in the tool are work: they keep the session's clock active.
    activity: Callable[[], None] | None = None


def _fmt(value: Any) -> Text | str:
    if value is None:
        return Text("—", style="dim")
    if isinstance(value, float):
        return f"{value:,.2f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


class ComputeTable(CellTable):
    """A computed table: ``s`` sorts by the column under the cursor (again: the other way).

    The sorted column's header carries ▲ or ▼, so every ``s`` shows what it did.
    """

    cell_source = "compute"
    BINDINGS = [Binding("s", "sort_column", "Sort")]

    class Sorted(Message):
        """The rows were sorted by ``column`` (a column name)."""

        def __init__(self, column: str, descending: bool) -> None:
            self.column, self.descending = column, descending
            super().__init__()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="cell", zebra_stripes=True, **kwargs)
        self.sorted_by: tuple[int, bool] | None = None

    def show(self, columns: list[str], rows: list[list[Any]]) -> None:
        """Show a computed table (raw values kept for copying).

        A result comes ordered by its groups (the first column): its header says so, and
        the first ``s`` there sorts the other way, so every ``s`` changes something.
        """
        self.clear(columns=True)
        for i, name in enumerate(columns):
            self.add_column(name, key=str(i))
        self._fill(rows)
        self.set_raw(columns, rows)
        self.sorted_by = None
        if columns and rows and sort_rows(rows, 0) == [list(r) for r in rows]:
            self.sorted_by = (0, False)
        self._mark_headers()

    def _fill(self, rows: list[list[Any]]) -> None:
        self.clear()
        for row in rows:
            self.add_row(*(_fmt(v) for v in row))

    def _mark_headers(self) -> None:
        """▲ or ▼ on the header of the column the rows are ordered by."""
        for i, name in enumerate(self.raw_columns):
            mark = ""
            if self.sorted_by is not None and self.sorted_by[0] == i:
                mark = " ▼" if self.sorted_by[1] else " ▲"
            column = self.columns[ColumnKey(str(i))]
            column.label = Text(name + mark)
            # DataTable measured the label when the column was added: widen it for the mark
            # (a header wider than its cells lost the mark).
            column.content_width = max(column.content_width, column.label.cell_len)
        self._require_update_dimensions = True
        self.refresh()

    def sort_by(self, column: int, descending: bool) -> None:
        """Order the rows by ``column`` (empty values last)."""
        rows = sort_rows(self.raw_rows, column, descending)
        columns = self.raw_columns
        self._fill(rows)
        self.set_raw(columns, rows)
        self.sorted_by = (column, descending)
        self._mark_headers()
        self.post_message(self.Sorted(columns[column], descending))

    def _next_order(self, column: int) -> bool:
        """Whether the next sort by ``column`` is descending: ascending first, then flips."""
        return self.sorted_by == (column, False)

    def action_sort_column(self) -> None:
        """Sort by the column under the cursor; again for the other way."""
        if not self.raw_columns:
            return
        column = self.cursor_coordinate.column
        self.sort_by(column, self._next_order(column))
        self.move_cursor(row=0, column=column, animate=False)

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        self.sort_by(event.column_index, self._next_order(event.column_index))


class ComputeScreen(ModalScreen[None]):
    """Choose a grouping and an aggregate; see the result over every row."""

    CSS_PATH = "compute.tcss"
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("f5,ctrl+r", "compute", "Compute"),
    ]

    class _Computed(Message):
        def __init__(self, run: ComputeRun) -> None:
            self.run = run
            super().__init__()

    class _Failed(Message):
        def __init__(self, query: str, spec: ComputeSpec, error: str) -> None:
            self.query, self.spec, self.error = query, spec, error
            super().__init__()

    def __init__(
        self,
        org: Any,
        today: date | None,
        source: ComputeSource,
        hooks: ComputeHooks,
        previous: ComputeSpec | None = None,
    ) -> None:
        super().__init__()
        self.org = org
        self.today = today
        self.source = source
        self.hooks = hooks
        #: The summary last computed over this source's object in this instance: the form
        #: reopens on it (a report keeps its groups and measure when its filters change).
        self.previous = previous
        self.last_run: ComputeRun | None = None

    # -- layout ----------------------------------------------------------------------------

    def _defaults(self) -> dict[str, Any]:
        kept = self._from_previous()
        if kept is not None:
            if not (kept["start"] and kept["end"]):  # a summary that was not a duration
                kept["start"], kept["end"] = self._duration_ends()
            return kept
        columns = self.source.columns
        lowered = {c.lower(): c for c in columns}
        # Per agent, per state, else the first column that is not an Id of its own rows.
        group = (
            lowered.get("ownerid")
            # A related record's owner (a line item's Opportunity.OwnerId): the nearest one.
            or min(
                (c for c in columns if c.lower().endswith(".ownerid")),
                key=lambda c: c.count("."),
                default=None,
            )
            or next((c for c in columns if c.lower().endswith("shippingstate")), None)
            or next((c for c in columns if c.lower() != "id"), NONE)
        )
        start, end = lowered.get("createddate"), lowered.get("closeddate")
        if start and end:
            return {
                "group": group,
                "measure": DURATION,
                "aggregate": "avg",
                "start": start,
                "end": end,
            }
        start, end = self._duration_ends()
        return {"group": group, "measure": ROWS, "aggregate": "count", "start": start, "end": end}

    def _duration_ends(self) -> tuple[str, str]:
        """A duration's likely ends: from the creation date to another date (a close or a
        signature), the view's dates in their order, else its first and last columns."""
        columns, dates = self.source.columns, self.source.dates
        if not dates:
            return columns[0], columns[-1]
        start = next((d for d in dates if d.lower() == "createddate"), dates[0])
        later = [d for d in dates if d != start]
        # A signature ends a sales cycle, a close a case (CloseDate is only the planned one).
        end = next((d for d in later if "signed" in d.lower()), None) or next(
            (d for d in later if "close" in d.lower()), None
        )
        return start, end or (later[-1] if later else start)

    def _from_previous(self) -> dict[str, Any] | None:
        """The form of the previous spec, or None when this source cannot hold it."""
        spec = self.previous
        if spec is None:
            return None
        groups = {NONE, *self.source.group_options()}
        columns = set(self.source.columns)
        named = [spec.group_by or NONE, spec.group_by2 or NONE]
        measured = [c for c in (spec.field, spec.start, spec.end) if c]
        if not set(named) <= groups or not set(measured) <= columns:
            return None
        measure = DURATION if spec.is_duration else (spec.field or ROWS)
        return {
            "group": named[0],
            "group2": named[1],
            "measure": measure,
            "aggregate": spec.aggregate,
            "start": spec.start,
            "end": spec.end,
            "unit": spec.unit,
        }

    def compose(self) -> ComposeResult:
        d = self._defaults()
        columns = self.source.columns
        groups = self.source.group_options()
        with Vertical(id="compute-box"):
            yield Label(f"Compute over every row of {self.source.label}", id="compute-title")
            with Horizontal(classes="compute-row"):
                yield Label("Group by", classes="compute-label")
                yield self._chooser("compute-group", [NONE, *groups], d["group"])
                yield Label("then by", classes="compute-label")
                yield self._chooser("compute-group2", [NONE, *groups], d.get("group2", NONE))
            with Horizontal(classes="compute-row"):
                yield Label("Aggregate", classes="compute-label")
                yield Select(
                    [(a, a) for a in AGGREGATES],
                    value=d["aggregate"],
                    allow_blank=False,
                    compact=True,
                    id="compute-aggregate",
                )
                yield Label("Measure", classes="compute-label")
                yield self._chooser("compute-measure", [ROWS, DURATION, *columns], d["measure"])
                yield Button("Compute", id="compute-run", variant="primary", compact=True)
            with Horizontal(classes="compute-row", id="compute-duration"):
                yield Label("Start", classes="compute-label")
                yield self._chooser("compute-start", columns, d["start"])
                yield Label("End", classes="compute-label")
                yield self._chooser("compute-end", columns, d["end"])
                yield Select(
                    [(u, u) for u in UNITS],
                    value=d.get("unit", "hours"),
                    allow_blank=False,
                    compact=True,
                    id="compute-unit",
                )
            yield Label("", id="compute-status")
            yield ComputeTable(id="compute-result")
            yield Label(HINT, id="compute-hint")

    def _chooser(self, chooser_id: str, values: list[str], value: str) -> FieldChooser:
        dates = set(self.source.dates)

        def label(v: str) -> str:
            if v in dates:
                return f"{v}  (date)"
            if v.startswith(("month(", "month_in_year(", "year(", "day(")):
                return f"{v}  (by {v.split('(')[0]})"
            return v

        return FieldChooser(
            [Choice(v, label(v)) for v in values],
            value,
            compact=True,
            list_height=LIST_HEIGHT,
            placeholder="type any part of a field's name",
            id=chooser_id,
        )

    def chooser(self, chooser_id: str) -> FieldChooser:
        """One of the form's field choosers (:data:`CHOOSERS`)."""
        return self.query_one(f"#{chooser_id}", FieldChooser)

    def on_mount(self) -> None:
        self._toggle_duration()
        self.chooser("compute-group").query_one(Input).focus()

    def on_field_chooser_chosen(self, event: FieldChooser.Chosen) -> None:
        # Enter took a field: on to the next control, as Tab would.
        event.stop()
        if event.chooser.id == "compute-measure":
            self._toggle_duration()
        self.focus_next()

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        # A measure typed in full and left with Tab counts as chosen.
        if event.widget.parent is self.chooser("compute-measure"):
            self._toggle_duration()

    def on_key(self, event: events.Key) -> None:
        if self.hooks.activity is not None:
            self.hooks.activity()

    def on_click(self, event: events.Click) -> None:
        if self.hooks.activity is not None:
            self.hooks.activity()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "compute-aggregate" and event.value == "count":
            # Counting means counting rows (a report's record count): a count of durations
            # would leave out every open case, whose duration has no end.
            measure = self.chooser("compute-measure")
            if measure.value == DURATION:
                measure.set_value(ROWS)
        if event.select.id == "compute-aggregate":
            self._toggle_duration()

    def _toggle_duration(self) -> None:
        measure = self.chooser("compute-measure").value
        self.query_one("#compute-duration").display = measure == DURATION

    # -- computing -------------------------------------------------------------------------

    def spec(self) -> ComputeSpec:
        """The spec the form describes."""
        group = self.chooser("compute-group").value
        group2 = self.chooser("compute-group2").value
        groups = [g for g in (group, group2) if g not in (NONE, "")]
        first = groups[0] if groups else None
        second = groups[1] if len(groups) > 1 else None
        aggregate = str(self.query_one("#compute-aggregate", Select).value)
        measure = self.chooser("compute-measure").value
        if measure == DURATION:
            return ComputeSpec(
                aggregate,
                group_by=first,
                start=self.chooser("compute-start").value,
                end=self.chooser("compute-end").value,
                unit=str(self.query_one("#compute-unit", Select).value),
                group_by2=second,
            )
        return ComputeSpec(
            aggregate,
            group_by=first,
            field=None if measure in (ROWS, "") else measure,
            group_by2=second,
        )

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_compute()

    def action_compute(self) -> None:
        spec = self.spec()
        try:
            spec.check(self.source.columns)
            query = self.source.build_query(spec)
        except CrmtuiError as exc:
            self._status(str(exc), error=True)
            return
        self._status("Computing over every row…")
        self._run(query, spec)

    @work(thread=True, exclusive=True, group="compute")
    def _run(self, query: str, spec: ComputeSpec) -> None:
        try:
            run = run_compute(self.org, query, spec, self.today)
        except CrmtuiError as exc:
            self.post_message(self._Failed(query, spec, str(exc)))
            return
        self.post_message(self._Computed(run))

    def on_compute_screen__computed(self, event: _Computed) -> None:
        event.stop()
        run = event.run
        self.last_run = run
        table = self.query_one(ComputeTable)
        table.show(run.result.columns, run.result.rows)
        self._status(self._summary())
        # The result is what the user came for: s, y, v and the arrows work at once.
        table.focus()
        table.move_cursor(row=0, column=0, animate=False)
        self.hooks.computed(run, self.source)

    def _summary(self) -> str:
        run = self.last_run
        return f"{run.result.summary()} · {run.ms:,.0f} ms" if run is not None else ""

    def on_compute_table_sorted(self, event: ComputeTable.Sorted) -> None:
        event.stop()
        order = "descending" if event.descending else "ascending"
        self._status(f"{self._summary()} · sorted by {event.column}, {order}")

    def on_compute_screen__failed(self, event: _Failed) -> None:
        event.stop()
        self._status(event.error, error=True)
        self.hooks.failed(event.query, event.spec, event.error, self.source)

    def _status(self, text: str, error: bool = False) -> None:
        label = self.query_one("#compute-status", Label)
        label.update(text)
        label.set_class(error, "error")

    # -- the result table's cells ----------------------------------------------------------

    def on_cell_table_view_wanted(self, event: CellTable.ViewWanted) -> None:
        event.stop()
        self.hooks.view(event.ref, event.text)

    def on_cell_table_copy_wanted(self, event: CellTable.CopyWanted) -> None:
        event.stop()
        self.hooks.copy(event.ref, event.text, event.what)

    def action_close(self) -> None:
        self.dismiss(None)
