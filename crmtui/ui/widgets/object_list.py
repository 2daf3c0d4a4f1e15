"""The list of the org's objects with their row counts."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option


class ObjectList(OptionList):
    """Objects with row counts; selecting one opens its table."""

    class ObjectChosen(Message):
        """The user chose an object."""

        def __init__(self, object_name: str) -> None:
            self.object_name = object_name
            super().__init__()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Objects"
        self.counts: list[tuple[str, int]] = []
        self._shape: tuple[bool, int] | None = None

    def set_objects(self, counts: list[tuple[str, int]]) -> None:
        """Fill the list from ``(object, row count)`` pairs."""
        self.counts = list(counts)
        self._shape = None
        self._fill()

    def _fill(self) -> None:
        """Names and counts when they fit the list's width, else names only (the count
        shows in the browser's status line when a table opens)."""
        counts = self.counts
        width = max((len(name) for name, _ in counts), default=0)
        room = self.scrollable_content_region.width - 1  # the option's padding
        with_counts = room <= 0 or room >= width + 8
        if (with_counts, room) == self._shape:
            return
        self._shape = (with_counts, room)
        highlighted = self.highlighted
        self.clear_options()
        for name, count in counts:
            if with_counts:
                label = Text(name.ljust(width + 1), no_wrap=True)
                label.append(f"{count:>7,}", style="dim")
            else:
                label = Text(name, no_wrap=True)
                label.truncate(room, overflow="ellipsis")
            self.add_option(Option(label, id=name))
        # Start on the first object, so the focused list shows where Enter goes.
        self.highlighted = (
            highlighted if highlighted is not None and highlighted < len(counts) else 0
        )

    def on_resize(self, event: Any) -> None:
        if self.counts:
            self._fill()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.ObjectChosen(event.option.id))
