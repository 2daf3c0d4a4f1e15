"""A DataTable whose cells can be opened whole and copied: the base of every table in play.

``v`` opens the value under the cursor in the value viewer, ``y`` copies it, ``Y`` copies
the whole row. The table only says what is under the cursor and where it came from (a
:class:`~crmtui.play.cells.ValueRef`); it posts :class:`CellTable.ViewWanted` /
:class:`CellTable.CopyWanted` and the screen opens the viewer, copies and records.

Subclasses keep the raw values beside the rendered cells (cells are cut to one short line)
and either fill :attr:`raw_rows` and friends or override :meth:`value_at` / :meth:`row_at`.
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.message import Message

from crmtui.play.cells import ValueRef, row_text, row_view_text, value_text
from crmtui.ui.widgets.content_table import ContentTable

#: The help section of the keys that read, copy and compute (tables and the play screen).
READ_COPY_COMPUTE = "Read, copy, compute"


class CellTable(ContentTable):
    """A table that knows the raw value and origin of each cell."""

    # One help section for these keys whichever table declares them (listed once).
    HELP_GROUPS = {
        "view_cell": READ_COPY_COMPUTE,
        "copy_cell": READ_COPY_COMPUTE,
        "copy_row": READ_COPY_COMPUTE,
    }

    BINDINGS = [
        Binding("v", "view_cell", "View value", tooltip="Open the value under the cursor whole"),
        Binding("y", "copy_cell", "Copy", tooltip="Copy the value under the cursor"),
        Binding("Y", "copy_row", "Copy row", show=False),
    ]

    class ViewWanted(Message):
        """Open ``text`` (from ``ref``) in the value viewer."""

        def __init__(self, ref: ValueRef, text: str) -> None:
            self.ref = ref
            self.text = text
            super().__init__()

    class CopyWanted(Message):
        """Copy ``text`` (from ``ref``; ``what``: ``value`` or ``row``)."""

        def __init__(self, ref: ValueRef, text: str, what: str) -> None:
            self.ref = ref
            self.text = text
            self.what = what
            super().__init__()

    #: Which :data:`~crmtui.play.cells.SOURCES` entry this table's values come from.
    cell_source = "table"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: The object the rows belong to (None when rows mix objects).
        self.object_name: str | None = None
        #: Column names, raw values and record Ids of the rows, in display order.
        self.raw_columns: list[str] = []
        self.raw_rows: list[list[Any]] = []
        self.raw_ids: list[str | None] = []

    def clear(self, columns: bool = False) -> CellTable:
        """Clear the rows (and, with ``columns``, the columns) and the raw values behind them."""
        self.raw_rows = []
        self.raw_ids = []
        if columns:
            self.raw_columns = []
        super().clear(columns)
        return self

    # -- what is under the cursor (override for tables that are not a plain grid) ----------

    def value_at(self, row: int, column: int) -> tuple[ValueRef, Any] | None:
        """The origin and raw value of one cell, or None when there is none."""
        if not 0 <= row < len(self.raw_rows) or not self.raw_columns:
            return None
        column = max(0, min(column, len(self.raw_columns) - 1))
        record = self.raw_ids[row] if row < len(self.raw_ids) else None
        ref = ValueRef(self.cell_source, self.raw_columns[column], self.object_name, record)
        return ref, self.raw_rows[row][column]

    def row_at(self, row: int) -> tuple[ValueRef, list[str], list[Any]] | None:
        """The origin, column names and raw values of a whole row, or None."""
        if not 0 <= row < len(self.raw_rows):
            return None
        record = self.raw_ids[row] if row < len(self.raw_ids) else None
        ref = ValueRef(self.cell_source, None, self.object_name, record)
        return ref, list(self.raw_columns), list(self.raw_rows[row])

    # -- actions ---------------------------------------------------------------------------

    def _cursor_value(self) -> tuple[ValueRef, Any] | None:
        coordinate = self.cursor_coordinate
        return self.value_at(coordinate.row, coordinate.column)

    def action_view_cell(self) -> None:
        """Open the value under the cursor in the viewer."""
        found = self._cursor_value()
        if found is None:
            self.notify("Nothing under the cursor to open", severity="warning")
            return
        ref, value = found
        self.post_message(self.ViewWanted(ref, value_text(value)))

    def action_view_row(self) -> None:
        """Open the whole row under the cursor in the viewer (``column: value`` blocks)."""
        found = self.row_at(self.cursor_coordinate.row)
        if found is not None:
            ref, columns, values = found
            self.post_message(self.ViewWanted(ref, row_view_text(columns, values)))

    def action_copy_cell(self) -> None:
        """Copy the value under the cursor."""
        found = self._cursor_value()
        if found is None:
            self.notify("Nothing under the cursor to copy", severity="warning")
            return
        ref, value = found
        self.post_message(self.CopyWanted(ref, value_text(value), "value"))

    def action_copy_row(self) -> None:
        """Copy the whole row under the cursor (tab-separated values)."""
        found = self.row_at(self.cursor_coordinate.row)
        if found is None:
            self.notify("Nothing under the cursor to copy", severity="warning")
            return
        ref, _, values = found
        self.post_message(self.CopyWanted(ref, row_text(values), "row"))

    def set_raw(
        self,
        columns: list[str],
        rows: list[list[Any]],
        ids: list[str | None] | None = None,
        *,
        object_name: str | None = None,
    ) -> None:
        """Remember the raw values behind the rendered rows (replacing earlier ones)."""
        self.raw_columns = list(columns)
        self.raw_rows = [list(r) for r in rows]
        self.raw_ids = list(ids) if ids is not None else [None] * len(rows)
        self.object_name = object_name
