"""crmtui's text box: focus never selects its text, and a key never reflows the screen.

Textual's Input selects its whole value when it gets focus (``select_on_focus``), so the
next key replaced it: F4 back into the answer box turned a typed draft into one letter.
Every crmtui text box (answer, dialogs, search and filter boxes) is this class, which puts
the cursor at the end instead and keeps the text as it was.

Textual's Input sets its ``virtual_size`` (a layout reactive) to the text's width on every
edit, so each key typed asks the screen for a full layout pass: every widget on the play
screen is arranged again, then the changed lines are drawn. In a served session that was
most of a keystroke's CPU. The box itself never changes size (its width and height come
from CSS), so here the new virtual width is stored without the layout request; the input
still scrolls horizontally (scrolling reads ``virtual_size``, not the layout) and repaints
itself as the value changes.

Textual's Input refuses a paste that would take it past ``max_length`` whole: a 20 MB paste
into the chat box (capped at 20,000 characters) left it empty, with no word. Here the paste
is cut to the room left, as if typed until the box was full, and a notice says so.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Input


class SteadyInput(Input):
    """An Input that keeps its text on focus, repaints itself instead of re-laying out the
    screen on an edit, and takes what fits of a paste past ``max_length``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["select_on_focus"] = False
        super().__init__(*args, **kwargs)

    def _watch_value(self, value: str) -> None:
        if not self.styles.auto_dimensions:
            # Store the size Input is about to set, silently: its own assignment is then
            # a no-op and requests no layout. (An auto-sized box does need the layout.)
            self.set_reactive(Widget.virtual_size, Size(self.content_width, 1))
        super()._watch_value(value)

    def _on_paste(self, event: events.Paste) -> None:
        # Runs before Input's own handler, which is skipped (prevent_default) only when the
        # paste must be cut; otherwise Input pastes as it always does.
        if not self.max_length or not event.text:
            return
        lines = event.text.splitlines()  # Input takes the first line only
        line = lines[0] if lines else ""
        start, end = sorted(self.selection)
        room = max(0, self.max_length - (len(self.value) - (end - start)))
        if len(line) <= room:
            return
        event.prevent_default()
        event.stop()
        self.replace(line[:room], start, end)
        self.notify(
            f"The paste was cut to fit: this box holds at most {self.max_length:,} characters.",
            severity="warning",
        )
