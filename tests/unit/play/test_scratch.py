"""Scratch steps in a play session: viewer opens, copies, computes and notes are recorded."""

from __future__ import annotations

from pathlib import Path

import pytest

from crmtui.play.cells import ValueRef
from crmtui.play.compute import ComputeResult, ComputeRun, ComputeSpec
from crmtui.play.drafts import fold_drafts
from crmtui.play.session import PlaySession, SessionError
from crmtui.record import events as ev
from crmtui.record.verify import load, verify
from tests.unit.play.sessions import ORG, Clock, begin, instance, wall

INSTANCE = instance(3, "handle_time", "Who was slowest?", "005x")


def _begin(tmp_path: Path, clock: Clock) -> PlaySession:
    session = begin(tmp_path, clock, INSTANCE)
    session.start()
    return session


def _events(session: PlaySession) -> list[ev.Event]:
    return load(session.path).events


def test_view_copy_and_compute_are_recorded_and_verify(tmp_path: Path) -> None:
    clock = Clock()
    session = _begin(tmp_path, clock)
    body = ValueRef("record", "Body", "LiveChatTranscript", "570x")
    session.scratch.viewed(body, 5000)
    owner = ValueRef("compute", "OwnerId")
    copied = session.scratch.copied(owner, "005x")
    assert session.scratch.register == copied and copied.text == "005x"
    session.scratch.copied(body, "y" * 5000, "row")
    spec = ComputeSpec("avg", "OwnerId", start="CreatedDate", end="ClosedDate")
    rows = [[f"005{i}", 1, 1.23456789] for i in range(600)]
    result = ComputeResult(["OwnerId", "n", spec.value_label], rows, 700, 4)
    session.scratch.computed(
        ComputeRun("SELECT OwnerId FROM Case", spec, result, 12.5),
        source="console",
        object_name=None,
    )
    session.scratch.compute_failed(
        "SELECT X FROM Case", spec, "no column", source="table", object_name="Case"
    )
    session.close()
    assert verify(session.path).ok
    events = _events(session)
    kinds = [e.type for e in events]
    assert kinds == ["view_value", "copy", "copy", "compute", "compute", "end"]
    view, copy, long_copy, compute, failed = (e.payload for e in events[:5])
    assert view == {
        "source": "record",
        "object": "LiveChatTranscript",
        "record": "570x",
        "field": "Body",
        "length": 5000,
    }
    assert copy["value"] == "005x" and copy["what"] == "value" and copy["length"] == 4
    assert len(long_copy["value"]) == ev.COPY_VALUE_LIMIT and long_copy["length"] == 5000
    assert compute["groups"] == 600 and len(compute["rows"]) == ev.COMPUTE_ROWS_LIMIT
    assert compute["rows"][0] == ["0050", 1, 1.234568]
    assert compute["spec"]["unit"] == "hours" and compute["input_rows"] == 700
    assert failed["error"] == "no column" and failed["rows"] == []


def test_notes_are_debounced_and_flushed_on_pause(tmp_path: Path) -> None:
    clock = Clock()
    session = _begin(tmp_path, clock)
    for text in ["=", "= 1", "= 1 +", "= 1 + 2"]:
        clock.now += 0.1
        session.scratch.notes_edited(text)
    session.flush_pending()
    assert [e.type for e in _events(session)] == []  # still within the quiet window
    clock.now += 5
    session.flush_pending()
    session.scratch.notes_edited("= 1 + 2")  # unchanged: nothing new
    session.scratch.notes_edited("= 1 + 2\nabc")
    session.pause()
    notes = [e.payload["text"] for e in _events(session) if e.type == "note_edit"]
    assert notes == ["= 1 + 2", "= 1 + 2\nabc"]


def test_resume_restores_the_latest_notes(tmp_path: Path) -> None:
    clock = Clock()
    session = _begin(tmp_path, clock)
    session.scratch.notes_edited("first")
    session.flush_pending(force=True)
    session.scratch.notes_edited("avg = 1049 / 3")
    session.flush_pending(force=True)
    path = session.path
    session.recorder.suspend()  # as if the process died: the file stays unfinished
    assert fold_drafts(load(path).events).notes == "avg = 1049 / 3"
    resumed = PlaySession.resume_from(path, INSTANCE, ORG, clock=clock, wall=wall, fsync=False)
    assert resumed.scratch.notes == "avg = 1049 / 3"
    resumed.scratch.notes_edited("avg = 1049 / 3")  # what the pane reports on load: no event
    resumed.close()
    assert [e.type for e in _events(resumed)][-2:] == ["resume", "end"]


def test_after_close_scratch_steps_are_refused(tmp_path: Path) -> None:
    session = _begin(tmp_path, Clock())
    session.close()
    with pytest.raises(SessionError):
        session.scratch.copied(ValueRef("table", "Id"), "x")


def test_drafts_hold_the_answer_and_the_active_time(tmp_path: Path) -> None:
    clock = Clock()
    session = _begin(tmp_path, clock)
    session.start()
    clock.now += 20
    session.answer_edited("005")
    session.flush_pending(force=True)
    session.pause()
    clock.now += 100  # paused: not active
    session.resume()
    clock.now += 10
    session.answer_edited("005x")
    session.suspend()
    drafts = fold_drafts(load(session.path).events)
    assert (drafts.answer, drafts.notes) == ("005x", "")
    assert drafts.active_ms / 1000 == pytest.approx(30, abs=0.01)
    resumed = PlaySession.resume_from(
        session.path, INSTANCE, ORG, clock=clock, wall=wall, fsync=False
    )
    resumed.start()
    clock.now += 5
    assert resumed.active_seconds == pytest.approx(35, abs=0.01)
    assert resumed.answer_restored == "005x"
    resumed.answer_edited("005x")  # the restored box reports it: nothing new is recorded
    resumed.close()
    assert [e.type for e in _events(resumed)].count("answer_edit") == 2
