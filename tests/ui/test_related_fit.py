"""A record page's related lists use the room they have: columns are fitted to the panel
(:func:`crmtui.ui.widgets.record_panel._fit`) so that the kept columns fit, no kept column
is cut while room is left over, a column is left out only when the kept ones at their least
width fill the room, and the first column always stays."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from crmtui.ui.widgets.record_panel import MIN_CELL, RELATED_CELL_LIMIT, _fit, _line_width


@settings(max_examples=300, deadline=None)
@given(
    natural=st.lists(st.integers(min_value=1, max_value=80), min_size=1, max_size=9),
    room=st.integers(min_value=10, max_value=160),
)
def test_related_columns_use_the_room_they_have(natural: list[int], room: int) -> None:
    widths = _fit(natural, room)
    capped = [min(w, RELATED_CELL_LIMIT) for w in natural]
    least = [min(w, MIN_CELL) for w in capped]
    keep = len(widths)
    assert keep >= 1
    # The kept columns fit (the first column alone may not, at its least width).
    if keep > 1 or least[0] <= room:
        assert _line_width(widths) <= room or widths == least[:keep]
    # No kept column is cut while room is left over.
    if _line_width(widths) < room:
        assert widths == capped[:keep]
    # A column is left out only when it would not fit beside the kept ones at least width.
    if keep < len(natural):
        assert _line_width(least[: keep + 1]) > room
    # Shrinking never goes below a date's width, nor widens a column.
    assert all(min(c, MIN_CELL) <= w <= c for w, c in zip(widths, capped, strict=False))


def test_a_task_subject_is_not_cut_for_columns_that_are_left_out() -> None:
    # Subject, Status, Priority, ActivityDate, Description, OwnerId, WhatId, Type in ~50.
    widths = _fit([42, 11, 8, 16, 40, 18, 18, 10], 52)
    assert widths[0] > MIN_CELL and _line_width(widths) <= 52
