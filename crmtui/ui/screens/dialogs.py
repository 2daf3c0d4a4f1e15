"""Small modal screens that dismiss with a typed value."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from crmtui.play.paths import FieldPath, chooser_paths
from crmtui.play.views import OPERATORS, Condition
from crmtui.ui.keys import KeyCommand, help_renderable
from crmtui.ui.layout import COMPACT_BELOW
from crmtui.ui.widgets.field_chooser import FieldChooser
from crmtui.ui.widgets.steady_input import SteadyInput


class ConfirmScreen(ModalScreen[bool]):
    """Ask a yes/no question; dismisses with True for yes.

    The focused button is the one Enter presses. A dialog a key opens starts on the action
    the key names (F9 "End the conversation": End it; Ctrl+S: Submit; Ctrl+Q: Quit), so
    Enter does what the key said. The one exception, ``safe="no"``, is the dialog Escape
    opens (leave the instance, abandoning it): Escape names no action, it backs out and is
    pressed by reflex, so that dialog starts on Cancel and a stray Enter loses nothing.
    """

    BINDINGS = [Binding("escape", "no", "Cancel"), Binding("y", "yes", "Yes")]

    def __init__(
        self,
        question: str,
        yes: str = "Yes",
        no: str = "Cancel",
        *,
        safe: str = "yes",
        purpose: str | None = None,
    ) -> None:
        super().__init__()
        self.question, self.yes_label, self.no_label = question, yes, no
        self.safe = safe
        #: What the question is for (``quit``: the key that asked it may answer it).
        self.purpose = purpose

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.question, classes="dialog-text")
            with Horizontal(classes="dialog-buttons"):
                yield Button(self.yes_label, id="yes", variant="primary")
                yield Button(self.no_label, id="no")

    def on_mount(self) -> None:
        self.query_one("#no" if self.safe == "no" else "#yes", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_yes(self) -> None:
        self.dismiss(True)

    def action_no(self) -> None:
        self.dismiss(False)


class TextPromptScreen(ModalScreen[str | None]):
    """Ask for one line of text (search terms); dismisses with it, or None on Escape."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, placeholder: str = "", value: str = "") -> None:
        super().__init__()
        self.title_text, self.placeholder, self.value = title, placeholder, value

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield SteadyInput(value=self.value, placeholder=self.placeholder, id="prompt-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class FilterScreen(ModalScreen[Condition | None]):
    """Build one field condition: field (own or a related record's), operator, value.

    Focus starts on the value, the field being the column under the table's cursor;
    Shift+Tab twice reaches the field box, where typing any part of a name replaces the
    suggestion and finds the field. With = or != the value may be a comma-separated list
    (any of the values, none of them), as in a Salesforce list view.
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, object_name: str, fields: list[FieldPath], field: str | None = None) -> None:
        super().__init__()
        self.object_name, self.fields = object_name, fields
        names = {p.path.lower(): p.path for p in fields}
        first = fields[0].path if fields else ""
        self.initial = names.get((field or "").lower(), first)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog dialog-wide"):
            yield Label(f"Filter {self.object_name}", classes="dialog-title")
            yield FieldChooser(self.fields, self.initial, id="filter-field")
            yield Select(
                [(op, op) for op in OPERATORS], value="=", id="filter-op", allow_blank=False
            )
            yield SteadyInput(
                placeholder="value (dates as YYYY-MM-DD; null for empty; any of several: a, b)",
                id="filter-value",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Apply", id="apply", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self._fit(self.app.size.height)
        self.query_one("#filter-value", Input).focus()

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.height)

    def _fit(self, height: int) -> None:
        # The rules are in app.tcss: less padding and a shorter field list below 32 rows.
        self.set_class(height < COMPACT_BELOW[1], "-short")

    def on_field_chooser_chosen(self, event: FieldChooser.Chosen) -> None:
        event.stop()
        self.query_one("#filter-value", Input).focus()

    def _result(self) -> Condition:
        return Condition(
            field=self.query_one("#filter-field", FieldChooser).value,
            op=str(self.query_one("#filter-op", Select).value),
            value=self.query_one("#filter-value", Input).value,
        )

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(self._result())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(self._result() if event.button.id == "apply" else None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class PickScreen(ModalScreen[str | None]):
    """Pick one entry from a filterable list (query history search)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, entries: list[str]) -> None:
        super().__init__()
        self.title_text, self.entries = title, entries

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog dialog-wide"):
            yield Label(self.title_text, classes="dialog-title")
            yield SteadyInput(placeholder="type to filter", id="pick-filter")
            yield OptionList(*self._options(""), id="pick-list")

    def _options(self, needle: str) -> list[Option]:
        lowered = needle.lower()
        return [
            Option(" ".join(e.split())[:200], id=str(i))
            for i, e in enumerate(self.entries)
            if lowered in e.lower()
        ]

    def on_input_changed(self, event: Input.Changed) -> None:
        options = self.query_one("#pick-list", OptionList)
        options.clear_options()
        options.add_options(self._options(event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        options = self.query_one("#pick-list", OptionList)
        if options.option_count:
            self.dismiss(self.entries[int(options.get_option_at_index(0).id or 0)])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.entries[int(event.option.id or 0)])

    def action_cancel(self) -> None:
        self.dismiss(None)


class PauseScreen(Screen[None]):
    """Replaces the play screen while the clock is stopped.

    A full screen, not a modal: nothing of the instance (query, metadata, tables, console,
    notes) is drawn underneath, so a paused instance cannot be read.
    """

    BINDINGS = [
        Binding("p,f7", "resume", "Resume", priority=True),
        Binding("escape", "resume", "Resume"),
    ]

    def __init__(self, active: str = "") -> None:
        super().__init__()
        self.active = active

    def compose(self) -> ComposeResult:
        spent = f"Active time so far: {self.active}.\n\n" if self.active else ""
        with Vertical(classes="dialog", id="pause-dialog"):
            yield Static(
                "⏸  Paused\n\nThe instance is hidden and the clock is stopped.\n"
                f"{spent}Press p or F7 to resume.",
                classes="dialog-text",
            )

    def action_resume(self) -> None:
        self.dismiss(None)


class HelpScreen(ModalScreen[None]):
    """Lists the keys of the screen it was opened from (generated from their bindings)."""

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("question_mark,f1", "close", "Close"),
    ]

    def __init__(self, commands: list[KeyCommand], title: str = "Keys") -> None:
        super().__init__()
        self.commands, self.title_text = commands, title

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog dialog-wide"):
            yield Label(
                f"{self.title_text}  [dim](Esc closes · Ctrl+P finds any command)[/dim]",
                classes="dialog-title",
            )
            with VerticalScroll(id="help-body"):
                yield Static(help_renderable(self.commands), classes="dialog-text")

    def action_close(self) -> None:
        self.dismiss(None)


def fields_of(schema: Any, object_name: str) -> list[FieldPath]:
    """What the filter dialog offers: the object's fields, then related records' fields
    (``Account.ShippingState``, two lookups deep; see :func:`crmtui.play.paths.chooser_paths`).
    """
    return chooser_paths(schema, object_name)
