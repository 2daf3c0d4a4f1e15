"""The TUI's terminal boundaries (crmtui/ui/terminal.py): bytes in, text out.

* In: a real ``crmtui play`` in a pseudo-terminal gets Latin-1 and broken UTF-8 bytes typed
  into the answer box and the console; it keeps running and records U+FFFD where each bad
  byte was (Textual's strict decoder used to end the app with a traceback and status 0).
* Out: a task whose query holds OSC 52 (clipboard), OSC 0 (title), OSC 8 (link), CSI 2J and
  U+202E never writes those sequences to the terminal; the query shows them as visible
  characters (``␛]52``).
* A lone surrogate handed to the console (an agent's query, ``set_text``) is shown as U+FFFD.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from crmtui.factory import build_play_app
from crmtui.sanitise import UNSAFE, on_screen
from crmtui.ui.widgets.console import QueryConsole

from .test_hostile_input import _play, _run_console
from .test_play_flow import SIZE

HOSTILE_QUERY = (
    "Which agent?\x1b]52;c;cHduZWQ=\x07 \x1b]0;PWNED-TITLE\x07 "
    "\x1b]8;;http://evil.example/\x1b\\link\x1b]8;;\x1b\\ \x1b[2J \u202eevil"
)


def _hostile_tasks(sample_org_path: Path, into: Path) -> Path:
    """The sample's tasks with instance 0's query made hostile (same org: no --force)."""
    rows = json.loads(sample_org_path.with_suffix(".tasks.json").read_text(encoding="utf-8"))
    rows[0]["query"] = HOSTILE_QUERY
    path = into / "hostile.tasks.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def test_the_screen_translation_keeps_lengths_and_leaves_nothing_unsafe() -> None:
    shown = on_screen(HOSTILE_QUERY + "\x00\x9b\ud800\x7f")
    assert UNSAFE.search(shown) is None
    assert "␛]52;c;" in shown and "\u202e" not in shown
    # BEL is removed (as Rich and Textual always did); everything else is one for one.
    assert len(shown) == len(HOSTILE_QUERY) + 4 - HOSTILE_QUERY.count("\x07")


async def test_a_hostile_query_is_drawn_visibly_and_a_surrogate_reaches_the_console(
    sample_org_path, play_config, clock, wall, tmp_path: Path
):
    from crmtui.data.loaders import load_tasks
    from crmtui.org.store import Org
    from crmtui.play.workspace import Workspace

    tasks = load_tasks(str(_hostile_tasks(sample_org_path, tmp_path)))
    workspace = Workspace(org=Org.open(sample_org_path), tasks=tasks, tasks_label="hostile")
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _play(pilot)
        picture = app.export_screenshot()
        assert "\x1b" not in picture and "\u202e" not in picture
        assert "␛]52;c;cHduZWQ=" in picture
        await pilot.press("f3")
        console = screen.query_one(QueryConsole)
        status = await _run_console(pilot, console, "SELECT Id FROM Case WHERE Subject = '\ud800'")
        assert status.startswith("0 rows")
        assert app.is_running and app._exception is None
        assert "\ufffd" in console.query_one("#console-editor").text


# -- a real terminal ---------------------------------------------------------------------

fcntl = pytest.importorskip("fcntl", reason="needs POSIX pseudo-terminals")
from tests.ptyproc import PtyProcess, crmtui_argv, terminal_env  # noqa: E402
from tests.waiting import PATIENCE_S  # noqa: E402

F3, F4, CTRL_Q = b"\x1bOR", b"\x1bOS", b"\x11"


def _poll(condition: Callable[[], Any], child: PtyProcess, what: str) -> Any:
    deadline = time.monotonic() + PATIENCE_S  # only a hang runs out of it
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        if child.proc.poll() is not None:
            tail = child.output[-1500:].decode("utf-8", "replace")
            raise AssertionError(f"crmtui exited ({child.proc.returncode}) before {what}:\n{tail}")
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _events(recordings: Path) -> list[dict[str, Any]]:
    found = sorted(recordings.rglob("*.jsonl"))
    if not found:
        return []
    lines = found[-1].read_bytes().decode("utf-8", "replace").split("\n")[:-1]
    return [json.loads(line) for line in lines[1:]]


@pytest.mark.skipif(not hasattr(os, "openpty") or sys.platform == "win32", reason="POSIX pty")
def test_bytes_that_are_not_utf8_are_replaced_and_raw_escapes_never_reach_the_terminal(
    sample_org_path: Path, crmtui_home: Path, tmp_path: Path
) -> None:
    orgs = crmtui_home / "orgs"
    orgs.mkdir(parents=True, exist_ok=True)
    for source in sample_org_path.parent.glob(f"{sample_org_path.stem}.*"):
        shutil.copy2(source, orgs / source.name)
    tasks = _hostile_tasks(sample_org_path, tmp_path)
    recordings = tmp_path / "recordings"
    argv = [*crmtui_argv(), "play", "--tasks", str(tasks), "--idx", "0"]
    argv += ["--annotator", "bytes", "--recordings", str(recordings)]
    child = PtyProcess(argv, env=terminal_env(crmtui_home), cwd=tmp_path)
    try:
        child.wait_for("␛]52;c;cHduZWQ=".encode(), PATIENCE_S)
        # No pause after a focus key: keys take effect in the order typed (key_order.py).
        child.send(F4)
        child.send(b"caf\xe9 \xc3( \xff ok")  # Latin-1, a broken sequence, a byte never valid
        _poll(lambda: child.output.count(b"caf\xef\xbf\xbd") > 0, child, "the typed answer")
        child.send(F3)
        child.send(b"SELECT Id FROM Case WHERE Subject = 'caf\xe9'")
        _poll(lambda: b"'caf\xef\xbf\xbd'" in child.output, child, "the typed query")
        asked = len(child.output)
        child.send(CTRL_Q)  # an open instance asks first; Ctrl+Q again quits
        _poll(lambda: b"Quit crmtui?" in child.output[asked:], child, "the quit dialog")
        child.send(CTRL_Q)
        child.proc.wait(timeout=PATIENCE_S)
    finally:
        output = child.output
        child.close()
    assert child.proc.returncode == 0
    assert b"Traceback" not in output and b"UnicodeDecodeError" not in output
    for raw in (b"\x1b]52;", b"\x1b]0;PWNED", b"\x1b]8;;http://evil", "\u202e".encode()):
        assert raw not in output, raw
    events = _events(recordings)
    answers = [e["payload"]["text"] for e in events if e["type"] == "answer_edit"]
    assert answers[-1] == "caf\ufffd \ufffd( \ufffd ok"
    edits = [e["payload"]["text"] for e in events if e["type"] == "editor_edit"]
    assert edits and edits[-1].endswith("'caf\ufffd'")


def test_a_driver_module_loaded_after_install_is_guarded_once_an_app_picks_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The web driver is imported only by a served session (not by every terminal start,
    ~6 ms): the app that picks it still gets the lenient decoder."""
    import codecs

    import textual.drivers.web_driver as web
    from textual import constants
    from textual.app import App

    from crmtui.ui import terminal

    terminal.install()
    # As a served session sees it: the driver named by textual-serve, its module as imported.
    monkeypatch.setattr(constants, "DRIVER", "textual.drivers.web_driver:WebDriver")
    monkeypatch.setattr(web, "getincrementaldecoder", codecs.getincrementaldecoder)
    assert App().driver_class is web.WebDriver
    assert web.getincrementaldecoder("utf-8")().decode(b"caf\xe9 \xc3(") == "caf\ufffd \ufffd("
    terminal.install()  # idempotent: the wrapper is not wrapped again
    assert App.get_driver_class.__wrapped__.__name__ == "get_driver_class"
    assert not hasattr(App.get_driver_class.__wrapped__, "__wrapped__")


async def test_a_str_in_any_table_is_shown_as_written_never_as_markup() -> None:
    """A recorded message with ``[/]`` ended the replay (MarkupError in the event table),
    ``[red]`` recoloured its row and ``:smile:`` became an emoji."""
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable

    from crmtui.ui import terminal

    terminal.install()
    written = ["is [/] closed", "[red]not red[/red]", ":smile: [b]x[/b] \\[y]"]

    class Table(App[None]):
        def compose(self) -> ComposeResult:
            yield DataTable()

        def on_mount(self) -> None:
            table = self.query_one(DataTable)
            table.add_columns("a", "b", "c")
            table.add_row(*written)

    app = Table()
    async with app.run_test(size=(120, 10)) as pilot:
        await pilot.pause()
        table = app.query_one(DataTable)
        shown = [cell.plain for cell in table._get_row_renderables(0).cells]
        assert shown == written and not any(
            cell.spans for cell in table._get_row_renderables(0).cells
        )
        assert "<svg" in app.export_screenshot()  # drawn, not raised
