"""A boxed text table without Rich, for commands whose whole output is one table.

Importing Rich's console and table costs more CPU than ``crmtui query`` spends on everything
else of a one-line query (docs/performance.md). This draws the same kind of table Rich draws by
default (a heavy header box, light body lines), fitted to the terminal's width: when the
columns do not fit, the widest ones are narrowed and their cells folded onto more lines.

Cells must already be printable (:func:`crmtui.sanitise.printable`): one line each, no
control characters. Wide (East Asian) characters count two cells, combining marks none.
"""

from __future__ import annotations

import os
import shutil
import sys
import unicodedata
from collections.abc import Sequence
from typing import IO


def cell_width(text: str) -> int:
    """Terminal cells ``text`` takes."""
    if text.isascii():
        return len(text)
    return sum(_char_width(char) for char in text)


def _char_width(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _widest_char(text: str) -> int:
    return 1 if text.isascii() else max((_char_width(c) for c in text), default=1)


def fold(text: str, width: int) -> list[str]:
    """``text`` wrapped at spaces into lines of at most ``width`` cells (at least one line);
    a word longer than a line is cut, as Rich's ``overflow="fold"`` does."""
    lines: list[str] = []
    line, used = "", 0
    for word in text.split(" "):
        size = cell_width(word)
        if line and used + 1 + size <= width:
            line, used = f"{line} {word}", used + 1 + size
            continue
        if line:
            lines.append(line)
        line, used = "", 0
        for char in word:  # a new line for the word, cut where it is too long
            char_size = _char_width(char)
            if used + char_size > width and line:
                lines.append(line)
                line, used = "", 0
            line += char
            used += char_size
    lines.append(line)
    return lines


def fit_widths(
    natural: Sequence[int], available: int, least: Sequence[int] | None = None
) -> list[int]:
    """Column widths within ``available`` cells: the widest narrowed first, none below its
    ``least`` (1, or 2 for a column with a wide character, which cannot be cut)."""
    widths = list(natural)
    least = [1] * len(widths) if least is None else least
    excess = sum(widths) - available
    while excess > 0:
        narrowable = [i for i, w in enumerate(widths) if w > least[i]]
        if not narrowable:
            break
        widest = max(widths[i] for i in narrowable)
        tied = [i for i in narrowable if widths[i] == widest]
        # Narrow every column of the widest width towards the next width (or by the excess).
        second = max((widths[i] for i in narrowable if widths[i] < widest), default=0)
        for i in tied:
            if excess <= 0:
                break
            cut = min(widest - max(second, least[i]), -(-excess // len(tied)), excess)
            widths[i] -= cut
            excess -= cut
    return widths


def terminal_width(out: IO[str]) -> int:
    """The width to draw for: the terminal's, else ``COLUMNS``, else 80 (as Rich does)."""
    try:
        if out.isatty():
            return shutil.get_terminal_size().columns
    except (AttributeError, ValueError, OSError):
        pass
    try:
        return max(int(os.environ.get("COLUMNS", "")), 10)
    except ValueError:
        return 80


def render(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int) -> str:
    """The table as text (lines ending in a newline), at most ``width`` cells wide when it
    can be (each column keeps at least one cell)."""
    count = len(headers)
    natural = [cell_width(h) for h in headers]
    least = [_widest_char(h) for h in headers]  # no column narrower than a character
    for row in rows:
        for i, cell in enumerate(row):
            natural[i] = max(natural[i], cell_width(cell))
            least[i] = max(least[i], _widest_char(cell))
    widths = fit_widths(natural, width - (3 * count + 1), least)

    def line(left: str, fill: str, middle: str, right: str) -> str:
        return left + middle.join(fill * (w + 2) for w in widths) + right + "\n"

    def cells(values: Sequence[str], edge: str, bar: str) -> str:
        folded = [fold(value, w) for value, w in zip(values, widths, strict=True)]
        out = []
        for n in range(max(len(f) for f in folded)):
            parts = []
            for piece, w in zip(folded, widths, strict=True):
                text = piece[n] if n < len(piece) else ""
                parts.append(" " + text + " " * (w - cell_width(text)) + " ")
            out.append(edge + bar.join(parts) + edge + "\n")
        return "".join(out)

    text = [line("┏", "━", "┳", "┓"), cells(headers, "┃", "┃"), line("┡", "━", "╇", "┩")]
    text += [cells(row, "│", "│") for row in rows]
    text.append(line("└", "─", "┴", "┘"))
    return "".join(text)


def print_table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], out: IO[str] | None = None
) -> None:
    """Draw the table on ``out`` (standard output) at its width."""
    out = sys.stdout if out is None else out
    out.write(render(headers, rows, terminal_width(out)))
