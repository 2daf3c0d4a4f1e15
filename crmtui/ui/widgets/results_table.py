"""The console's results table: every cell can be opened whole (v, Enter) and copied (y, Y)."""

from __future__ import annotations

from typing import Any

from textual.widgets import DataTable

from crmtui.query.results import record_id_of
from crmtui.ui.widgets.cell_table import CellTable
from crmtui.ui.widgets.records_table import cell


class ResultsTable(CellTable):
    """Rows of a query result; the raw values and each row's record Id are kept."""

    cell_source = "console"

    def show_result(self, result: Any, limit: int) -> None:
        """Show the first ``limit`` rows of a :class:`~crmtui.query.QueryResult`."""
        self.clear(columns=True)
        columns = list(result.columns)
        if not columns and getattr(result, "total_size", 0):
            self.add_column("totalSize")
            self.add_row(str(result.total_size))
            self.set_raw(["totalSize"], [[result.total_size]], object_name=result.object)
            return
        rows = result.flat_rows()[:limit]
        ids = [record_id_of(record) for record in result.records[:limit]]
        for name in columns:
            self.add_column(name, key=name)
        for row in rows:
            self.add_row(*(cell(v) for v in row))
        self.set_raw(columns, rows, ids, object_name=result.object)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_view_cell()

    def on_data_table_cell_selected(self, event: DataTable.CellSelected) -> None:
        # The console's results have a cell cursor: Enter opens the cell under it.
        event.stop()
        self.action_view_cell()
