"""The list of the org's objects with their row counts; typing a name finds it.

After ``o`` (which focuses the list and arms it, :meth:`ObjectList.arm`), typing finds an
object by its name: the letters typed so far (shown
in the list's bottom border) highlight the object named so, else the first whose name
starts with them; a letter no name continues starts a new name (``o`` then ``Case``: the
``o`` that focused the list is not in the way); Backspace takes a letter back, an arrow key
starts afresh; Enter, Escape or leaving the list ends the finding. The letters stay in the
list: on the play screen single letters are keys too (``p`` pauses, ``n`` moves on, ``c``
opens the console), and a person typing ``Opportunity`` must not set those off. Before
``o`` (the list has the focus when an instance opens) those keys work as ever.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
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
        #: The letters typed to find an object (see the module docs).
        self.typed = ""
        #: Whether typed letters find an object (after ``o``) rather than reach the screen.
        self.armed = False

    def arm(self) -> None:
        """Focus the list and take typed letters as an object's name (``o``)."""
        self.armed, self.typed = True, ""
        self._show_typed()
        self.focus()

    def _disarm(self) -> None:
        self.armed, self.typed = False, ""
        self._show_typed()

    def on_blur(self, event: events.Blur) -> None:
        self._disarm()

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

    def find(self, text: str) -> int | None:
        """The index of the object ``text`` names: the same name, else the first starting
        with it (case-insensitive); None when none does."""
        needle = text.lower()
        names = [name.lower() for name, _ in self.counts]
        if needle in names:
            return names.index(needle)
        return next((i for i, n in enumerate(names) if n.startswith(needle)), None)

    def _show_typed(self) -> None:
        if not self.armed:
            self.border_subtitle = ""
        else:
            self.border_subtitle = f"find: {self.typed}" if self.typed else "type a name"

    def on_key(self, event: events.Key) -> None:
        if not self.armed:
            return
        if event.key in ("enter", "escape"):
            if event.key == "escape" and self.typed:
                event.stop()  # Escape takes the typed name back, not the instance
                event.prevent_default()
            self._disarm()
            return
        if (
            event.is_printable
            and event.character
            and (event.character.isalnum() or event.character == "_")
        ):
            event.stop()
            event.prevent_default()
            typed = self.typed + event.character
            found = self.find(typed)
            if found is None:  # no name goes on so: a new name begins
                typed = event.character
                found = self.find(typed)
            if found is None:
                self.app.bell()
                return
            self.typed = typed
            self.highlighted = found
            self._show_typed()
        elif event.key == "backspace" and self.typed:
            event.stop()
            event.prevent_default()
            self.typed = self.typed[:-1]
            if self.typed and (found := self.find(self.typed)) is not None:
                self.highlighted = found
            self._show_typed()
        elif self.typed:
            self.typed = ""  # an arrow, Enter, Tab: the next letters start a new name
            self._show_typed()

    def on_resize(self, event: Any) -> None:
        if self.counts:
            self._fill()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.ObjectChosen(event.option.id))
