"""What the app and the command palette ask of a screen, as types rather than method names.

The app reaches the screen that holds the session (it may sit under a dialog or the pause
screen) with ``isinstance`` on these roles, so each call is one the type checker and a reader
can follow from the caller to every implementation; nothing looks a method up by a name held
in a string. Plain mixins: this module imports nothing, so the app can use it before the play
screen is loaded.
"""

from __future__ import annotations

from typing import Any


class TracksActivity:
    """A screen whose session counts the user's input as activity (the time model)."""

    def note_activity(self) -> None:
        """Any input (a key, a click, scrolling, moving the mouse) while the screen is up."""
        raise NotImplementedError

    def note_focus(self, focused: bool) -> None:
        """The terminal lost or regained focus; screens that do not record it ignore it."""


class BrowsesOrg:
    """A screen that shows a schema path and opens a record by its Id (the palette's hits)."""

    #: The play session, whose org the palette searches.
    session: Any

    def show_schema(self, path: str) -> None:
        """Show ``Object`` or ``Object.Field`` in the schema tree."""
        raise NotImplementedError

    def goto_record(self, text: str) -> bool:
        """Open the record whose Id is ``text``; False (and a notice) for a bad Id."""
        raise NotImplementedError

    def action_goto_record(self) -> None:
        """Ask for an Id, then open its record."""
        raise NotImplementedError


def activity_screen(screen_stack: list[Any]) -> TracksActivity | None:
    """The topmost screen of ``screen_stack`` that tracks activity, if any."""
    for screen in reversed(screen_stack):
        if isinstance(screen, TracksActivity):
            return screen
    return None
