"""Property: what a person types, pastes or inserts is what the fields hold and the recording says.

Generated sessions (:mod:`tests.ui.typing_model`, seeded) type, paste, insert the copied
value (Ctrl+T), delete and move in the answer box, the console editor and the notes, move
between them (F4, F3, Ctrl+N), select all and replace (Ctrl+A), run the query (F5) and ask
to submit (Ctrl+S, then Escape), at generated speeds: mostly bursts with no pause at all
(keys delivered faster than the app handles them, as a terminal does after a stall), short
pauses, now and then up to a second. The app's clock moves on by generated amounts so the
recording's debounced edits land at many points. Then the answer is submitted.

Whatever the timing, the fields must hold exactly the model's text, every submit request
and query run must carry the text the model had at that key, and the recording's
``answer_edit``, ``editor_edit`` and ``note_edit`` events must be states the model went
through, in order, ending with the final text, and its ``submit`` the final answer.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from textual import events

from crmtui.factory import build_play_app
from crmtui.play.cells import ValueRef
from crmtui.record.verify import load
from crmtui.ui.screens.picker import PickerScreen
from crmtui.ui.screens.play import PlayScreen
from crmtui.ui.widgets.answer_box import AnswerBox
from tests.ui.test_play_flow import _open_first, _wait
from tests.ui.typing_model import Op, expected, generate, is_subsequence, key_events
from tests.waiting import deadline

REGISTER = "500Ws000001RBybIAG"
#: (seed, operations, terminal size): about 1,100 keys in all.
RUNS = [(1, 260, (160, 48)), (2, 260, (160, 48)), (3, 200, (80, 24))]


@pytest.mark.parametrize(("seed", "count", "size"), RUNS)
async def test_typed_text_is_what_the_fields_hold_and_the_recording_says(
    seed: int, count: int, size: tuple[int, int], workspace, play_config, clock, wall
) -> None:
    ops = generate(seed, count)
    model = expected(ops, REGISTER)
    requests: list[AnswerBox.SubmitRequested] = []
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=size, message_hook=_keep_requests(requests)) as pilot:
        screen = await _open_first(pilot)
        screen.copy_value(ValueRef("table", "Id", "Case", REGISTER), REGISTER)
        path = await _type_and_check(pilot, ops, model, clock)
    _assert_recorded(path, model, requests)


#: Seeds of the sessions typed while the instance opens (about 40 operations each).
OPENING_SEEDS = [11, 12, 13, 14]


@pytest.mark.parametrize("seed", OPENING_SEEDS)
async def test_keys_typed_while_the_instance_opens_land_in_it(
    seed: int, workspace, play_config, clock, wall
) -> None:
    """Enter on the picker and the session's first keys in one burst (a person who starts
    typing before the play screen has appeared): nothing is lost or sent elsewhere."""
    ops = [op for op in generate(seed, 40) if op.kind != "insert"]  # nothing copied yet
    ops[:6] = [Op(op.kind, op.arg, None, op.clock) for op in ops[:6]]  # the first keys: a burst
    model = expected(ops, REGISTER)
    requests: list[AnswerBox.SubmitRequested] = []
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=(160, 48), message_hook=_keep_requests(requests)) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen.is_mounted)
        app.post_message(events.Key("enter", "\r"))
        path = await _type_and_check(pilot, ops, model, clock)
    _assert_recorded(path, model, requests)


@pytest.mark.parametrize(("key", "field"), [("a", "#answer-input"), ("c", "#console-editor")])
async def test_a_letter_shortcut_pressed_while_the_play_screen_is_built_reaches_its_field(
    key: str, field: str, workspace, play_config, clock, wall
) -> None:
    """The issue's ``a`` while the play screen was being built (``NoMatches`` 1 time in 5):
    Enter, the shortcut and a word in one burst; the word is in the field."""
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=(160, 48)) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen.is_mounted)
        for name, character in [("enter", "\r"), (key, key), *((c, c) for c in "hello")]:
            app.post_message(events.Key(name, character))
        await _wait(pilot, lambda: app.keys_pending == 0 and isinstance(app.screen, PlayScreen))
        widget = app.screen.query_one(field)
        assert (widget.value if key == "a" else widget.text) == "hello"


async def test_keys_typed_while_a_dialog_opens_land_in_it(
    workspace, play_config, clock, wall
) -> None:
    """Ctrl+G, an Id with a typo fixed, Enter and the next keys in one burst: the prompt
    gets exactly the Id and the keys after Enter reach the answer box."""
    record_id = "500Ws000001RBybIAG"
    keys = ["ctrl+g", *record_id[:7], "x", "backspace", *record_id[7:], "enter", "f4", *"ok"]
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await _open_first(pilot)
        asked: list[str] = []
        goto = screen.goto_record
        screen.goto_record = lambda text: asked.append(text) or goto(text)  # type: ignore[method-assign]
        for key in keys:
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        await _wait(pilot, lambda: app.keys_pending == 0 and not app._unsettled())
        assert asked == [record_id]
        assert screen.query_one("#answer-input").value == "ok"


def _keep_requests(requests: list[Any]) -> Any:
    def hook(message: Any) -> None:
        # Called for every node a message passes through: keep each request once.
        if isinstance(message, AnswerBox.SubmitRequested) and not any(
            message is seen for seen in requests
        ):
            requests.append(message)

    return hook


async def _type_and_check(pilot: Any, ops: list[Op], model: Any, clock: Any) -> Any:
    """Deliver ``ops`` at their speeds, wait for the submit, check the fields against
    ``model``; the recording's path."""
    app = pilot.app
    for op in ops:
        for event in key_events(op):
            app.post_message(event)
        clock.advance(op.clock)
        if op.pause is not None:
            await asyncio.sleep(op.pause)
    # Not workers.wait_for_complete: a query replaced by the next F5 is a cancelled
    # worker, which it reports as an error.
    until = deadline()
    while time.monotonic() < until:
        await pilot.pause(0.02)
        screen = app.screen
        if (
            isinstance(screen, PlayScreen)
            and screen.session.submitted
            and app.keys_pending == 0
            and not app.workers
        ):
            break
    assert isinstance(screen, PlayScreen)
    assert screen.query_one("#answer-input").value == model.boxes["answer"].text
    assert screen.query_one("#console-editor").text == model.boxes["editor"].text
    assert screen.query_one("#notes-editor").text == model.boxes["notes"].text
    return screen.session.recorder.path


def _assert_recorded(path: Any, model: Any, requests: list[Any]) -> None:
    """Submit requests, runs, the submitted answer and the debounced edits are the model's."""
    assert [request.text for request in requests] == model.asked
    recording = load(path)
    ran = [event.payload["text"] for event in recording.of_type("run_query")]
    assert sorted(ran) == sorted(model.runs)
    assert recording.of_type("submit")[0].payload["answer"] == model.boxes["answer"].text.strip()
    for event_type, name in (
        ("answer_edit", "answer"),
        ("editor_edit", "editor"),
        ("note_edit", "notes"),
    ):
        box = model.boxes[name]
        texts = [event.payload["text"] for event in recording.of_type(event_type)]
        assert is_subsequence(texts, box.states), (event_type, texts[-3:], box.states[-3:])
        assert (texts[-1] if texts else "") == box.text, event_type
