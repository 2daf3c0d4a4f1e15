"""A recorder killed with SIGKILL mid-stream leaves a verifiable file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from crmtui.record import Recorder, load, verify

CHILD = r"""
import sys
from crmtui.record import Recorder
rec = Recorder.create(
    sys.argv[1],
    actor={"kind": "model", "id": "fake/model", "strategy": "react"},
    instance={"idx": 7, "task": "top_issue", "query": "q", "reward_metric": "exact_match"},
    org={"path": None, "digest": None, "name": None},
    tasks_source="test",
    fsync=sys.argv[2] == "1",
)
i = 0
while True:
    i += 1
    rec.emit("thought", {"text": "step %d " % i + "x" * (i % 997)})
    print(i, flush=True)  # acknowledged only after emit returned
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
@pytest.mark.parametrize("fsync", ["1", "0"])
def test_sigkill_mid_stream_keeps_every_acknowledged_event(tmp_path: Path, fsync: str) -> None:
    path = tmp_path / "killed.jsonl"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), fsync],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert child.stdout is not None
    acknowledged = 0
    try:
        while acknowledged < 150:
            line = child.stdout.readline()
            assert line, "child died early"
            acknowledged = int(line)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    assert child.returncode == -signal.SIGKILL

    report = verify(path)
    # A kill can at worst cut the line being written; never earlier ones.
    assert report.ok or report.truncated, report.describe()
    assert report.events >= acknowledged and not report.finished

    again = Recorder.resume(path)
    again.close("killed")
    final = verify(path)
    assert final.ok and final.finished
    assert final.events == report.events + 2
    assert [e.type for e in load(path).events[-2:]] == ["resume", "end"]
