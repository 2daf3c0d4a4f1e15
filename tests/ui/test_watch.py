"""Pilot tests: a scripted model solves an instance in the watch screen, with its controls."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Input, Static

from crmtui.agent.client import load_litellm
from crmtui.agent.watch_config import WatchConfig
from crmtui.factory import build_watch_app
from crmtui.record.verify import load, verify
from crmtui.ui.screens.watch import WatchScreen
from crmtui.ui.widgets.transcript import Transcript
from tests.fakes.openai_server import FakeOpenAI, text
from tests.waiting import PATIENCE_S

SIZE = (160, 48)
QUERY = "SELECT Id, Name FROM User LIMIT 3"


@pytest.fixture(autouse=True)
def _model_env(monkeypatch: pytest.MonkeyPatch) -> None:
    load_litellm(online=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy-key")


async def _wait(pilot: Any, condition: Any, seconds: float = PATIENCE_S) -> None:
    # Time-based, generous: a loaded CI box may be slow, but the condition must come true.
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        await pilot.pause(0.02)
        if condition():
            return
    raise AssertionError("condition not met in time")


def _config(server: FakeOpenAI, idx: int | None, tmp_path: Path, **kwargs: Any) -> WatchConfig:
    return WatchConfig(
        model="openai/fake",
        api_base=server.base_url,
        idx=idx,
        recordings=tmp_path / "recordings",
        timeout=60.0,  # the fake answers at once: only a hang waits this out
        fsync=False,
        client_options={"max_retries": 0},
        **kwargs,
    )


def _instance(workspace: Any) -> Any:
    return next(i for i in workspace.tasks if i.task == "handle_time" and i.answer)


async def _watch_screen(pilot: Any) -> WatchScreen:
    await _wait(pilot, lambda: isinstance(pilot.app.screen, WatchScreen))
    return pilot.app.screen


async def test_single_steps_then_shows_answer_and_reward(
    workspace, wall, tmp_path, monkeypatch
) -> None:
    inst = _instance(workspace)
    script = [
        text(f"<thought>List a few users first.</thought><execute>{QUERY}</execute>"),
        text(f"<thought>I know it now.</thought><respond>{inst.answer}</respond>"),
    ]
    streamed: list[str] = []
    original_stream = Transcript.stream

    def spy(self: Transcript, piece: str) -> None:
        streamed.append(piece)
        original_stream(self, piece)

    monkeypatch.setattr(Transcript, "stream", spy)
    with FakeOpenAI(script) as server:
        config = _config(server, inst.idx, tmp_path, paused=True)
        app = build_watch_app(config, workspace=workspace, wall=wall)
        async with app.run_test(size=SIZE) as pilot:
            screen = await _watch_screen(pilot)
            transcript = screen.query_one(Transcript)
            # Paused before the first step: the model has not been called.
            await _wait(pilot, lambda: screen.gate.waiting)
            assert server.requests == []

            await pilot.press("s")
            await _wait(pilot, lambda: transcript.steps == 1 and screen.gate.waiting)
            assert len(server.requests) == 1 and server.requests[0]["stream"] is True
            # The reply arrived in several streamed pieces before the step was shown.
            assert len(streamed) > 1 and "".join(streamed) == script[0].content
            assert "thought: List a few users first." in transcript.plain_text
            assert f"execute: {QUERY}" in transcript.plain_text
            table = screen.query_one("#console-results", DataTable)
            await _wait(pilot, lambda: table.row_count == 3)
            assert screen.query_one("#console-editor").text == QUERY

            await pilot.press("s")
            await _wait(pilot, lambda: screen.result is not None)
            await pilot.pause(0.05)
            assert screen.query_one("#answer-input", Input).value == inst.answer
            result_text = str(screen.query_one("#answer-result", Static).render())
            assert "correct" in result_text and "reward 1.00" in result_text
            assert "Ended: Submit action" in transcript.plain_text
            path = screen.session.path
    assert verify(path).ok
    recording = load(path)
    assert recording.actor["kind"] == "model"
    assert recording.submit is not None and recording.submit.payload["reward"] == 1.0


async def test_pause_after_current_step_then_resume_and_stop(workspace, wall, tmp_path) -> None:
    inst = _instance(workspace)
    step = text(f"<thought>Look.</thought><execute>{QUERY}</execute>")
    # The first call stays in flight until p is pressed, the second until x is.
    release, release_second = threading.Event(), threading.Event()
    script = [replace(step, hold=release), replace(step, hold=release_second), step, step]
    with FakeOpenAI(script) as server:
        config = _config(server, inst.idx, tmp_path, delay=0.0)
        app = build_watch_app(config, workspace=workspace, wall=wall)
        async with app.run_test(size=SIZE) as pilot:
            screen = await _watch_screen(pilot)
            transcript = screen.query_one(Transcript)
            await _wait(pilot, lambda: len(server.requests) == 1)
            await pilot.press("p")  # while the first model call is in flight
            release.set()
            await _wait(pilot, lambda: transcript.steps == 1 and screen.gate.waiting)
            await pilot.pause(0.2)
            assert len(server.requests) == 1  # paused after the current step, not before

            await pilot.press("plus")  # speed controls change the delay between steps
            assert screen.gate.delay == 0.0
            await pilot.press("minus")
            assert screen.gate.delay == 0.5
            await pilot.press("plus")
            assert screen.gate.delay == 0.0

            await pilot.press("p")  # resume: the agent runs on
            await _wait(pilot, lambda: len(server.requests) >= 2)
            await pilot.press("x")  # stop after the current step
            release_second.set()
            await _wait(pilot, lambda: screen.result is not None)
            assert screen.result.end_reason == {"source": "runner", "message": "Stopped"}
            assert "Ended: Stopped" in transcript.plain_text
            path = screen.session.path
    assert verify(path).ok
    end = load(path).end
    assert end is not None and end.payload["end_reason"]["message"] == "Stopped"


async def test_quitting_mid_run_ends_the_recording(workspace, wall, tmp_path) -> None:
    inst = _instance(workspace)
    with FakeOpenAI([text(f"<execute>{QUERY}</execute>")]) as server:
        config = _config(server, inst.idx, tmp_path, paused=True)
        app = build_watch_app(config, workspace=workspace, wall=wall)
        async with app.run_test(size=SIZE) as pilot:
            screen = await _watch_screen(pilot)
            await _wait(pilot, lambda: screen.gate.waiting)
            path = screen.session.path
    assert verify(path).ok
    end = load(path).end
    assert end is not None and end.payload["end_reason"]["message"] == "Stopped"


async def test_without_a_workspace_it_loads_the_sample_org_first(wall, tmp_path) -> None:
    with FakeOpenAI([text("<respond>None</respond>")]) as server:
        config = _config(server, None, tmp_path, task="KQA")
        app = build_watch_app(config, wall=wall)
        async with app.run_test(size=SIZE) as pilot:
            screen = await _watch_screen(pilot)
            assert screen.session.instance.task == "knowledge_qa"
            await _wait(pilot, lambda: screen.result is not None)
            assert screen.result.end_reason["message"] == "Submit action"
            header = load(screen.session.path).header
    assert header["tasks_source"] == "sample"
    assert header["actor"] == {"kind": "model", "id": "openai/fake", "strategy": "react"}


async def test_a_failing_agent_query_shows_its_error_in_the_console(
    workspace, wall, tmp_path
) -> None:
    inst = _instance(workspace)
    script = [
        text("<thought>Try a field.</thought><execute>SELECT Nope FROM Case</execute>"),
        text(f"<thought>Fine.</thought><respond>{inst.answer}</respond>"),
    ]
    with FakeOpenAI(script) as server:
        app = build_watch_app(_config(server, inst.idx, tmp_path), workspace=workspace, wall=wall)
        async with app.run_test(size=SIZE) as pilot:
            screen = await _watch_screen(pilot)
            status = screen.query_one("#console-status")
            await _wait(pilot, lambda: "INVALID_FIELD" in str(status.render()))
            assert status.has_class("error")
            assert screen.query_one("#console-results", DataTable).row_count == 0


async def test_a_server_that_ignores_stream_is_asked_again_unstreamed(
    workspace, wall, tmp_path
) -> None:
    from tests.fakes.openai_server import ignoring_stream

    inst = _instance(workspace)
    step = f"<thought>Look.</thought><execute>{QUERY}</execute>"
    answer = f"<respond>{inst.answer}</respond>"
    # The first request asks for a stream and gets plain JSON, which streams as nothing.
    script = [ignoring_stream(text(step)), text(step), text(answer)]
    with FakeOpenAI(script) as server:
        config = _config(server, inst.idx, tmp_path)
        app = build_watch_app(config, workspace=workspace, wall=wall)
        async with app.run_test(size=SIZE) as pilot:
            screen = await _watch_screen(pilot)
            transcript = screen.query_one(Transcript)
            await _wait(pilot, lambda: screen.result is not None)
            await pilot.pause(0.05)
            assert screen.result.reward == 1.0 and screen.result.stream_fallback
            assert "streaming is off for the rest of this session" in transcript.plain_text
            path = screen.session.path
    assert [bool(r.get("stream")) for r in server.requests] == [True, False, False]
    calls = load(path).of_type("model_call")
    assert calls[0].payload["stream_fallback"] is True
    assert "stream_fallback" not in calls[1].payload
