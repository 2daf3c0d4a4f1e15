"""The value viewer: any value whole, scrollable, with find-in-text and copy.

Opened from every table (browser table, record view, related list, console results,
compute results). It is given the value's text and where it came from; copying goes
through the ``on_copy`` callback so the screen that opened it records the copy.

One viewer screen serves an app (:func:`open_value`): it is installed once, mounted ahead
of its first use (:func:`prepare_viewer`) and shown again with each new value. Building a
screen is most of what showing one costs in Textual (composing, styling and laying out its
widgets); a mounted screen shown with a new text draws its first frame far sooner
(measured: docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from crmtui.play.cells import ValueRef
from crmtui.ui.widgets.steady_input import SteadyInput
from crmtui.ui.widgets.value_view import ValueView

CopyCallback = Callable[[ValueRef, str], None]

#: The name the app's one viewer screen is installed under.
VIEWER = "value-viewer"

HINT = "↑↓ PgUp PgDn scroll · / or Ctrl+F find · Enter/n next · N previous · y copy · Esc close"


class ValueViewerScreen(ModalScreen[None]):
    """Read one value whole: wrapped, scrollable, searchable."""

    CSS_PATH = "viewer.tcss"
    # Focused as the screen is composed (not from on_mount): no repaint after the first frame.
    AUTO_FOCUS = "ValueView"
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("ctrl+f,slash", "find", "Find"),
        Binding("n", "next_match", "Next match", show=False),
        Binding("N", "previous_match", "Previous match", show=False),
        Binding("y", "copy_value", "Copy"),
    ]

    def __init__(
        self,
        text: str = "",
        ref: ValueRef | None = None,
        *,
        on_copy: CopyCallback | None = None,
        on_activity: Callable[[], None] | None = None,
    ) -> None:
        super().__init__()
        self.text = text
        self.ref = ref or ValueRef("table")
        self.on_copy = on_copy
        # Reading is work: keys, clicks and scrolling here keep the session's clock active.
        self.on_activity = on_activity

    def show_value(
        self,
        text: str,
        ref: ValueRef,
        *,
        on_copy: CopyCallback | None = None,
        on_activity: Callable[[], None] | None = None,
    ) -> None:
        """Show ``text`` (from ``ref``) from its top, the find box closed; before a push."""
        self.text, self.ref = text, ref
        self.on_copy, self.on_activity = on_copy, on_activity
        if not self.is_mounted or not self.query("#viewer-text"):
            return  # composed from these attributes
        self.query_one("#viewer-title", Label).update(self._title())
        self._close_find()
        self.view.set_text(text)

    def _title(self) -> str:
        lines = self.text.count("\n") + 1 if self.text else 0
        return f"{self.ref.label} · {len(self.text):,} chars · {lines:,} lines"

    def compose(self) -> ComposeResult:
        with Vertical(id="viewer-box"):
            yield Label(self._title(), id="viewer-title")
            yield ValueView(self.text, id="viewer-text")
            # The find box is mounted on the first / (an Input costs more to mount than
            # the whole view): opening a value stays instant.
            yield Horizontal(id="viewer-find")
            yield Label(HINT, id="viewer-hint")

    @property
    def view(self) -> ValueView:
        """The text widget."""
        return self.query_one(ValueView)

    # -- find ------------------------------------------------------------------------------

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        count = self.view.find(event.value)
        self._show_count(count)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_next_match()

    def _active(self) -> None:
        if self.on_activity is not None:
            self.on_activity()

    def on_click(self, event: events.Click) -> None:
        self._active()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self._active()

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self._active()

    def on_key(self, event: events.Key) -> None:
        self._active()
        # In the find box, ↓/↑ step through matches (Enter also goes to the next one).
        box = self.find_box
        if box is not None and self.focused is box and event.key in ("down", "up"):
            event.stop()
            self._step(1 if event.key == "down" else -1)

    @property
    def find_open(self) -> bool:
        """Whether the find box is shown (Esc closes it before the viewer)."""
        return self.query_one("#viewer-find").has_class("open")

    @property
    def find_box(self) -> Input | None:
        """The find box, once mounted."""
        found = self.query("#viewer-find-input")
        return found.first(Input) if found else None

    def _show_count(self, count: int | None = None) -> None:
        view = self.view
        box = self.find_box
        needle = box.value if box is not None else ""
        label = self.query_one("#viewer-matches", Label)
        total = len(view.matches) if count is None else count
        if not needle:
            label.update("")
        elif not total:
            label.update("no match")
        elif view.current < 0:
            label.update(f"{total:,} matches")
        else:
            label.update(f"{view.current + 1:,} of {total:,}")

    def _step(self, delta: int) -> None:
        if self.find_box is None:
            return
        self.view.step(delta)
        self._show_count()

    # -- actions ---------------------------------------------------------------------------

    async def action_find(self) -> None:
        box = self.find_box
        bar = self.query_one("#viewer-find")
        if box is None:
            box = SteadyInput(placeholder="find in text", id="viewer-find-input")
            await bar.mount(box, Label("", id="viewer-matches"))
        bar.add_class("open")  # again after Escape closed it, or in the next value
        box.focus()

    def action_next_match(self) -> None:
        self._step(1)

    def action_previous_match(self) -> None:
        self._step(-1)

    def action_copy_value(self) -> None:
        if self.on_copy is not None:
            self.on_copy(self.ref, self.text)
        else:
            self.app.copy_to_clipboard(self.text)
        self.notify(f"Copied {self.ref.label} ({len(self.text):,} characters)")

    def action_close(self) -> None:
        """Esc: closes the find box when it is open, else the viewer."""
        if self.find_open:
            self._close_find()
            return
        self.dismiss(None)

    def _close_find(self) -> None:
        box = self.find_box
        if box is not None:
            box.value = ""
            self.query_one("#viewer-matches", Label).update("")
        self.view.find("")  # now, not when the box's Changed message arrives
        self.query_one("#viewer-find").remove_class("open")
        self.set_focus(self.view)


def open_value(
    app: App[Any],
    text: str,
    ref: ValueRef,
    *,
    on_copy: CopyCallback | None = None,
    on_activity: Callable[[], None] | None = None,
) -> ValueViewerScreen:
    """Show ``text`` in the app's one value viewer, over the current screen."""
    viewer = _installed(app)
    viewer.show_value(text, ref, on_copy=on_copy, on_activity=on_activity)
    app.push_screen(VIEWER)
    return viewer


async def prepare_viewer(app: App[Any]) -> None:
    """Install the app's value viewer and mount it now, so its first open is as quick."""
    viewer = _installed(app)
    if not viewer.is_running:
        # Textual mounts an installed screen on its first push; App._get_screen is the step
        # of push_screen that does it, without showing the screen (no public equivalent).
        _, mounted = app._get_screen(VIEWER)
        await mounted


def _installed(app: App[Any]) -> ValueViewerScreen:
    if not app.is_screen_installed(VIEWER):
        app.install_screen(ValueViewerScreen(), VIEWER)
    viewer = app.get_screen(VIEWER)
    assert isinstance(viewer, ValueViewerScreen)
    return viewer
