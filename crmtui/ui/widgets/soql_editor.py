"""The console's SOQL/SOSL editor: a code editor that leaves the app's keys alone.

Textual's ``TextArea`` binds F6 (select line) and F7 (select all) and, as a code editor,
inserts a tab on Tab. In the play screen F6 is the query history and F7 pauses, and Tab must
lead out of the editor to the results, so this editor:

* lets Tab and Shift+Tab move focus like everywhere else (indent with spaces; a completion
  list, when open, takes Tab to accept);
* selects all with Ctrl+A (Home goes to the line start) instead of F7.

The play screen's F-keys are priority bindings, so they reach the screen before the editor.
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.widgets import TextArea


class SoqlEditor(TextArea):
    """A SQL-highlighted editor for SOQL and SOSL."""

    HELP_GROUP = "Console"
    BINDINGS = [
        Binding("ctrl+a", "select_all", "Select all text in the editor"),
    ]

    @classmethod
    def create(cls, **kwargs: Any) -> SoqlEditor:
        """The editor as the console uses it: SQL highlighting, soft wrap, Tab leaves."""
        editor = cls.code_editor(
            "",
            language="sql",
            theme="vscode_dark",
            soft_wrap=True,
            tab_behavior="focus",
            **kwargs,
        )
        editor.show_line_numbers = False
        return editor  # type: ignore[return-value]
