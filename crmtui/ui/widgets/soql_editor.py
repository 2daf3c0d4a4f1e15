"""The console's SOQL/SOSL editor: completion from the schema, and the app's keys left alone.

Textual's ``TextArea`` binds F6 (select line) and F7 (select all) and, as a code editor,
inserts a tab on Tab. In the play screen F6 is the query history and F7 pauses, and Tab must
lead out of the editor to the results, so this editor:

* lets Tab and Shift+Tab move focus like everywhere else (indent with spaces; a completion
  list, when open, takes Tab to accept);
* selects all with Ctrl+A (Home goes to the line start) instead of F7.

The play screen's F-keys are priority bindings, so they reach the screen before the editor.

Completion (:func:`crmtui.play.completion.complete`): typing a name (or a ``.`` after a
relationship) opens a :class:`~crmtui.ui.widgets.completion_menu.CompletionMenu` under the
cursor; Up/Down move in it, Enter or Tab insert, Escape closes it, and Ctrl+Space opens it
on demand (e.g. right after ``FROM``). Accepting a relationship (``Account``) inserts the
dot and offers that object's fields.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.binding import Binding
from textual.geometry import Offset
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

    #: The org's schema (None: no completion, e.g. a read-only replay).
    schema: Schema | None = None
    #: The dropdown this editor drives (set by its owner before mounting).
    menu: CompletionMenu | None = None
    _typed = False

    # -- completion ------------------------------------------------------------------------

    def action_complete(self) -> None:
        """Open the completion menu for the word at the cursor (Ctrl+Space)."""
        self._update_menu(explicit=True)

    def _update_menu(self, explicit: bool = False) -> None:
        menu = self.menu
        if menu is None or self.schema is None or self.read_only:
            return
        cursor = self.cursor_location
        before = self.document.get_text_range((0, 0), cursor)
        after = self.document.get_text_range(cursor, self.document.end)
        found = complete(self.schema, before, after)
        # Unasked, the menu opens only after a letter or a dot (not after every space).
        unasked_blank = not explicit and found is not None and not found.word
        if found is None or not found.items or (unasked_blank and not before.endswith(".")):
            menu.close()
            return
        x, y = self.cursor_screen_offset
        menu.open(found, Offset(max(0, x - len(found.word) - 1), y + 1))

    def _accept(self) -> None:
        menu = self.menu
        item = menu.chosen() if menu is not None else None
        if menu is None or item is None or menu.completion is None:
            return
        row, column = self.cursor_location
        word = menu.completion.word
        text = item.text + ("." if item.kind == "relationship" else "")
        self.replace(text, (row, column - len(word)), (row, column))
        menu.close()
        if item.kind == "relationship":
            self._update_menu()

    async def _on_key(self, event: events.Key) -> None:
        menu = self.menu
        if menu is not None and menu.is_open:
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
                return
            if event.key in _MOVES:
                menu.close()
        self._typed = event.is_printable or event.key in ("backspace", "delete")
        await super()._on_key(event)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if self._typed:
            self._typed = False
            self._update_menu()

    def on_blur(self, event: events.Blur) -> None:
        if self.menu is not None:
            self.menu.close()

    @classmethod
    def create(
        cls, schema: Schema | None = None, menu: CompletionMenu | None = None, **kwargs: Any
    ) -> SoqlEditor:
        """The editor as the console uses it: SQL highlighting, soft wrap, Tab leaves,
        completion from ``schema`` in ``menu``."""
        editor = cls.code_editor(
            "",
            language="sql",
            theme="vscode_dark",
            soft_wrap=True,
            tab_behavior="focus",
            **kwargs,
        )
        editor.show_line_numbers = False
        editor.schema = schema  # type: ignore[attr-defined]
        editor.menu = menu  # type: ignore[attr-defined]
        return editor  # type: ignore[return-value]
