"""Watch never draws a model's echo of its API key: the screen runs the one secret scrubber.

The recording was scrubbed already; the transcript (streamed text included, where the key
arrives split over pieces), the console editor and status, the answer box and the end note
showed the key. Now every one of them shows ``***``, and so does the rendered screen.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Input

from crmtui.factory import build_watch_app
from crmtui.ui.widgets.transcript import Transcript
from tests.fakes.openai_server import FakeOpenAI, text

from .test_watch import SIZE, _config, _instance, _wait, _watch_screen

KEY = "sk-live-echo-0123456789abcdefABCDEF"
UNSHAPED = "hunter2-but-longer-42"  # not key-shaped: scrubbed because the environment holds it


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("MY_SERVICE_TOKEN", UNSHAPED)


async def test_an_echoed_key_is_scrubbed_from_everything_watch_draws(
    workspace: Any, wall: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    inst = _instance(workspace)
    live: list[str] = []  # the live entry as drawn after each streamed piece
    original_stream = Transcript.stream

    def spy(self: Transcript, piece: str) -> None:
        original_stream(self, piece)
        assert self._live is not None
        live.append(str(self._live.render()))

    monkeypatch.setattr(Transcript, "stream", spy)
    script = [
        text(
            f"<thought>My key is {KEY} and {UNSHAPED}.</thought>"
            f"<execute>SELECT Id FROM Case WHERE Subject = '{KEY}'</execute>",
            chunks=7,
        ),
        text(f"<thought>Done.</thought><respond>{KEY} {UNSHAPED}</respond>", chunks=5),
    ]
    with FakeOpenAI(script) as server:
        app = build_watch_app(_config(server, inst.idx, tmp_path), workspace=workspace, wall=wall)
        async with app.run_test(size=SIZE) as pilot:
            screen = await _watch_screen(pilot)
            transcript = screen.query_one(Transcript)
            await _wait(pilot, lambda: screen.result is not None)
            await pilot.pause(0.05)
            drawn = [
                transcript.plain_text,
                screen.query_one("#console-editor").text,
                str(screen.query_one("#console-status").render()),
                screen.query_one("#answer-input", Input).value,
                app.export_screenshot(),
                *live,
            ]
            assert "***" in transcript.plain_text and len(live) > 5
            assert screen.query_one("#answer-input", Input).value == "*** ***"
    for shown in drawn:
        assert KEY not in shown and UNSHAPED not in shown
