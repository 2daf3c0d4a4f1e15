"""Kill a real ``crmtui play`` process mid-session, then verify and resume its recording.

The process runs in a pseudo-terminal (160x48, xterm-256color) as a person would run it,
opens an object (an ``open_object`` event, flushed and fsync-ed at once) and is killed with
SIGKILL: no handler, no ``end`` event. The recording must still verify, be listed as
unfinished, and the next start (in-process, under Pilot) must offer to resume it and continue
its hash chain up to a clean ``end``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

fcntl = pytest.importorskip("fcntl", reason="needs POSIX pseudo-terminals")
termios = pytest.importorskip("termios", reason="needs POSIX pseudo-terminals")

from crmtui.config import PlayConfig  # noqa: E402
from crmtui.factory import build_play_app  # noqa: E402
from crmtui.record.sessions import find_unfinished  # noqa: E402
from crmtui.record.verify import load, verify  # noqa: E402
from tests.ptyproc import COLUMNS, LINES, PtyProcess, crmtui_argv, terminal_env  # noqa: E402
from tests.waiting import PATIENCE_S, until  # noqa: E402

pytestmark = pytest.mark.skipif(
    not hasattr(os, "openpty") or sys.platform == "win32", reason="needs POSIX pseudo-terminals"
)

START_TIMEOUT = PATIENCE_S  # first start (imports, org, tasks, paint): only a hang is longer
DOWN, ENTER = b"\x1b[B", b"\r"
ANNOTATOR = "killer"


def _poll(condition: Callable[[], Any], timeout: float, what: str, child: PtyProcess) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        if child.proc.poll() is not None:
            tail = child.output[-2000:].decode("utf-8", "replace")
            raise AssertionError(f"crmtui exited ({child.proc.returncode}) before {what}:\n{tail}")
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def _event_types(path: Path) -> list[str]:
    # Only complete lines: the child may be writing while we read.
    text = path.read_bytes().decode("utf-8", "replace")
    lines = text.split("\n")[:-1]
    return [json.loads(line).get("type", "header") for line in lines[1:]]


def _seed_sample_org(sample_org_path: Path, home: Path) -> None:
    # The UI session fixture built the same org ensure_sample builds (seed 7, scale small,
    # name "sample"); copying it spares the child a build that other tests already paid for.
    orgs = home / "orgs"
    orgs.mkdir(parents=True, exist_ok=True)
    for source in sample_org_path.parent.glob(f"{sample_org_path.stem}.*"):
        shutil.copy2(source, orgs / source.name)


def _kill_mid_session(home: Path, recordings: Path, cwd: Path) -> Path:
    """Run ``crmtui play --idx 0``, open an object, SIGKILL it; return the recording."""
    argv = [
        *crmtui_argv(),
        "play",
        "--annotator",
        ANNOTATOR,
        "--recordings",
        str(recordings),
        "--idx",
        "0",
    ]
    child = PtyProcess(argv, env=terminal_env(home), cwd=cwd)
    try:
        # The session file appears (header written) when the play screen opens instance 0.
        path = _poll(
            lambda: next(iter(recordings.rglob("*.jsonl")), None),
            START_TIMEOUT,
            "the recording to be created",
            child,
        )

        def opened() -> bool:
            return "open_object" in _event_types(path)

        # The object list fills in from a worker: until it has rows, keys do nothing, so
        # press Down + Enter again every couple of seconds until an object opens.
        deadline = time.monotonic() + START_TIMEOUT
        while not opened():
            assert time.monotonic() < deadline, "no open_object event after Down + Enter"
            child.send(DOWN)
            child.send(ENTER)
            try:
                _poll(opened, 2.0, "open_object", child)
            except AssertionError as exc:
                if "timed out" not in str(exc):
                    raise
        assert child.proc.poll() is None, "crmtui should still be running"
        status = child.kill()
    finally:
        child.close()
    assert status == -signal.SIGKILL
    return path


@pytest.fixture
def killed_session(sample_org_path: Path, crmtui_home: Path, tmp_path: Path) -> Path:
    """A recording left behind by a ``crmtui play`` process killed after opening an object."""
    _seed_sample_org(sample_org_path, crmtui_home)
    return _kill_mid_session(crmtui_home, tmp_path / "recordings", tmp_path)


async def _wait(pilot: Any, condition: Callable[[], Any]) -> None:
    """Pause ``pilot`` until ``condition()`` holds (a deadline only against a hang)."""
    await until(pilot, condition, workers=True)


async def test_killed_session_verifies_and_is_resumed(
    killed_session: Path, crmtui_home: Path, tmp_path: Path
) -> None:
    from crmtui.data.loaders import load_tasks
    from crmtui.org.store import Org
    from crmtui.play.workspace import Workspace
    from crmtui.ui.screens.dialogs import ConfirmScreen
    from crmtui.ui.screens.play import PlayScreen

    path = killed_session
    recordings = tmp_path / "recordings"
    assert path.parent == recordings / ANNOTATOR and "-idx0-" in path.name

    # Everything up to the last event is intact; there is no end event.
    report = verify(path)
    assert report.ok, report.describe()
    assert not report.finished and not report.truncated
    before = load(path)
    assert before.instance["idx"] == 0
    assert before.actor == {"kind": "human", "id": ANNOTATOR}
    types = [event.type for event in before.events]
    assert "open_object" in types and "end" not in types
    opened = before.of_type("open_object")[0]
    assert opened.payload["query"].startswith("SELECT ")
    assert find_unfinished(recordings, ANNOTATOR) == [path]
    assert find_unfinished(recordings, "someone-else") == []

    # The next start offers to resume; y reopens instance 0 and continues the chain.
    workspace = Workspace(
        org=Org.open(crmtui_home / "orgs" / "sample.db"),
        tasks=load_tasks(str(crmtui_home / "orgs" / "sample.tasks.json")),
        tasks_label="sample",
    )
    config = PlayConfig(annotator=ANNOTATOR, recordings=recordings, fsync=False)
    app = build_play_app(config, workspace=workspace)
    async with app.run_test(size=(COLUMNS, LINES)) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await _wait(pilot, lambda: isinstance(app.screen, PlayScreen))
        assert app.screen.session.instance.idx == 0
        assert app.screen.session.recorder.path == path
        await pilot.press("escape")  # back to the list: leave the instance unanswered
        await _wait(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await pilot.pause(0.05)

    # The same file, one chain: the old events untouched, then resume ... end.
    assert sorted(recordings.rglob("*.jsonl")) == [path]
    report = verify(path)
    assert report.ok and report.finished, report.describe()
    after = load(path)
    assert after.header == before.header
    assert after.events[: len(before.events)] == before.events
    resumed = after.events[len(before.events)]
    assert resumed.type == "resume" and resumed.payload["reopened"] is True
    assert resumed.prev == before.events[-1].hash
    assert resumed.seq == before.events[-1].seq + 1
    assert after.events[-1].type == "end"
    assert find_unfinished(recordings, ANNOTATOR) == []
