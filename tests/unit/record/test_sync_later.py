"""Interactive recordings sync on a background thread: an event waits for its write only."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from crmtui.record import Recorder, RecordingError, load, verify
from tests.waiting import PATIENCE_S

Make = Callable[..., Recorder]


class SlowDisk:
    """``os.fsync`` held until the test lets it go; records which threads synced."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.release = threading.Event()
        self.entered = threading.Event()
        self.threads: list[str] = []
        real = os.fsync

        def fsync(fd: int) -> None:
            self.threads.append(threading.current_thread().name)
            self.entered.set()
            assert self.release.wait(10), "the test never released the disk"
            real(fd)

        monkeypatch.setattr(os, "fsync", fsync)


def test_emit_returns_while_the_disk_is_still_syncing(
    make_recorder: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    rec = make_recorder(sync_later=True)
    disk = SlowDisk(monkeypatch)
    rec.emit("open_object", {"object": "Case", "query": "SELECT Id FROM Case"})
    assert disk.entered.wait(PATIENCE_S)  # a sync is running on the background thread, held
    for n in range(5):  # ... and these events do not wait for it
        rec.emit("answer_edit", {"text": f"00{n}"})
    # Already in the file (the kernel has them: a killed process would lose nothing).
    assert verify(rec.path).ok
    assert [e.payload.get("text") for e in load(rec.path).events][-1] == "004"
    disk.release.set()
    rec.close()
    assert set(disk.threads[:-1]) == {"recording-sync"}
    assert disk.threads[-1] == threading.current_thread().name  # the last sync, at close
    assert verify(rec.path).ok


def test_without_sync_later_every_event_is_synced_before_emit_returns(
    make_recorder: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    rec = make_recorder()
    synced: list[str] = []
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(threading.current_thread().name))
    rec.emit("answer_edit", {"text": "a"})
    assert synced == [threading.current_thread().name]
    rec.close()


def test_a_failed_background_sync_is_reported_at_close(
    make_recorder: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    rec = make_recorder(sync_later=True)

    def broken(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", broken)
    rec.emit("answer_edit", {"text": "a"})
    with pytest.raises(RecordingError, match="cannot sync recording: Input/output error"):
        rec.close()
    assert rec.closed


def test_resume_with_sync_later_continues_the_chain(make_recorder: Make, tmp_path: Path) -> None:
    rec = make_recorder(sync_later=True)
    rec.emit("answer_edit", {"text": "a"})
    rec.suspend()
    again = Recorder.resume(rec.path, sync_later=True)
    again.emit("answer_edit", {"text": "ab"})
    again.close()
    assert verify(rec.path).ok
    assert [e.type for e in load(rec.path).events][-3:] == ["resume", "answer_edit", "end"]
