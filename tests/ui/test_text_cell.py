"""A plain-text table cell drawn directly is drawn exactly as DataTable draws it through rich."""

from __future__ import annotations

import io
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.padding import Padding
from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.coordinate import Coordinate
from textual.renderables.styled import Styled
from textual.widgets import DataTable

from crmtui.ui.widgets.content_table import ContentTable
from crmtui.ui.widgets.text_cell import text_cell_line

CONSOLE = Console(width=200, color_system="truecolor", file=io.StringIO(), legacy_windows=False)

#: Letters, spaces of several kinds, wide and zero-width characters, control-ish ones.
CHARS = st.sampled_from(list("ab Zé ") + ["日", "本", "\u00a0", "\u200b", "\u0301", "\x1c", "😀"])
STYLES = st.sampled_from(
    [
        Style.null(),
        Style(bold=True),
        Style(color="red", bgcolor="#223344"),
        Style.from_meta({"row": 3, "column": 1}) + Style(bgcolor="blue"),
    ]
)
OWN_STYLES = st.sampled_from(["", "dim", "bold red", Style(italic=True), Style.null()])
OVERFLOWS = st.sampled_from([None, "fold", "crop", "ellipsis"])


def rich_line(cell: Text, width: int, padding: int, pre: Style, post: Style) -> Any:
    options = CONSOLE.options.update_dimensions(width, 1).update(no_wrap=True)
    return CONSOLE.render_lines(Styled(Padding(cell, (0, padding)), pre, post), options)


@settings(max_examples=400, deadline=None)
@given(
    text=st.text(CHARS, max_size=30),
    own=OWN_STYLES,
    end=st.sampled_from(["", "\n"]),
    overflow=OVERFLOWS,
    width=st.integers(1, 40),
    padding=st.integers(0, 2),
    pre=STYLES,
    post=STYLES,
)
def test_plain_text_cells_equal_richs_rendering(
    text: str,
    own: Any,
    end: str,
    overflow: Any,
    width: int,
    padding: int,
    pre: Style,
    post: Style,
) -> None:
    cell = Text(text, style=own, end=end, overflow=overflow)
    fast = text_cell_line(CONSOLE, cell, width, padding, pre, post)
    if width - 2 * padding < 1:
        assert fast is None  # left to rich
        return
    assert fast is not None
    assert fast == rich_line(cell, width, padding, pre, post)


def test_cells_it_does_not_handle_are_left_to_rich() -> None:
    spans = Text("ab")
    spans.stylize("bold", 0, 1)
    odd = (Text("a\nb"), Text("a\tb"), Text("ab", justify="right"), Text("ab", overflow="ignore"))
    for cell in (spans, *odd, "ab", 3):
        assert text_cell_line(CONSOLE, cell, 10, 1, Style.null(), Style.null()) is None


class _Table(App[None]):
    def compose(self) -> ComposeResult:
        yield ContentTable(id="t", cursor_type="row", zebra_stripes=True)


async def test_a_content_table_draws_each_cell_as_datatable_does() -> None:
    """Every cell of a real table (header, cursor row, zebra rows, markup, styled Text,
    empty cells, a column narrower than its text) equals DataTable's own drawing."""
    app = _Table()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(ContentTable)
        table.add_column("idx", width=3)
        table.add_column("done", key="done")
        table.add_column("query", width=12)
        rows = [
            ("1", Text("locked", style="dim"), Text("What is [b]this[/b]?")),
            ("22", "", Text("日本語のテキストです")),
            ("[b]3[/b]", Text("✔ 1.00", style="green"), Text("   ")),
        ]
        for row in rows:
            table.add_row(*row)
        table.move_cursor(row=1)
        await pilot.pause()
        fast = 0
        for row in range(-1, len(rows)):
            for column, col in enumerate(table.ordered_columns):
                for cursor in (False, True):
                    width = col.get_render_width(table)
                    style = Style(bgcolor="#101010")
                    table._cell_render_cache.clear()
                    mine = table._render_cell(row, column, style, width, cursor=cursor)
                    table._cell_render_cache.clear()
                    theirs = DataTable._render_cell(table, row, column, style, width, cursor=cursor)
                    assert mine == theirs, (row, column, cursor)
                    cell = table._get_row_renderables(row).cells[column]
                    fast += text_cell_line(app.console, cell, width, 1, style, style) is not None
        assert fast >= 12  # most of these cells took the direct way
        assert table.get_cell_at(Coordinate(0, 0)) == "1"


def _lines(table: ContentTable, draw: Any) -> list[list[Any]]:
    """The table's lines drawn by ``draw`` from empty caches, as segment lists."""
    from textual.geometry import Region

    table._update_count += 1  # a fresh key for every DataTable cache
    table._styles_cache.clear()
    return [list(strip) for strip in draw(Region(0, 0, *table.size))]


async def test_a_content_tables_rows_are_drawn_as_datatable_draws_them() -> None:
    """Whole lines drawn in one pass (each row style worked out once, per-row lookups
    shared by the row's cells) equal DataTable's own lines, segment for segment: cursor
    and hover on various rows, zebra stripes on and off, a fixed row, the cursor hidden,
    another cursor type, row labels (the last two go DataTable's way)."""
    app = _Table()
    async with app.run_test(size=(70, 14)) as pilot:
        table = app.query_one(ContentTable)
        table.add_column("idx", width=3)
        table.add_column("done", key="done")
        table.add_column("query", width=14)
        for n in range(16):
            mark = Text("right", style="green") if n % 3 else ""
            table.add_row(str(n), mark, Text(f"What is [b]{n}[/b]? 日本 …" * (n % 2 + 1)))
        await pilot.pause()
        settings_tried = 0
        for zebra, fixed_rows, show_cursor, cursor_type in (
            (True, 0, True, "row"),
            (False, 0, True, "row"),
            (True, 1, True, "row"),
            (True, 0, False, "row"),
            (True, 0, True, "cell"),
        ):
            table.zebra_stripes = zebra
            table.fixed_rows = fixed_rows
            table.show_cursor = show_cursor
            table.cursor_type = cursor_type
            for cursor_row, hover_row in ((0, 3), (5, 5), (11, 0)):
                table.move_cursor(row=cursor_row)
                table.hover_coordinate = Coordinate(hover_row, 1)
                await pilot.pause()
                mine = _lines(table, table.render_lines)
                theirs = _lines(table, lambda region: DataTable.render_lines(table, region))
                assert mine == theirs, (zebra, fixed_rows, show_cursor, cursor_type, cursor_row)
                settings_tried += 1
        assert settings_tried == 15
