"""A minimal terminal for reading a served app's websocket output as a screen.

Textual repaints only what changed: a frame is a run of cursor moves (``CSI row;col H``)
each followed by the new text of one changed stretch of a line, in any order. A typed
word therefore need not arrive as one run of bytes, and searching the raw stream for it
misses it. :class:`Terminal` applies the frames to a grid of cells, as the browser's
terminal does, so what is *on the screen* can be asked after every frame.

Only what Textual writes is understood: cursor positioning, text, CR/LF, clearing the
screen or a line; colours, modes and queries are skipped. Used by the server tests and by
``benchmarks/bench_serve.py`` (a key counts as drawn when the screen shows it).
"""

from __future__ import annotations

import re

from rich.cells import get_character_cell_size

# CSI (with private/intermediate bytes), OSC (BEL or ST terminated), and two-byte escapes.
_ESCAPE = re.compile(
    r"\x1b\[(?P<params>[0-9;?<>=]*)(?P<inter>[ -/]*)(?P<final>[@-~])"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    r"|\x1b[()][0-9A-Za-z]|\x1b[=>78]"
)


class Terminal:
    """A ``width`` x ``height`` grid of cells that terminal output is applied to.

    Args:
        width: Columns.
        height: Rows.
    """

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.rows = [[" "] * width for _ in range(height)]
        self.x = 0
        self.y = 0
        self._pending = ""  # an escape sequence cut at the end of a chunk

    def feed(self, data: bytes | str) -> None:
        """Apply one chunk of output (a websocket message: usually one whole frame)."""
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        text = self._pending + text
        self._pending = ""
        position = 0
        while position < len(text):
            escape = text.find("\x1b", position)
            if escape < 0:
                self._write(text[position:])
                break
            self._write(text[position:escape])
            match = _ESCAPE.match(text, escape)
            if match is None:
                if len(text) - escape < 64 and "\x1b" not in text[escape + 1 :]:
                    self._pending = text[escape:]  # wait for the rest of it
                    break
                position = escape + 1  # not a sequence this terminal knows: drop the ESC
                continue
            if match.group("final"):
                self._csi(match.group("params"), match.group("inter"), match.group("final"))
            position = match.end()

    def _csi(self, params: str, inter: str, final: str) -> None:
        if inter or params.startswith(("?", "<", ">", "=")):
            return  # modes, queries, mouse reports: nothing drawn
        numbers = [int(p) if p.isdigit() else 0 for p in params.split(";")] if params else []
        first = numbers[0] if numbers else 0
        if final in "Hf":
            row = numbers[0] if numbers else 1
            col = numbers[1] if len(numbers) > 1 else 1
            self.y = min(max(row, 1), self.height) - 1
            self.x = min(max(col, 1), self.width) - 1
        elif final == "J" and first == 2:
            self.rows = [[" "] * self.width for _ in range(self.height)]
        elif final == "J" and first == 0:
            self._clear_line(self.x)
            for row in self.rows[self.y + 1 :]:
                row[:] = [" "] * self.width
        elif final == "K":
            self._clear_line(self.x if first == 0 else 0)
        elif final in "ABCD":
            step = max(first, 1)
            if final == "A":
                self.y = max(0, self.y - step)
            elif final == "B":
                self.y = min(self.height - 1, self.y + step)
            elif final == "C":
                self.x = min(self.width - 1, self.x + step)
            else:
                self.x = max(0, self.x - step)

    def _clear_line(self, start: int) -> None:
        self.rows[self.y][start:] = [" "] * (self.width - start)

    def _write(self, text: str) -> None:
        row = self.rows[self.y]
        for char in text:
            if char == "\n":
                self.y = min(self.y + 1, self.height - 1)
                self.x = 0
                row = self.rows[self.y]
            elif char == "\r":
                self.x = 0
            elif char >= " ":
                size = get_character_cell_size(char)
                if size == 0 or self.x >= self.width:
                    continue
                row[self.x] = char
                if size == 2 and self.x + 1 < self.width:
                    row[self.x + 1] = ""  # the right half of a wide character
                self.x += size

    def line(self, y: int) -> str:
        """Row ``y`` (0-based) as text."""
        return "".join(self.rows[y])

    @property
    def text(self) -> str:
        """The whole screen, one line per row."""
        return "\n".join("".join(row) for row in self.rows)
