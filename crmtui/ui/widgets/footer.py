"""A key footer that rebuilds itself only when the keys it shows have changed.

Textual's :class:`~textual.widgets.Footer` recomposes (unmounts and mounts one widget per
key) every time its screen publishes "bindings updated": on every focus change and every
time a screen is pushed on top of it or popped off. The play screen shows about forty keys,
so each rebuild cost more than the rest of opening the value viewer over it. This footer
compares what it would show with what it shows and skips the rebuild when nothing changed,
and a footer under another screen waits until its screen is on top again.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class KeyFooter(Footer):
    """A :class:`~textual.widgets.Footer` that recomposes only when its keys change."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shown: tuple[Any, ...] | None = None

    def compose(self) -> ComposeResult:
        """Textual's keys, made in the style they would take once mounted.

        A :class:`FooterKey` starts compact without the ``-compact`` class; when mounted,
        its watcher adds the class and its binding to the footer's ``compact`` switches it
        to the footer's style: up to two restyles per key that the start waited for. Made
        in that style already, both are no-ops. (The command palette's key is not bound to
        the footer in Textual, stays compact and is left as Textual makes it.)
        """
        for widget in super().compose():  # grouped keys are yielded too (inside their group)
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                widget.set_reactive(FooterKey.compact, self.compact)
                widget.set_class(self.compact, "-compact", update=False)
            yield widget

    def bindings_changed(self, screen: Screen) -> None:
        """Rebuild after the next refresh if ``screen`` is ours, on top, and its keys changed."""
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and screen.is_current:
            self.call_after_refresh(self._recompose_if_changed)

    def _keys(self) -> tuple[Any, ...]:
        """Everything :meth:`Footer.compose` reads from the active bindings."""
        return tuple(
            (key, binding.key, binding.action, binding.description, binding.group, on, tip)
            for key, (_, binding, on, tip) in self.screen.active_bindings.items()
            if binding.show or key == self.app.COMMAND_PALETTE_BINDING
        )

    async def _recompose_if_changed(self) -> None:
        if not self.is_attached or not self.screen.is_current:
            return
        keys = self._keys()
        if keys == self._shown:
            return
        self._shown = keys
        await self.recompose()
