"""A table of records that pages lazily: rows load in pages as the cursor nears the end."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable

from crmtui.ui.widgets.cell_table import CellTable

CELL_WIDTH = 40


def cell(value: Any) -> Text | str:
    """Render one value for a table cell: one line, truncated, NULL dimmed."""
    if value is None:
        return Text("—", style="dim")
    if isinstance(value, bool):
        return "true" if value else "false"
    text = " ".join(str(value).split())
    return text if len(text) <= CELL_WIDTH else text[: CELL_WIDTH - 1] + "…"


class RecordsTable(CellTable):
    """A DataTable fed page by page; it asks for more rows instead of holding them all.

    The raw values of the loaded rows are kept (:class:`CellTable`), so ``v`` and ``y``
    open and copy a value whole though its cell shows one cut line.

    It has a cell cursor, so "the column under the cursor" (sort, filter) is the one the
    user sees highlighted; Enter on any cell opens that row's record.
    """

    HELP_GROUP = "Record browser"
    BINDINGS = [
        Binding(
            "s", "sort_column", "Sort", tooltip="by the column under the cursor; again: descending"
        ),
    ]

    class MoreRowsWanted(Message):
        """The cursor is near the last loaded row; the owner should load the next page."""

        def __init__(self, offset: int) -> None:
            self.offset = offset
            super().__init__()

    class SortRequested(Message):
        """The user asked to sort by a column."""

        def __init__(self, column: str) -> None:
            self.column = column
            super().__init__()

    class RecordChosen(Message):
        """The user pressed Enter on a row."""

        def __init__(self, record_id: str) -> None:
            self.record_id = record_id
            super().__init__()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="cell", zebra_stripes=True, **kwargs)
        self.columns_names: list[str] = []
        self.ids: list[str] = []
        self.total = 0
        #: Where the next page starts (set by the owner after each page).
        self.next_cursor: Any = None
        self._loading = False

    def reset(self, columns: list[str], total: int, object_name: str | None = None) -> None:
        """Clear the table and set its columns, total row count and object."""
        self.clear(columns=True)
        self.set_raw(columns, [], [], object_name=object_name)
        self.columns_names = list(columns)
        self.ids = []
        self.total = total
        self.next_cursor = None
        # The owner is already fetching the first page: don't ask for it a second time.
        self._loading = True
        for name in columns:
            self.add_column(name, key=name)

    def append_page(self, ids: list[str], rows: list[list[Any]]) -> None:
        """Append a fetched page of rows."""
        for record_id, row in zip(ids, rows, strict=True):
            key = f"{len(self.ids)}:{record_id}"
            self.ids.append(record_id)
            self.raw_rows.append(list(row))
            self.raw_ids.append(record_id)
            self.add_row(*(cell(v) for v in row), key=key)
        self._loading = False

    @property
    def complete(self) -> bool:
        """Whether every row of the view is loaded."""
        return len(self.ids) >= self.total

    def _want_more(self) -> None:
        if not self._loading and not self.complete:
            self._loading = True
            self.post_message(self.MoreRowsWanted(len(self.ids)))

    def watch_cursor_coordinate(self, old: Any, new: Any) -> None:
        super().watch_cursor_coordinate(old, new)
        if self.ids and new.row >= len(self.ids) - 20:
            self._want_more()

    def action_sort_column(self) -> None:
        """Sort by the column under the cursor."""
        if self.columns_names:
            column = self.columns_names[min(self.cursor_column, len(self.columns_names) - 1)]
            self.post_message(self.SortRequested(column))

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        self.post_message(self.SortRequested(str(event.column_key.value)))

    def on_data_table_cell_selected(self, event: DataTable.CellSelected) -> None:
        event.stop()
        row = event.coordinate.row
        if 0 <= row < len(self.ids):
            self.post_message(self.RecordChosen(self.ids[row]))
