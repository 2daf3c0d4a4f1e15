"""Reading a long value: word wrapping and find-in-text for the value viewer, as pure functions.

The viewer draws only the rows on screen, so opening a 100 KB transcript costs one pass
over its text here (:func:`wrap`) and nothing per frame. Rows are ``(start, end)`` offsets
into the text, so a match found by offset (:func:`find_all`) maps straight to its row.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

TAB = "    "


def normalize(text: str) -> str:
    """The text as the viewer shows it: ``\\r\\n`` and ``\\r`` as line breaks, tabs as spaces."""
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", TAB)


def wrap(text: str, width: int) -> list[tuple[int, int]]:
    """Word-wrap ``text`` to ``width`` columns.

    Line breaks are kept; a line longer than ``width`` breaks after its last space that
    fits (the space ends the row), or at ``width`` when a word is longer than a row.

    Returns:
        One ``(start, end)`` offset pair per screen row (``end`` exclusive, without the
        line break); an empty line is an empty row.
    """
    width = max(1, width)
    rows: list[tuple[int, int]] = []
    append = rows.append
    start = 0
    length = len(text)
    while True:
        newline = text.find("\n", start)
        line_end = length if newline < 0 else newline
        pos = start
        while line_end - pos > width:
            cut = text.rfind(" ", pos, pos + width + 1)
            if cut <= pos:
                append((pos, pos + width))
                pos += width
            else:
                append((pos, cut))
                pos = cut + 1
        append((pos, line_end))
        if newline < 0:
            return rows
        start = newline + 1


def find_all(text: str, needle: str, *, case_sensitive: bool = False) -> list[int]:
    """Start offsets of every (non-overlapping) occurrence of ``needle`` in ``text``."""
    if not needle:
        return []
    hay, pin = (text, needle) if case_sensitive else (text.lower(), needle.lower())
    found: list[int] = []
    pos = hay.find(pin)
    step = len(pin)
    while pos >= 0:
        found.append(pos)
        pos = hay.find(pin, pos + step)
    return found


def row_of(starts: Sequence[int], offset: int) -> int:
    """The index of the row showing ``offset``, given the rows' start offsets in order."""
    return max(0, bisect_right(starts, offset) - 1)
