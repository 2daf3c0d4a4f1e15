"""Keys in the order they were pressed (crmtui/ui/key_order.py), on small apps of their own.

Each test posts a burst of keys at once, as a terminal delivers them after a stall, and
checks that they took effect as if typed one at a time: a priority binding after letters
acts after them, letters after a focus shortcut go to the new widget, keys pressed while a
screen is being built reach it once it is. The real play app is held to the same in
tests/ui/test_input_integrity.py.
"""

from __future__ import annotations

import ast
import asyncio
import time
from pathlib import Path
from typing import Any

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable, Input, TextArea

from crmtui.ui.key_order import OrderedKeys, queued
from crmtui.ui.workers import WorkerErrorHandler
from tests.waiting import deadline


def _keys(text: str) -> list[events.Key]:
    return [events.Key(c, c) for c in text]


class Slow(Screen[None]):
    """A screen that takes a while to be ready (mounting, as the play screen does)."""

    def compose(self) -> ComposeResult:
        yield Input(id="late")

    async def on_mount(self) -> None:
        await asyncio.sleep(0.2)
        self.query_one("#late").focus()


class Small(WorkerErrorHandler, OrderedKeys, App[None]):
    BINDINGS = [
        Binding("ctrl+t", "insert", priority=True),
        Binding("o", "open_slow"),
        Binding("a", "focus_box"),
    ]

    def compose(self) -> ComposeResult:
        yield DataTable(id="table")
        yield Input(id="box")

    def on_mount(self) -> None:
        self.query_one("#table").focus()

    def action_insert(self) -> None:
        box = self.focused
        assert isinstance(box, Input)
        box.insert_text_at_cursor("<ID>")

    def action_focus_box(self) -> None:
        self.query_one("#box").focus()

    def action_open_slow(self) -> None:
        self.push_screen(Slow())


async def _settle(app: Any, pilot: Any) -> None:
    until = deadline()
    while time.monotonic() < until:
        await pilot.pause(0.01)
        if app.keys_pending == 0:
            return
    raise AssertionError("keys still pending")


async def test_a_priority_binding_waits_for_the_letters_typed_before_it() -> None:
    app = Small()
    async with app.run_test() as pilot:
        await pilot.press("a")
        for event in [*_keys("ab"), events.Key("ctrl+t", None), *_keys("cd")]:
            app.post_message(event)
        await _settle(app, pilot)
        assert app.query_one("#box", Input).value == "ab<ID>cd"


async def test_letters_after_a_focus_shortcut_go_to_the_new_widget() -> None:
    app = Small()
    async with app.run_test() as pilot:
        for event in _keys("axyz"):  # a: focus the box (a binding run after bubbling up)
            app.post_message(event)
        await _settle(app, pilot)
        assert app.query_one("#box", Input).value == "xyz"


async def test_keys_pressed_while_a_screen_is_built_reach_it_once_ready() -> None:
    app = Small()
    async with app.run_test() as pilot:
        for event in _keys("oready"):
            app.post_message(event)
        await _settle(app, pilot)
        assert isinstance(app.screen, Slow)
        assert app.screen.query_one("#late", Input).value == "ready"


async def test_a_paste_takes_its_turn_between_keys() -> None:
    app = Small()
    async with app.run_test() as pilot:
        await pilot.press("a")
        for event in [*_keys("ab"), events.Paste("PASTED"), *_keys("cd")]:
            app.post_message(event)
        await _settle(app, pilot)
        assert app.query_one("#box", Input).value == "abPASTEDcd"


class Runs(WorkerErrorHandler, OrderedKeys, App[None]):
    """Characters typed on into a field are handed on in runs (the typing shortcut)."""

    BINDINGS = [Binding("a", "focus_box")]

    def compose(self) -> ComposeResult:
        yield TextArea("read only", read_only=True, id="viewer")
        yield Input(id="box")
        yield Input(id="other")

    def on_mount(self) -> None:
        self.query_one("#box").focus()

    def action_focus_box(self) -> None:
        self.query_one("#box").focus()


async def test_a_run_of_typing_stops_at_a_key_that_is_not_a_character() -> None:
    app = Runs()
    async with app.run_test() as pilot:
        await pilot.press("b")  # the box has taken a character: what follows goes as a run
        for event in [*_keys("cdef"), events.Key("tab", None), *_keys("ghij")]:
            app.post_message(event)
        await _settle(app, pilot)
        assert app.query_one("#box", Input).value == "bcdef"
        assert app.query_one("#other", Input).value == "ghij"


