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
from typing import Any

import pytest

from crmtui.factory import build_play_app
from crmtui.play.cells import ValueRef
from crmtui.record.verify import load
from crmtui.ui.screens.play import PlayScreen
from crmtui.ui.widgets.answer_box import AnswerBox
from tests.ui.test_play_flow import _open_first
from tests.ui.typing_model import expected, generate, is_subsequence, key_events

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

    def hook(message: Any) -> None:
        # Called for every node a message passes through: keep each request once.
        if isinstance(message, AnswerBox.SubmitRequested) and not any(
            message is seen for seen in requests
        ):
            requests.append(message)

    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=size, message_hook=hook) as pilot:
        screen = await _open_first(pilot)
        screen.copy_value(ValueRef("table", "Id", "Case", REGISTER), REGISTER)
        for op in ops:
            for event in key_events(op):
                app.post_message(event)
            clock.advance(op.clock)
            if op.pause is not None:
                await asyncio.sleep(op.pause)
        # Not workers.wait_for_complete: a query replaced by the next F5 is a cancelled
        # worker, which it reports as an error.
        for _ in range(1000):
            await pilot.pause(0.02)
            if screen.session.submitted and app.keys_pending == 0 and not app.workers:
                break
        assert isinstance(app.screen, PlayScreen)
        assert screen.query_one("#answer-input").value == model.boxes["answer"].text
        assert screen.query_one("#console-editor").text == model.boxes["editor"].text
        assert screen.query_one("#notes-editor").text == model.boxes["notes"].text
        path = screen.session.recorder.path

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
