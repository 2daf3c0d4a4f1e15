"""The notes pane: free text per instance, with arithmetic lines computed beside them.

``= (1049 + 977) / 2`` shows ``= 1013`` in the column to the right (see
:mod:`crmtui.play.notes`); ``nj = 1049 / 3`` names a result for later lines. Edits are
posted up as :class:`NotesPane.Edited`; the screen records them (debounced).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Static, TextArea

from crmtui.play.notes import evaluate_notes

RESULT_WIDTH = 16  # the results column (CSS width 17) less its left padding
PLACEHOLDER = "Notes for this instance.  A line '= (1049 + 977) / 2' is computed."


class NotesPane(Horizontal):
    """A notes editor with each arithmetic line's result beside it."""

    DEFAULT_CSS = """
    NotesPane { height: 1fr; }
    NotesPane > #notes-editor { width: 1fr; height: 1fr; }
    NotesPane > #notes-results {
        width: 17; height: 1fr; padding: 1 0 0 1; color: $success; background: $boost;
    }
    """

    class Edited(Message):
        """The notes text changed."""

        def __init__(self, text: str) -> None:
            self.text = text
            super().__init__()

    def __init__(self, text: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._initial = text
        self._results: list[Text] = []
        self.border_title = "Notes"

    def compose(self) -> ComposeResult:
        # No soft wrap: one screen row per line, so the results column lines up with it.
        yield TextArea(self._initial, id="notes-editor", soft_wrap=False, placeholder=PLACEHOLDER)
        yield Static("", id="notes-results")

    def on_mount(self) -> None:
        editor = self.editor
        self.watch(editor, "scroll_y", self._show_results, init=False)
        self._evaluate(editor.text)

    @property
    def editor(self) -> TextArea:
        """The text editor."""
        return self.query_one("#notes-editor", TextArea)

    @property
    def text(self) -> str:
        """The notes."""
        return self.editor.text

    @property
    def results(self) -> list[str]:
        """The result column's text, one entry per line of the notes ("" for prose lines)."""
        return [line.plain for line in self._results]

    def set_text(self, text: str) -> None:
        """Replace the notes (replay shows recorded notes this way)."""
        if text != self.editor.text:
            self.editor.load_text(text)
        self._evaluate(text)

    def set_read_only(self, read_only: bool = True) -> None:
        """Show notes without accepting edits (replay)."""
        self.editor.read_only = read_only

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        text = event.text_area.text
        self._evaluate(text)
        if not self.editor.read_only:
            self.post_message(self.Edited(text))

    def _evaluate(self, text: str) -> None:
        lines = []
        for line in evaluate_notes(text):
            if line.result is not None:
                lines.append(Text(f"= {line.result}"[:RESULT_WIDTH], style="bold"))
            elif line.error is not None:
                lines.append(Text(f"✘ {line.error}"[:RESULT_WIDTH], style="red"))
            else:
                lines.append(Text(""))
        self._results = lines
        self._show_results()

    def _show_results(self, *_: Any) -> None:
        top = round(self.editor.scroll_y)
        height = max(1, self.editor.size.height)
        shown = self._results[top : top + height]
        self.query_one("#notes-results", Static).update(Text("\n").join(shown))
