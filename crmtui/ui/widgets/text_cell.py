"""One line of a table cell holding plain text, drawn without going through rich's layout.

Textual's DataTable draws each cell as ``Styled(Padding(cell), pre, post)`` rendered by the
console at the cell's width, one line high: for a one-line ``Text`` that is text wrapping,
joining, measuring and three passes over the segments for every cell, and the picker's
first frame draws many cells. :func:`text_cell_line` builds the same segments directly
(about five times faster; docs/performance.md) for the cells that need
none of that: a ``Text`` without spans, tabs or newlines, default justification. Anything
else answers None and goes the DataTable's way. tests/ui/test_text_cell.py holds it equal
to rich's rendering, segment for segment, over generated texts, styles and widths.
"""

from __future__ import annotations

from itertools import islice

from rich.cells import cell_len, set_cell_size
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

#: Overflow methods whose truncation this repeats (``ignore`` is left to rich).
_OVERFLOWS = (None, "fold", "crop", "ellipsis")


def text_cell_line(
    console: Console,
    cell: object,
    width: int,
    padding: int,
    pre_style: Style,
    post_style: Style,
) -> list[list[Segment]] | None:
    """The one line DataTable would draw for ``cell``, or None when it is not plain text.

    Args:
        console: The app's console (styles by name come from its theme).
        cell: The cell's renderable, as DataTable formats it.
        width: The cell's width, padding included.
        padding: Blank cells left and right of the text.
        pre_style: Style under the cell's own (row, cursor, meta).
        post_style: Style over it (the cursor's colours when CSS has priority).

    Returns:
        ``[line]`` as ``console.render_lines(Styled(Padding(cell, (0, padding)), pre_style,
        post_style), options(width, height=1, no_wrap))`` returns it.
    """
    if (
        not isinstance(cell, Text)
        or cell.spans
        or cell.justify not in (None, "default")
        or cell.overflow not in _OVERFLOWS
    ):
        return None
    plain = cell.plain
    inner = width - 2 * padding
    if inner < 1 or "\n" in plain or "\t" in plain:
        return None
    # Text.wrap (no_wrap) truncates the line to the width, by cells.
    if cell_len(plain) > inner:
        if cell.overflow == "ellipsis":
            plain = set_cell_size(plain, inner - 1) + "…"
        else:
            plain = set_cell_size(plain, inner)
    # Text.render of the wrapped line: its own style becomes a span over it, and an empty
    # span draws nothing, while an unstyled text is one (possibly empty) segment.
    if not cell.style:
        text = [Segment(plain)]
    elif plain:
        text = [Segment(plain, console.get_style(cell.style, default=Style.null()))]
    else:
        text = []
    pad_style = console.get_style("none")
    if text:
        line = Segment.adjust_line_length(text, inner, style=pad_style, pad=True)
    else:  # no line at all: render_lines pads the height with a blank one
        line = [Segment(" " * inner, pad_style)]
    if padding:
        edge = Segment(" " * padding, pad_style)
        segments = [edge, *line, edge, Segment.line()]
    else:
        segments = [*line, Segment.line()]
    styled = Segment.apply_style(segments, style=pre_style, post_style=post_style)
    return list(
        islice(Segment.split_and_crop_lines(styled, width, include_new_lines=False, pad=True), 1)
    )
