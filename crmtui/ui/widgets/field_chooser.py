"""Find a field by any part of its name: the object's own fields and related records' fields.

A text box over a list of field paths (``Account.ShippingState``,
``OrderItemId__r.Product2Id``): typing filters the list by any part of the path or its
object and type, ↑/↓ move the highlight (the box keeps the focus, so Tab order is the
dialog's), Enter takes the path typed in full or else the highlighted one. Posts
:class:`FieldChooser.Chosen`. The list shows only while the box has the focus, so a dialog
holding the chooser fits an 80x24 terminal once the field is chosen. Used by the filter
dialog and the compute tool (Ctrl+L), where a drop-down of sixty paths could only be
searched by their first letters, and the search started again after a pause.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from crmtui.ui.widgets.steady_input import SteadyInput


class Choosable(Protocol):
    """What the chooser lists: a value (``path``) and how it reads in the list (``label``).

    :class:`crmtui.play.paths.FieldPath` is one; :class:`Choice` makes others.
    """

    @property
    def path(self) -> str: ...

    @property
    def label(self) -> str: ...


@dataclass(frozen=True)
class Choice:
    """A plain choice: ``path`` is the value, ``label`` what the list shows and matches."""

    path: str
    label: str


class FieldChooser(Vertical):
    """A filter box and the field paths that match it."""

    DEFAULT_CSS = """
    FieldChooser { height: auto; }
    FieldChooser OptionList { height: 8; }
    FieldChooser OptionList > .option-list--option-highlighted {
        background: $accent 50%;
        text-style: bold;
    }
    """

    class Chosen(Message):
        """A field path was taken (Enter)."""

        def __init__(self, chooser: FieldChooser, path: str) -> None:
            self.chooser = chooser
            self.path = path
            super().__init__()

        @property
        def control(self) -> FieldChooser:
            """The chooser that sent it."""
            return self.chooser

    def __init__(
        self,
        paths: Sequence[Choosable],
        value: str = "",
        *,
        compact: bool = False,
        list_height: int | None = None,
        placeholder: str = "field: type any part of it (Product2, Signed, ShippingState…)",
        **kwargs: Any,
    ) -> None:
        """``compact``: a one-line box without a border (the compute tool's form);
        ``list_height``: lines of the list while it shows (default 8)."""
        super().__init__(**kwargs)
        self.paths = list(paths)
        self.initial = value
        self.compact = compact
        self.list_height = list_height
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        box = SteadyInput(
            value=self.initial,
            placeholder=self.placeholder,
            classes="field-chooser-input",
            compact=self.compact,
        )
        # The box starts on a suggestion (the column under the cursor), not on a draft the
        # person typed: reaching it selects it, so the first key replaces it ("product",
        # not "Idproduct", which matched nothing); ← or → keep it and edit it.
        box.select_on_focus = True
        yield box
        options = OptionList(*self._options(""), classes="field-chooser-list")
        if self.list_height is not None:
            options.styles.height = self.list_height
        options.can_focus = False  # the box keeps the focus; ↑/↓ there move the highlight
        options.display = False  # shown while the box has the focus
        yield options

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self.query_one(OptionList).display = True

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self.query_one(OptionList).display = False

    @property
    def value(self) -> str:
        """The path in the box, spelled as the schema spells it when it is one."""
        text = self.query_one(Input).value.strip()
        known = {p.path.lower(): p.path for p in self.paths}
        return known.get(text.lower(), text)

    def set_value(self, path: str) -> None:
        """Put ``path`` in the box, as if it had been chosen, without posting Chosen."""
        box = self.query_one(Input)
        with box.prevent(Input.Changed):
            box.value = path
            box.cursor_position = len(path)

    def matches(self, needle: str) -> list[Choosable]:
        """The paths whose name, object or type holds ``needle`` (case-insensitive)."""
        lowered = needle.strip().lower()
        return [p for p in self.paths if lowered in p.label.lower()]

    def _options(self, needle: str) -> list[Option]:
        return [Option(p.label, id=p.path) for p in self.matches(needle)]

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(self._options(event.value))
        if options.option_count:
            options.highlighted = 0

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        known = {p.path.lower() for p in self.paths}
        if self.value.lower() in known:
            self.post_message(self.Chosen(self, self.value))
            return
        options = self.query_one(OptionList)
        if options.highlighted is not None and options.option_count:
            chosen = options.get_option_at_index(options.highlighted).id
            if chosen:
                self._take(chosen)

    def on_key(self, event: events.Key) -> None:
        options = self.query_one(OptionList)
        if event.key in ("down", "up") and options.option_count:
            event.stop()
            step = 1 if event.key == "down" else -1
            current = options.highlighted if options.highlighted is not None else -step
            options.highlighted = max(0, min(options.option_count - 1, current + step))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self._take(event.option.id)

    def _take(self, path: str) -> None:
        self.set_value(path)
        self.post_message(self.Chosen(self, path))
