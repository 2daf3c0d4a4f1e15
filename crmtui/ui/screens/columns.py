"""Choose a list view's columns: own fields and fields of related records, by filtering.

Salesforce's "Select Fields to Display": every field of the object and of the records its
lookups reach (two lookups deep, :func:`crmtui.play.paths.chooser_paths`), filtered by
typing any part of a name. Enter adds or removes the field under the cursor; the chosen
columns keep the order they were added in. Dismisses with the chosen columns, ``()`` for
the object's own fields, or None when cancelled.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from crmtui.play.paths import FieldPath
from crmtui.ui.layout import COMPACT_BELOW
from crmtui.ui.widgets.steady_input import SteadyInput

HINT = "Enter adds or removes a field · ↓ from the filter to the list · Ctrl+S applies · Esc"


class ColumnsScreen(ModalScreen[tuple[str, ...] | None]):
    """Pick the columns of a table from the object's and its related records' fields."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "apply", "Apply", priority=True),
    ]

    def __init__(self, object_name: str, paths: list[FieldPath], chosen: list[str]) -> None:
        super().__init__()
        self.object_name = object_name
        self.paths = paths
        known = {p.path.lower(): p.path for p in paths}
        self.chosen = [known.get(c.lower(), c) for c in chosen if c.lower() != "id"]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog dialog-wide", id="columns-dialog"):
            yield Label(f"Columns of {self.object_name}", classes="dialog-title")
            yield Static(HINT, classes="dialog-text", id="columns-hint")
            yield SteadyInput(
                placeholder="type to filter: Product2, Signed, ShippingState…",
                id="columns-filter",
            )
            yield Static("", id="columns-chosen")
            yield OptionList(*self._options(""), id="columns-list")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Apply", id="apply", variant="primary")
                yield Button("Own fields", id="own")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self._fit(self.app.size.height)
        self._show_chosen()
        self.query_one("#columns-filter", Input).focus()

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.height)

    def _fit(self, height: int) -> None:
        # The rules are in app.tcss: no padding below 32 rows, so the list keeps some lines.
        self.set_class(height < COMPACT_BELOW[1], "-short")

    def _options(self, needle: str) -> list[Option]:
        lowered = needle.lower()
        chosen = {c.lower() for c in self.chosen}
        return [
            Option(("✓ " if p.path.lower() in chosen else "  ") + p.label, id=p.path)
            for p in self.paths
            if p.path.lower() != "id" and lowered in p.label.lower()
        ]

    def _refill(self) -> None:
        options = self.query_one("#columns-list", OptionList)
        highlighted = options.highlighted
        options.clear_options()
        options.add_options(self._options(self.query_one("#columns-filter", Input).value))
        if highlighted is not None and options.option_count:
            options.highlighted = min(highlighted, options.option_count - 1)

    def _show_chosen(self) -> None:
        shown = ", ".join(["Id", *self.chosen]) if self.chosen else "the object's own fields"
        self.query_one("#columns-chosen", Static).update(f"Columns: {shown}")

    def toggle(self, path: str) -> None:
        """Add ``path`` to the chosen columns, or take it out if it is there."""
        lowered = [c.lower() for c in self.chosen]
        if path.lower() in lowered:
            del self.chosen[lowered.index(path.lower())]
        else:
            self.chosen.append(path)
        self._show_chosen()
        self._refill()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._refill()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        options = self.query_one("#columns-list", OptionList)
        if options.option_count:
            options.focus()
            options.highlighted = 0

    def on_key(self, event: events.Key) -> None:
        if event.key == "down" and self.focused is self.query_one("#columns-filter", Input):
            options = self.query_one("#columns-list", OptionList)
            if options.option_count:
                options.focus()
                options.highlighted = 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.toggle(event.option.id)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "apply":
            self.action_apply()
        elif event.button.id == "own":
            self.dismiss(())
        else:
            self.dismiss(None)

    def action_apply(self) -> None:
        self.dismiss(tuple(self.chosen))

    def action_cancel(self) -> None:
        self.dismiss(None)