async def test_a_field_that_does_not_take_letters_starts_no_run() -> None:
    """A read-only text area lets letters bubble up: a shortcut letter after one still acts
    after it, and the letters after the shortcut reach the widget it focused."""
    app = Runs()
    async with app.run_test() as pilot:
        app.query_one("#viewer").focus()
        await pilot.press("z")
        for event in _keys("zzayes"):
            app.post_message(event)
        await _settle(app, pilot)
        assert app.query_one("#box", Input).value == "yes"
        assert app.query_one("#viewer", TextArea).text == "read only"


async def test_a_long_burst_arrives_whole_and_in_order() -> None:
    app = Runs()
    async with app.run_test() as pilot:
        text = "".join(chr(ord("b") + i % 20) for i in range(500))
        await pilot.press("b")
        for event in _keys(text):
            app.post_message(event)
        await _settle(app, pilot)
        assert app.query_one("#box", Input).value == "b" + text


class LooksStopped(Vertical):
    """A container Textual takes for stopped (QueryConsole once shadowed ``_running``): the
    widgets inside it never report a key done."""

    def on_mount(self) -> None:
        self._running = None


class SilentApp(WorkerErrorHandler, OrderedKeys, App[None]):
    def compose(self) -> ComposeResult:
        with LooksStopped():
            yield Input(id="inside")

    def on_mount(self) -> None:
        self.query_one("#inside").focus()


async def test_a_key_never_reported_done_does_not_hold_the_keys_after_it() -> None:
    app = SilentApp()
    async with app.run_test() as pilot:
        for event in _keys("slow"):
            app.post_message(event)
        await _settle(app, pilot)
        assert app.query_one("#inside", Input).value == "slow"


async def test_the_queue_internals_key_order_reads_are_textual_s() -> None:
    """key_order looks into Textual's message queues: a Textual upgrade that changes them
    must fail here, not silently stop ordering keys."""
    app = Small()
    async with app.run_test() as pilot:
        box = app.query_one("#box", Input)
        first, second = events.Key("x", "x"), events.Key("y", "y")
        box._message_queue.put_nowait(first)
        box._message_queue.put_nowait(second)
        assert list(queued(box)) == [first, second]
        await pilot.pause()
        assert list(queued(box)) == []
        for name in ("_pending_message", "_next_callbacks", "_is_mounted", "message_signal"):
            assert hasattr(box, name), name
        assert hasattr(app.screen, "_callbacks") and hasattr(app, "_registry")


#: Textual internals crmtui sets on purpose (each with a comment saying why).
DELIBERATE = {
    ("screens/play.py", "_compositor"),
    ("screens/compute.py", "_require_update_dimensions"),
    ("widgets/content_table.py", "_update_count"),
}


def test_no_crmtui_widget_overwrites_textual_s_private_state_by_accident() -> None:
    """QueryConsole once kept its running query in ``_running``, Textual's "this pump has
    started" flag: once a query had finished, Textual saw the console as stopped and the
    editor's keys were never reported done. Private names of Textual's own classes are
    reserved: a crmtui class may set one only deliberately (listed above)."""
    reserved: set[str] = set()
    for instance in (Widget(), Screen(), App(), Input(), DataTable()):
        reserved |= {name for name in vars(instance) if name.startswith("_")}
        for cls in type(instance).__mro__:
            reserved |= {name for name in vars(cls) if name.startswith("_")}
    reserved = {name for name in reserved if not name.startswith("__")}
    ui = Path(__file__).resolve().parents[2] / "crmtui" / "ui"
    found = set()
    for path in ui.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[Any] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AnnAssign | ast.AugAssign):
                targets = [node.target]
            for target in targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                    and target.attr in reserved
                ):
                    found.add((path.relative_to(ui).as_posix(), target.attr))
    assert found == DELIBERATE


async def test_characters_typed_on_into_a_field_do_not_wait_for_the_app_to_settle() -> None:
    """The typing shortcut's cost: a 500-character burst into a field that has taken one
    waits for the app to settle a handful of times, not once (or more) per character."""
    app = Runs()
    async with app.run_test() as pilot:
        await pilot.press("b")
        await _settle(app, pilot)
        waits = 0
        settled = app._settled

        async def counted(head: Any) -> bool:
            nonlocal waits
            waits += 1
            return await settled(head)

        app._settled = counted  # type: ignore[method-assign]
        for event in _keys("c" * 500):
            app.post_message(event)
        await _settle(app, pilot)
        assert app.query_one("#box", Input).value == "b" + "c" * 500
        assert waits <= 5, waits
