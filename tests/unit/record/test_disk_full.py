"""A full disk never leaves a recording that verifies as BAD for ever.

* The header cannot be written: the error is raised and no (empty) file stays behind.
* An event is written only in part: the part is cut off again, so the file verifies as an
  intact unfinished session and resumes.
* Empty files and cut-off headers left by older versions are "unwritten": ``verify`` says
  nothing was recorded, ``verify --repair`` removes them, and so does a resumed ``run``.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from crmtui.cli import main
from crmtui.record import Recorder
from crmtui.record.errors import RecordingError
from crmtui.record.sessions import discard_unwritten, discard_unwritten_in, is_unwritten
from crmtui.record.verify import verify

Make = Callable[..., Recorder]


def _disk_fills_after(monkeypatch: pytest.MonkeyPatch, budget: int) -> None:
    """``os.write`` writes ``budget`` more bytes in all, then fails with ENOSPC."""
    real_write = os.write
    left = [budget]

    def write(fd: int, data: bytes | memoryview) -> int:
        if left[0] <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        n = real_write(fd, bytes(data)[: left[0]])
        left[0] -= n
        return n

    monkeypatch.setattr(os, "write", write)


def test_a_header_that_cannot_be_written_leaves_no_file(
    make_recorder: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for budget in (0, 40):  # nothing written; half a header written
        target = tmp_path / f"h{budget}.jsonl"
        with monkeypatch.context() as patch:
            _disk_fills_after(patch, budget)
            with pytest.raises(RecordingError, match="No space left on device"):
                make_recorder(target)
        assert not target.exists()


def test_an_event_written_in_part_is_cut_off_and_the_session_resumes(
    make_recorder: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    rec = make_recorder()
    rec.emit("thought", {"text": "before"})
    size = rec.path.stat().st_size
    with monkeypatch.context() as patch:
        _disk_fills_after(patch, 30)
        with pytest.raises(RecordingError, match="No space left on device"):
            rec.emit("thought", {"text": "this line does not fit " * 10})
    assert rec.path.stat().st_size == size
    report = verify(rec.path)
    assert report.ok and not report.finished and report.events == 1
    rec.suspend()
    resumed = Recorder.resume(rec.path)
    resumed.close()
    assert verify(rec.path).ok and verify(rec.path).finished


def test_what_counts_as_unwritten(tmp_path: Path) -> None:
    cases = {
        "empty.jsonl": b"",
        "cut.jsonl": b'{"actor":{"id":"alice","kind":"hu',
        "short.jsonl": b'{"ac',
        "other.jsonl": b"hello world",
        "lines.jsonl": b'{"actor":{}}\n',
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
    found = {name for name in cases if is_unwritten(tmp_path / name)}
    assert found == {"empty.jsonl", "cut.jsonl", "short.jsonl"}
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    assert not is_unwritten(fifo)
    assert sorted(p.name for p in discard_unwritten_in(tmp_path)) == sorted(found)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "fifo.jsonl",
        "lines.jsonl",
        "other.jsonl",
    ]


def test_an_unwritten_file_a_live_recorder_holds_is_left_alone(tmp_path: Path) -> None:
    import fcntl

    path = tmp_path / "held.jsonl"
    fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert is_unwritten(path) and not discard_unwritten(path)
    finally:
        os.close(fd)
    assert discard_unwritten(path) and not path.exists()


def test_verify_names_and_repair_removes_unwritten_recordings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert main(["verify", str(empty)]) == 1
    assert capsys.readouterr().out.strip() == (
        f"{empty}: BAD line 1: empty file (no header); nothing was recorded, --repair removes it"
    )
    assert main(["verify", "--repair", str(empty)]) is None
    assert "removed (its header was never written whole" in capsys.readouterr().out
    assert not empty.exists()
