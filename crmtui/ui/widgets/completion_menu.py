"""A small completion dropdown shown under a text cursor.

Textual 8.2.8 has no completion for ``TextArea``, so this is one: an ``OptionList`` drawn
on the screen's overlay layer at an absolute screen offset (the editor's cursor), never
focused (the editor keeps focus and forwards Up/Down/Enter/Tab/Escape while it is open).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.geometry import Offset
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from crmtui.play.completion import Completion, CompletionItem

_KIND_STYLE = {
    "object": "bold",
    "child": "bold",
    "field": "",
    "relationship": "cyan",
}


class CompletionMenu(OptionList, can_focus=False):
    """The dropdown; :meth:`open` fills and places it, :meth:`close` hides it."""

    DEFAULT_CSS = """
    CompletionMenu {
        overlay: screen;
        constrain: inside inflect;
        display: none;
        width: auto;
        min-width: 24;
        max-width: 72;
        height: auto;
        max-height: 10;
        border: round $accent;
        background: $panel;
        padding: 0;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.completion: Completion | None = None

    @property
    def is_open(self) -> bool:
        """Whether the menu is showing."""
        return self.display and self.completion is not None and bool(self.completion.items)

    def open(self, completion: Completion, at: Offset) -> None:
        """Show ``completion``'s items with the top-left corner at screen offset ``at``."""
        self.completion = completion
        self.clear_options()
        self.add_options(Option(self._label(item)) for item in completion.items)
        self.highlighted = 0
        self.absolute_offset = at
        self.display = True

    def close(self) -> None:
        """Hide the menu."""
        self.completion = None
        self.display = False

    def chosen(self) -> CompletionItem | None:
        """The highlighted item."""
        if not self.is_open or self.highlighted is None or self.completion is None:
            return None
        return self.completion.items[self.highlighted]

    def move(self, step: int) -> None:
        """Move the highlight by ``step``, wrapping around."""
        if self.is_open and self.completion is not None:
            count = len(self.completion.items)
            self.highlighted = ((self.highlighted or 0) + step) % count

    @staticmethod
    def _label(item: CompletionItem) -> Text:
        text = Text(item.text, style=_KIND_STYLE.get(item.kind, ""), no_wrap=True)
        if item.kind == "relationship":
            text.append(".", style="cyan")
        if item.detail:
            text.append(f"  {item.detail}", style="dim")
        text.truncate(70, overflow="ellipsis")
        return text
