"""A terminal that goes away without a SIGHUP ends the app, the attempt kept to resume.

A real ``crmtui play`` runs in a pseudo-terminal that is not its controlling terminal (as
under ``setsid``, or an ssh connection dropped where no SIGHUP reaches the process). When
the terminal's other end closes, the driver reads end-of-file: the app used to spin at a full
core for ever, holding its instance's lock. It must exit within seconds, through unmount:
the recording verifies, is unfinished with a "disconnect" pause, and holds the answer typed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("fcntl", reason="needs POSIX pseudo-terminals")

from crmtui.play.drafts import fold_drafts  # noqa: E402
from crmtui.record.sessions import find_unfinished  # noqa: E402
from crmtui.record.verify import load, verify  # noqa: E402
from tests.ptyproc import PtyProcess, crmtui_argv, terminal_env  # noqa: E402
from tests.ui.test_kill_resume import START_TIMEOUT, _poll, _seed_sample_org  # noqa: E402
from tests.waiting import PATIENCE_S  # noqa: E402

pytestmark = pytest.mark.skipif(
    not hasattr(os, "openpty") or sys.platform == "win32", reason="needs POSIX pseudo-terminals"
)

F4 = b"\x1bOS"
#: From the terminal closing to the process gone (its exit saves and closes the recording): a
#: few seconds; the bug spun for ever, so only a hang runs out of the patience.
EXIT_TIMEOUT = PATIENCE_S


def test_a_terminal_gone_without_sighup_ends_the_app_and_keeps_the_attempt(
    sample_org_path: Path, crmtui_home: Path, tmp_path: Path
) -> None:
    _seed_sample_org(sample_org_path, crmtui_home)
    recordings = tmp_path / "recordings"
    argv = [*crmtui_argv(), "play", "--annotator", "gone", "--recordings", str(recordings)]
    child = PtyProcess([*argv, "--idx", "0"], env=terminal_env(crmtui_home), cwd=tmp_path)
    try:
        path = _poll(
            lambda: next(iter(recordings.rglob("*.jsonl")), None),
            START_TIMEOUT,
            "the recording to be created",
            child,
        )
        child.send(F4 + b"Sacramento")
        _poll(lambda: b"Sacramento" in child.output, START_TIMEOUT, "the answer drawn", child)
        os.close(child.master)  # the terminal goes away; nobody signals the process
        status = child.proc.wait(timeout=EXIT_TIMEOUT)
    finally:
        if child.proc.poll() is None:
            child.proc.kill()
            child.proc.wait()
    assert status == 0
    report = verify(path)
    assert report.ok and not report.finished, report.describe()
    assert find_unfinished(recordings, "gone") == [path]
    events = load(path).events
    assert (events[-1].type, events[-1].payload) == ("pause", {"reason": "disconnect"})
    assert fold_drafts(events).answer == "Sacramento"
