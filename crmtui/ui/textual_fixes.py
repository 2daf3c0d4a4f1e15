"""Fixes for Textual 8.2.8 bugs: two that ended the app, found by the monkey
(tests/ui/test_monkey.py), and one that kept dead widgets' drawings in memory.

**Page Up/Down in an option list with no size.** ``OptionList._move_page`` looks the
highlighted option up in the list's option-to-line map, which is built only once the list
has a size. The command palette's list has none while it is being filled: Ctrl+P, a few
letters and Page Up at once raised ``KeyError`` and the app died. With no lines laid out
there is nothing to page through, so the key now does nothing.

**A Select mounted as the app closes.** ``Select._on_mount`` looks up its option list
(``SelectOverlay``), which the app's shutdown may already have removed: the picker mounts its
task filter just after its first frame, and an app closed at that moment (a test leaving,
``q`` pressed at once) raised ``NoMatches`` on the way out. A Select without its option list
is being removed: there is nothing to set up.

**A command palette updated after its list is gone.** The palette searches in a worker and,
when results arrive, flips two reactives whose watchers (``_watch__list_visible``,
``_watch__show_busy``) and its "No matches" timer look up the palette's ``CommandList``. A
palette closed while a search runs (Ctrl+P, a letter, Ctrl+C at once, on a loaded machine)
has already lost its children when the worker finishes: ``NoMatches`` ended the app. A palette
without its list is being removed: there is nothing to show.

**Style caches kept alive after their widgets.** ``StylesCache.get_inner_outer`` is an
``lru_cache(1024)`` on a method, so every key holds ``self``: the style caches of the last
1,024 widgets ever drawn, each with every line it rendered (strips, each with seven caches of
its own), stay in memory after their widgets are gone. Not a crash but a heap that grows
with every screen built: in the test suite's workers it reached 700,000 objects, which each
full collection (``crmtui.ui.heap.settle_heap``, once per instance opened) scanned again. The
two colours it computes depend on its arguments only: they are now cached by those.

:func:`install` applies the fixes; the app factory calls it before building any app.
Idempotent. ``tests/ui/test_textual_fixes.py`` fails when Textual is upgraded and fixed
(the fix can then go).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

_INSTALLED = False


def install() -> None:
    """Apply every fix in this module (once)."""
    global _INSTALLED
    if _INSTALLED:
        return
    _INSTALLED = True
    from textual.widgets import OptionList

    move_page = OptionList._move_page

    def _move_page(self: Any, direction: Any) -> None:
        if self._options and (self.highlighted or 0) not in self._index_to_line:
            return  # not laid out yet (no size): no page to move by
        move_page(self, direction)

    _move_page.__wrapped__ = move_page  # type: ignore[attr-defined]
    OptionList._move_page = _move_page  # type: ignore[method-assign]

    from textual.widgets import Select
    from textual.widgets._select import SelectOverlay

    select_on_mount = Select._on_mount

    def _on_mount(self: Any, event: Any) -> None:
        if not self.query(SelectOverlay):
            return  # removed while it was being mounted: nothing to set up
        select_on_mount(self, event)

    _on_mount.__wrapped__ = select_on_mount  # type: ignore[attr-defined]
    Select._on_mount = _on_mount  # type: ignore[method-assign]

    _guard_command_palette()

    from textual._styles_cache import StylesCache

    get_inner_outer = StylesCache.get_inner_outer

    def _get_inner_outer(self: Any, base_background: Any, background: Any) -> Any:
        return _inner_outer(base_background, background)

    _get_inner_outer.__wrapped__ = get_inner_outer  # type: ignore[attr-defined]
    StylesCache.get_inner_outer = _get_inner_outer  # type: ignore[method-assign]


def _guard_command_palette() -> None:
    """Make the palette's list-updating watchers and timer do nothing once its list is gone."""
    from textual.command import CommandList, CommandPalette

    def has_list(palette: Any) -> bool:
        return bool(palette.query(CommandList))

    watch_list_visible = CommandPalette._watch__list_visible

    def _watch__list_visible(self: Any) -> None:
        if has_list(self):
            watch_list_visible(self)

    _watch__list_visible.__wrapped__ = watch_list_visible  # type: ignore[attr-defined]
    CommandPalette._watch__list_visible = _watch__list_visible  # type: ignore[method-assign]

    watch_show_busy = CommandPalette._watch__show_busy

    async def _watch__show_busy(self: Any) -> None:
        if has_list(self):
            await watch_show_busy(self)

    _watch__show_busy.__wrapped__ = watch_show_busy  # type: ignore[attr-defined]
    CommandPalette._watch__show_busy = _watch__show_busy  # type: ignore[method-assign]

    start_no_matches = CommandPalette._start_no_matches_countdown

    def _start_no_matches_countdown(self: Any, search_value: str) -> None:
        start_no_matches(self, search_value)
        timer = self._no_matches_timer
        show = timer._callback  # Textual's "No matches" closure: run it only with a list

        def _show_no_matches() -> None:
            if has_list(self):
                show()

        timer._callback = _show_no_matches

    _start_no_matches_countdown.__wrapped__ = start_no_matches  # type: ignore[attr-defined]
    CommandPalette._start_no_matches_countdown = _start_no_matches_countdown  # type: ignore[method-assign]


@lru_cache(1024)
def _inner_outer(base_background: Any, background: Any) -> Any:
    """The inner and outer background styles of a widget (Textual's own two lines)."""
    from textual.style import Style

    return (Style(background=base_background + background), Style(background=base_background))
