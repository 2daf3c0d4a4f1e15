"""The completion dropdown's state and the rows it draws under the editor's cursor.

Textual 8.2.8 has no completion for ``TextArea``, so this is a small one. It is not a widget:
showing, moving or hiding a widget makes Textual lay the whole screen out again, far too
slow for every keystroke (docs/performance.md). Instead the
editor draws these rows over its own lines (:meth:`CompletionMenu.rows`), so opening and
updating the list only repaints the editor.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text

from crmtui.play.completion import Completion, CompletionItem

#: Most rows shown at once; the list scrolls to keep the highlighted item in view.
MAX_ROWS = 8
MAX_WIDTH = 64

_KIND_STYLE = {"object": "bold", "child": "bold", "field": "", "relationship": "cyan"}
_BACKGROUND = Style(bgcolor="grey23", color="grey93")
_HIGHLIGHT = Style(bgcolor="dodger_blue3", color="white", bold=True)
_DETAIL = Style(color="grey62")


@dataclass
class CompletionMenu:
    """What the dropdown shows: the candidates, the highlighted one, the first row shown."""

    completion: Completion | None = None
    highlighted: int = 0
    top: int = 0

    @property
    def is_open(self) -> bool:
        """Whether there is something to show."""
        return self.completion is not None and bool(self.completion.items)

    def open(self, completion: Completion) -> None:
        """Show ``completion``'s items, the first highlighted."""
        self.completion, self.highlighted, self.top = completion, 0, 0

    def close(self) -> None:
        """Hide the list."""
        self.completion = None

    def chosen(self) -> CompletionItem | None:
        """The highlighted item, if the list is open."""
        if not self.is_open or self.completion is None:
            return None
        return self.completion.items[self.highlighted]

    def move(self, step: int) -> None:
        """Move the highlight by ``step``, wrapping around."""
        if self.is_open and self.completion is not None:
            self.highlighted = (self.highlighted + step) % len(self.completion.items)

    def rows(self, height: int, width: int) -> list[Text]:
        """The rows to draw, at most ``height`` of them, each exactly ``width`` cells."""
        if not self.is_open or self.completion is None or height <= 0:
            return []
        items = self.completion.items
        height = min(height, MAX_ROWS, len(items))
        if self.highlighted < self.top:
            self.top = self.highlighted
        elif self.highlighted >= self.top + height:
            self.top = self.highlighted - height + 1
        rows = []
        for index in range(self.top, self.top + height):
            rows.append(self._row(items[index], index == self.highlighted, width))
        if len(items) > height:
            more = f" {self.highlighted + 1}/{len(items)} "
            last = rows[-1]
            last.right_crop(len(more))
            last.append(more, style=_DETAIL + _BACKGROUND)
        return rows

    def width(self, room: int) -> int:
        """How wide the list is drawn, given ``room`` cells to the right edge."""
        if not self.is_open or self.completion is None:
            return 0
        longest = max(len(item.text) + len(item.detail) + 4 for item in self.completion.items)
        return max(12, min(longest, MAX_WIDTH, room))

    @staticmethod
    def _row(item: CompletionItem, highlighted: bool, width: int) -> Text:
        base = _HIGHLIGHT if highlighted else _BACKGROUND
        text = Text(" ", style=base, no_wrap=True, end="")
        text.append(item.text, style=base + Style.parse(_KIND_STYLE.get(item.kind) or "none"))
        if item.kind == "relationship":
            text.append(".", style=base)
        if item.detail:
            text.append(f"  {item.detail}", style=base if highlighted else base + _DETAIL)
        text.truncate(width, overflow="ellipsis", pad=True)  # padded in the row's base style
        return text
