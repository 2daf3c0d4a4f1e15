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

It also draws faster (a cold start's picker draws 44 rows in its first frame): a plain-text
cell goes straight to its segments (:mod:`crmtui.ui.widgets.text_cell`), and while one call
of :meth:`ContentTable.render_lines` draws its rows, each style that depends on the row's
parity only (zebra stripes) is worked out once rather than once a row; so are the header's
style and the table's background, which a row-cursor table without row labels or fixed
columns never uses (DataTable works both out for every row).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.coordinate import Coordinate
from textual.widgets import DataTable

from crmtui.ui.widgets.text_cell import text_cell_line


class ContentTable(DataTable[Any]):
    """A :class:`~textual.widgets.DataTable` that repaints when its column widths change."""

    #: The width its rows were last drawn at (None: not drawn yet).
    _drawn_width: int | None = None
    #: While :meth:`render_lines` runs: the component styles it has worked out, by name.
    _pass_styles: dict[str, Style] | None = None

    def render_lines(self, crop: Any) -> Any:
        self._drawn_width = self.size.width
        # Styles cannot change while one call draws its lines: each is worked out once.
        self._pass_styles = {}
        try:
            return super().render_lines(crop)
        finally:
            self._pass_styles = None

    def _get_row_style(self, row_index: int, base_style: Style) -> Style:
        # DataTable's choice of component (textual 8.2.8), each looked up once a pass: a
        # component's rich_style walks every ancestor's styles.
        memo = self._pass_styles
        if memo is None:
            return super()._get_row_style(row_index, base_style)
        if row_index == -1:
            name = "datatable--header"
        elif row_index < self.fixed_rows:
            name = "datatable--fixed"
        elif self.zebra_stripes:
            name = "datatable--odd-row" if row_index % 2 else "datatable--even-row"
        else:
            return base_style
        style = memo.get(name)
        if style is None:
            style = memo[name] = self.get_component_styles(name).rich_style
        return style

    def _render_line_in_row(
        self,
        row_key: Any,
        line_no: int,
        base_style: Style,
        cursor_location: Coordinate,
        hover_location: Coordinate,
    ) -> Any:
        # DataTable's own (textual 8.2.8) for a row cursor without row labels or fixed
        # columns, less the header style and background it works out and never uses there.
        # tests/ui/test_text_cell.py holds the lines equal to DataTable's.
        if (
            self._pass_styles is None
            or self.cursor_type != "row"
            or self.fixed_columns
            or (self._labelled_row_exists and self.show_row_labels)
        ):
            return super()._render_line_in_row(
                row_key, line_no, base_style, cursor_location, hover_location
            )
        cursor_type = self.cursor_type
        show_cursor = self.show_cursor
        show_hover = self._show_hover_cursor
        cache_key = (
            row_key,
            line_no,
            base_style,
            cursor_location,
            hover_location,
            cursor_type,
            show_cursor,
            show_hover,
            self._update_count,
            self._pseudo_class_state,
        )
        if cache_key in self._row_render_cache:
            return self._row_render_cache[cache_key]
        row_index = self._row_locations.get(row_key) if row_key in self._row_locations else -1
        assert row_index is not None
        row_style = self._get_row_style(row_index, base_style)
        highlight = self._should_highlight
        widths = [column.get_render_width(self) for column in self.ordered_columns]
        # A row cursor (and hover) covers every cell of its row or none.
        cursor = highlight(cursor_location, Coordinate(row_index, 0), "row")
        hover = highlight(hover_location, Coordinate(row_index, 0), "row")
        scrollable_row = [
            lines[line_no]
            for lines in self._render_cells(row_index, enumerate(widths), row_style, cursor, hover)
        ]
        # Extending the row's style to the right edge.
        remaining_space = max(0, self.size.width - sum(widths) - self._row_label_column_width)
        extend_style, _ = self._get_styles_to_render_cell(
            row_index == -1,
            False,
            False,
            highlight(hover_location, Coordinate(row_index or 0, 0), "row"),
            row_index == cursor_location.row,
            show_cursor,
            show_hover,
            False,
            False,
        )
        extend_style = row_style + extend_style
        extend_style += Style.from_meta({"row": row_index, "column": 0, "out_of_bounds": True})
        scrollable_row.append([Segment(" " * remaining_space, extend_style)])
        row_pair: tuple[list[Any], list[Any]] = ([], scrollable_row)
        self._row_render_cache[cache_key] = row_pair
        return row_pair

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
        return self._render_cells(row_index, ((column_index, width),), base_style, cursor, hover)[0]

    def _render_cells(
        self,
        row_index: int,
        columns: Iterable[tuple[int, int]],
        base_style: Style,
        cursor: bool,
        hover: bool,
    ) -> list[Any]:
        """DataTable's ``_render_cell`` for each ``(column_index, width)`` of one row.

        A one-line plain-text cell is drawn by text_cell_line (faster, the same segments:
        docs/performance.md); anything else goes DataTable's own way. What depends on the row only
        (its key and height, the cursor's styles) is looked up once, not once a cell. The
        cache keys and the styles are DataTable's (textual 8.2.8, pinned).
        """
        if row_index == -1:
            row_key, height = self._header_row_key, self.header_height
        else:
            row_key = self._row_locations.get_key(row_index)
            row = self.rows.get(row_key) if row_key is not None else None
            height = 0 if row is None or row.auto_height else row.height
        show_hover = self._show_hover_cursor
        update_count = self._update_count
        pseudo_classes = self._pseudo_class_state
        cache = self._cell_render_cache
        column_key_of = self._column_locations.get_key
        drawn: list[Any] = []
        plain: tuple[Any, ...] | None = None  # what every plain cell of the row shares
        for column_index, width in columns:
            cache_key = (
                row_key,
                column_key_of(column_index),
                base_style,
                cursor,
                hover,
                show_hover,
                update_count,
                pseudo_classes,
            )
            lines = cache.get(cache_key)
            if lines is None and height == 1 and column_index != -1:
                if plain is None:
                    plain = (
                        self._get_row_renderables(row_index).cells,
                        self.app.console,
                        self.cell_padding,
                        row_index != -1 and row_index < self.fixed_rows,
                        self.fixed_columns,
                        (self.show_cursor, show_hover),
                        (
                            self.cursor_foreground_priority == "css",
                            self.cursor_background_priority == "css",
                        ),
                    )
                cells, console, padding, fixed_row, fixed_columns, shown, priority = plain
                component_style, post_style = self._get_styles_to_render_cell(
                    row_index == -1,
                    False,
                    fixed_row or (row_index != -1 and column_index < fixed_columns),
                    hover,
                    cursor,
                    *shown,
                    *priority,
                )
                pre_style = base_style + Style.from_meta({"row": row_index, "column": column_index})
                lines = text_cell_line(
                    console,
                    cells[column_index],
                    width,
                    padding,
                    pre_style + component_style,
                    post_style,
                )
                if lines is not None:
                    cache[cache_key] = lines
            if lines is None:
                lines = super()._render_cell(
                    row_index, column_index, base_style, width, cursor, hover
                )
            drawn.append(lines)
        return drawn
