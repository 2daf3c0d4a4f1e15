"""The console's SOQL/SOSL editor: completion from the schema, and the app's keys left alone.

Textual's ``TextArea`` binds F6 (select line) and F7 (select all) and, as a code editor,
inserts a tab on Tab. In the play screen F6 is the query history and F7 pauses, and Tab must
lead out of the editor to the results, so this editor:

* lets Tab and Shift+Tab move focus like everywhere else (indent with spaces; a completion
  list, when open, takes Tab to accept);
* selects all with Ctrl+A (Home goes to the line start) instead of F7.

The play screen's F-keys are priority bindings, so they reach the screen before the editor.

Completion (:func:`crmtui.play.completion.complete`): typing a name (or a ``.`` after a
relationship) opens a list under the cursor (above it on the editor's last lines); Up/Down
move in it, Enter or Tab insert, Escape closes it, and Ctrl+Space opens it on demand (e.g.
right after ``FROM``). Accepting a relationship (``Account``) inserts the dot and offers
that object's fields. The list is drawn by the editor over its own lines
(:class:`~crmtui.ui.widgets.completion_menu.CompletionMenu`), so it costs a repaint of the
editor, not a layout of the screen.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.binding import Binding
from textual.strip import Strip
from textual.widgets import TextArea

from crmtui.data.schema import Schema
from crmtui.play.completion import complete
from crmtui.ui.widgets.completion_menu import CompletionMenu

#: Keys that move the cursor without typing: they close the completion menu.
_MOVES = frozenset({"left", "right", "home", "end", "pageup", "pagedown", "up", "down"})


class SoqlEditor(TextArea):
    """A SQL-highlighted editor for SOQL and SOSL, with completion from the org's schema."""

    HELP_GROUP = "Console"
    BINDINGS = [
        Binding("ctrl+a", "select_all", "Select all", show=False, tooltip="in the editor"),
        Binding(
            "ctrl+space",
            "complete",
            "Complete",
            show=False,
            tooltip="a name from the schema; ↑/↓ choose, Enter or Tab insert, Esc closes",
        ),
    ]

    #: The org's schema (None: no completion).
    schema: Schema | None = None
    _typed = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: The completion list this editor draws under its cursor.
        self.menu = CompletionMenu()

    # -- completion ------------------------------------------------------------------------

    def action_complete(self) -> None:
        """Open the completion menu for the word at the cursor (Ctrl+Space)."""
        self._update_menu(explicit=True)

    def _update_menu(self, explicit: bool = False) -> None:
        menu = self.menu
        was_open = menu.is_open
        if self.schema is None or self.read_only:
            return
        cursor = self.cursor_location
        before = self.document.get_text_range((0, 0), cursor)
        after = self.document.get_text_range(cursor, self.document.end)
        found = complete(self.schema, before, after)
        # Unasked, the list opens only after a letter or a dot (not after every space).
        unasked_blank = not explicit and found is not None and not found.word
        if found is None or not found.items or (unasked_blank and not before.endswith(".")):
            menu.close()
        else:
            menu.open(found)
        if was_open or menu.is_open:
            self.refresh()

    def close_completion(self) -> None:
        """Hide the completion list (the query is about to run, the text was replaced)."""
        self._close_menu()

    def _close_menu(self) -> None:
        if self.menu.is_open:
            self.menu.close()
            self.refresh()

    def _accept(self) -> None:
        menu = self.menu
        item = menu.chosen()
        if item is None or menu.completion is None:
            return
        row, column = self.cursor_location
        word = menu.completion.word
        text = item.text + ("." if item.kind == "relationship" else "")
        self.replace(text, (row, column - len(word)), (row, column))
        self._close_menu()
        if item.kind == "relationship":
            self._update_menu()

    async def _on_key(self, event: events.Key) -> None:
        menu = self.menu
        if menu.is_open:
            handled = True
            if event.key == "up":
                menu.move(-1)
            elif event.key == "down":
                menu.move(1)
            elif event.key in ("enter", "tab"):
                self._accept()
            elif event.key == "escape":
                menu.close()
            else:
                handled = False
            if handled:
                event.stop()
                event.prevent_default()
                self.refresh()
                return
            if event.key in _MOVES:
                self._close_menu()
        typed = event.is_printable
        await super()._on_key(event)
        if typed:
            self._typed = False
            # The character is in the document now (TextArea inserts it synchronously):
            # complete at once rather than one message later.
            self._update_menu()
        else:
            # Backspace and Delete are bindings, run after this handler: on Changed.
            self._typed = event.key in ("backspace", "delete")

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if self._typed:
            self._typed = False
            self._update_menu()

    def on_blur(self, event: events.Blur) -> None:
        self._close_menu()

    # -- drawing the list over the editor's lines ------------------------------------------

    def _menu_geometry(self) -> tuple[int, int, int, list[Any]] | None:
        """(first row, x, width, rows) of the list in content coordinates, or None."""
        if not self.menu.is_open or self.menu.completion is None:
            return None
        cursor_x, cursor_y = self._cursor_offset
        scroll_x, scroll_y = self.scroll_offset
        row = cursor_y - scroll_y
        height = self.content_size.height
        content_width = self.content_size.width
        word_x = cursor_x - scroll_x + self.gutter_width - len(self.menu.completion.word)
        width = self.menu.width(content_width)
        x = max(0, min(word_x, content_width - width))
        below, above = height - row - 1, row
        if below >= min(3, len(self.menu.completion.items)) or below >= above:
            rows = self.menu.rows(below, width)
            first = row + 1
        else:
            rows = self.menu.rows(above, width)
            first = row - len(rows)
        return first, x, width, rows

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        geometry = self._menu_geometry()
        if geometry is None:
            return strip
        first, x, width, rows = geometry
        if not first <= y < first + len(rows):
            return strip
        console = self.app.console
        row = Strip(list(rows[y - first].render(console)), width)
        total = strip.cell_length
        return Strip.join([strip.crop(0, x), row, strip.crop(x + width, total)])

    @classmethod
    def create(cls, schema: Schema | None = None, **kwargs: Any) -> SoqlEditor:
        """The editor as the console uses it: SQL highlighting, soft wrap, Tab leaves,
        completion from ``schema``."""
        editor = cls.code_editor(
            "",
            language=None,
            theme="vscode_dark",
            soft_wrap=True,
            tab_behavior="focus",
            **kwargs,
        )
        # Set afterwards: given to the constructor, Textual builds the highlighted document
        # twice (in __init__, then again from the `language` watcher), and compiling SQL's
        # highlight query costs ~80 ms each time, on every instance opened.
        editor.language = "sql"
        editor.show_line_numbers = False
        editor.schema = schema  # type: ignore[attr-defined]
        return editor  # type: ignore[return-value]
