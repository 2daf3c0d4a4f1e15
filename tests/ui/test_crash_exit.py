"""A bug that kills the app: status 1, one line, a crash log, and a resumable recording.

A real ``crmtui play`` runs in a pseudo-terminal with one bug planted (F1 raises). The keys
are sent the moment the recording exists, before the play screen has been drawn: they must
wait for it and reach the answer box (F4, then the answer). F1 then takes the app down,
which must end the way docs/robustness.md promises, not with Textual's traceback and status 0.
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
from tests.ptyproc import PtyProcess, terminal_env  # noqa: E402
from tests.ui.test_kill_resume import START_TIMEOUT, _poll, _seed_sample_org  # noqa: E402

pytestmark = pytest.mark.skipif(
    not hasattr(os, "openpty") or sys.platform == "win32", reason="needs POSIX pseudo-terminals"
)

# The planted bug, then the ordinary command line (sys.argv[1:] are crmtui's arguments).
PLANT = """
import crmtui.ui.screens.play as play

def broken_help(self):
    raise RuntimeError("planted bug")

play.PlayScreen.action_help = broken_help
from crmtui.cli import main
main()
"""
F1, F4 = b"\x1bOP", b"\x1bOS"


def test_a_crash_exits_1_with_a_crash_log_and_leaves_the_session_resumable(
    sample_org_path: Path, crmtui_home: Path, tmp_path: Path
) -> None:
    _seed_sample_org(sample_org_path, crmtui_home)
    recordings = tmp_path / "recordings"
    argv = [sys.executable, "-c", PLANT, "play", "--annotator", "crasher"]
    argv += ["--recordings", str(recordings), "--idx", "0"]
    child = PtyProcess(argv, env=terminal_env(crmtui_home), cwd=tmp_path)
    try:
        path = _poll(
            lambda: next(iter(recordings.rglob("*.jsonl")), None),
            START_TIMEOUT,
            "the recording to be created",
            child,
        )
        child.send(F4 + b"Sacramento" + F1)
        status = child.proc.wait(timeout=START_TIMEOUT)
    finally:
        child.close()  # kills it if still running, reads the terminal to its end
    said = child.output.decode("utf-8", "replace")
    assert status == 1, said[-2000:]
    assert "Error: internal error (RuntimeError: planted bug); details in" in said
    assert "Traceback" not in said  # it is in the log, not on the terminal
    logs = sorted((crmtui_home / "logs").glob("crash-*.txt"))
    assert len(logs) == 1
    log = logs[0].read_text(encoding="utf-8")
    assert "Traceback" in log and "planted bug" in log and "broken_help" in log

    # The recording is whole, unfinished (to be resumed) and holds the answer typed.
    report = verify(path)
    assert report.ok and not report.finished, report.describe()
    assert find_unfinished(recordings, "crasher") == [path]
    assert fold_drafts(load(path).events).answer == "Sacramento"
