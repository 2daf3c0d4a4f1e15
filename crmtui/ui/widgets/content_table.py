"""A DataTable whose auto-width columns always show their whole content.

Why this exists (issue #9: Ids cut to ``50``, ``005Ws000003``, ``2020-``): Textual's
``DataTable`` (8.2.8) measures auto-width columns lazily, on the table's own idle event, and
caches every rendered cell and row under keys that hold an update counter but not the
column widths. When the screen paints a frame between ``add_row`` and that idle (a worker
result arriving while the machine is busy is enough), the cells are rendered at the width of
the column *label* and cached; the idle then widens the columns, but nothing changes the
cache keys, so a fixed-size table (``height: 1fr``, no resize) keeps showing the cut cells
until some unrelated change (a new page, a sort) bumps the counter. Widgets with ``width:
auto`` escape it only because their own resize bumps the counter.

:class:`ContentTable` closes the gap where it opens: after the idle measurement, if any
column width changed, the render caches are invalidated (the same counter ``add_row`` and
``_on_resize`` bump) and the table repaints.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.style import Style
from textual import events
from textual.widgets import DataTable

from crmtui.ui.widgets.text_cell import text_cell_line


class ContentTable(DataTable[Any]):
    """A :class:`~textual.widgets.DataTable` that repaints when its column widths change."""

    #: The width its rows were last drawn at (None: not drawn yet).
    _drawn_width: int | None = None

    def render_lines(self, crop: Any) -> Any:
        self._drawn_width = self.size.width
        return super().render_lines(crop)

    def _on_resize(self, event: events.Resize) -> None:
        # DataTable forgets every drawn row and cell on any Resize; a row depends on the
        # width only (the blank run that extends it to the edge). Textual sends a Resize
        # after the first layout, at the size the first frame was drawn at: the picker
        # was drawn twice at start. Same width: DataTable's handler is skipped.
        if self._drawn_width == event.size.width:
            event.prevent_default()

    def _column_widths(self) -> tuple[int, ...]:
        return tuple(column.get_render_width(self) for column in self.ordered_columns) + (
            self._row_label_column_width,
        )

    async def _on_idle(self, event: events.Idle) -> None:
        before = self._column_widths()
        await super()._on_idle(event)
        if self._column_widths() != before:
            # Every render cache key of DataTable includes _update_count: bumping it drops
            # cells and rows painted at the old widths.
            self._update_count += 1
            self.refresh()

    def _update_dimensions(self, new_rows: Iterable[Any]) -> None:
        # Measuring new rows' cells only serves auto-width columns, row labels and
        # auto-height rows; a table with none of them (the picker: widths given, one line a
        # row) skips it: 90 rows x 4 cells measured was ~10 ms of the picker's first frame.
        rows = list(new_rows)
        if not any(column.auto_width for column in self.columns.values()) and not any(
            (row := self.rows.get(key)) is not None and (row.auto_height or row.label is not None)
            for key in rows
        ):
            rows = []
        super()._update_dimensions(rows)

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> Any:
        # A one-line plain-text cell is drawn by text_cell_line (5x faster, the same
        # segments); anything else, or a cell already drawn, goes DataTable's own way.
        # The cache key and the styles are DataTable's (textual 8.2.8, pinned).
        if row_index == -1:
            row_key, height = self._header_row_key, self.header_height
        else:
            row_key = self._row_locations.get_key(row_index)
            row = self.rows.get(row_key) if row_key is not None else None
            height = 0 if row is None or row.auto_height else row.height
        column_key = self._column_locations.get_key(column_index)
        cache_key = (
            row_key,
            column_key,
            base_style,
            cursor,
            hover,
            self._show_hover_cursor,
            self._update_count,
            self._pseudo_class_state,
        )
        if height != 1 or column_index == -1 or cache_key in self._cell_render_cache:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        cells = self._get_row_renderables(row_index).cells
        is_header = row_index == -1
        is_fixed = not is_header and (
            row_index < self.fixed_rows or column_index < self.fixed_columns
        )
        component_style, post_style = self._get_styles_to_render_cell(
            is_header,
            False,
            is_fixed,
            hover,
            cursor,
            self.show_cursor,
            self._show_hover_cursor,
            self.cursor_foreground_priority == "css",
            self.cursor_background_priority == "css",
        )
        pre_style = base_style + Style.from_meta({"row": row_index, "column": column_index})
        lines = text_cell_line(
            self.app.console,
            cells[column_index],
            width,
            self.cell_padding,
            pre_style + component_style,
            post_style,
        )
        if lines is None:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        self._cell_render_cache[cache_key] = lines
        return lines
