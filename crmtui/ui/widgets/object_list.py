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

    def set_objects(self, counts: list[tuple[str, int]]) -> None:
        """Fill the list from ``(object, row count)`` pairs."""
        self.clear_options()
        width = max((len(name) for name, _ in counts), default=0)
        for name, count in counts:
            label = Text(name.ljust(width + 1), no_wrap=True, overflow="ellipsis")
            label.append(f"{count:>7,}", style="dim")
            self.add_option(Option(label, id=name))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.ObjectChosen(event.option.id))
