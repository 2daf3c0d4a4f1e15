"""``crmtui query``'s table, drawn without Rich: it fits the width it is given, every cell's
text is in it whole and in order, and every row has its columns aligned."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from crmtui.commands.plain_table import cell_width, fold, render

# Printable text as table cells get it: no controls, one line; wide and combining characters.
_CHARS = st.sampled_from(list("ab Z09-_.,") + ["é", "漢", "字", "\u0301", "ß"])
_CELL = st.text(_CHARS, max_size=40)


@settings(max_examples=200, deadline=None)
@given(text=_CELL, width=st.integers(2, 30))
def test_folding_keeps_the_text_and_the_width(text: str, width: int) -> None:
    lines = fold(text, width)
    assert all(cell_width(line) <= width for line in lines)
    # Lines break at a space (dropped) or inside a word; nothing else is lost or added.
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")


@settings(max_examples=150, deadline=None)
@given(
    table=st.integers(1, 5).flatmap(
        lambda n: st.tuples(
            st.lists(_CELL.filter(bool), min_size=n, max_size=n),
            st.lists(_CELL, min_size=n, max_size=n),
        )
    ),
    width=st.integers(20, 120),
)
def test_the_table_fits_its_width_and_keeps_every_cell(
    table: tuple[list[str], list[str]], width: int
) -> None:
    headers, row = table
    lines = render(headers, [row], width).splitlines()
    widths = {cell_width(line) for line in lines}
    assert len(widths) == 1  # every line of the box the same width: columns aligned
    if width >= 5 * len(headers) + 1:  # room for the widest character of each column
        assert widths.pop() <= width
    # Each column, read top to bottom, is its header, then the row's cell (spaces aside).
    rule = next(n for n, line in enumerate(lines) if line.startswith("┡"))
    head = [line.split("┃")[1:-1] for line in lines[1:rule]]
    body = [line.split("│")[1:-1] for line in lines[rule + 1 : -1]]
    for i, (header, cell) in enumerate(zip(headers, row, strict=True)):
        assert "".join(parts[i] for parts in head).replace(" ", "") == header.replace(" ", "")
        assert "".join(parts[i] for parts in body).replace(" ", "") == cell.replace(" ", "")


def test_a_query_table_looks_like_richs() -> None:
    assert render(["Id", "Name"], [["001", "Acme"]], 80) == (
        "┏━━━━━┳━━━━━━┓\n┃ Id  ┃ Name ┃\n┡━━━━━╇━━━━━━┩\n│ 001 │ Acme │\n└─────┴──────┘\n"
    )
