"""Replay folds scratch steps: notes, the last computation, copy and viewer open per frame."""

from __future__ import annotations

from pathlib import Path

from crmtui.record import load
from crmtui.review.replay import is_scratch, next_index, replay, summarize
from tests.unit.report import builders as b
from tests.unit.report.test_scratch_steps import SCRATCH


def test_frames_carry_notes_computation_copy_and_view(tmp_path: Path) -> None:
    rec = load(
        b.write_session(tmp_path, b.HUMAN_A, b.BRI, SCRATCH, start=b.DAY1, session_id="4" * 32)
    )
    frames = replay(rec).frames
    view, compute, failed, copy, note, submit, end = frames
    assert view.viewed is not None and view.viewed.startswith("Case.Description")
    assert view.computed is None and view.notes == "" and view.scratch == 1
    assert compute.computed is not None
    assert compute.computed.rows == [["NJ", 2, 3.5]] and compute.computed.error is None
    assert failed.computed is not None and failed.computed.error == "no column 'Nope'"
    assert copy.copied == "Account.ShippingState = 'NJ'"
    assert note.notes == "= (1 + 2) / 2\nnj fastest" and note.scratch == 5
    assert end.notes == note.notes and end.copied == copy.copied and end.scratch == 5
    assert submit.submission is not None and submit.submission.answer == "NJ"


def test_event_list_and_timeline_jumps_know_scratch_steps(tmp_path: Path) -> None:
    rec = load(
        b.write_session(tmp_path, b.HUMAN_A, b.BRI, SCRATCH, start=b.DAY1, session_id="5" * 32)
    )
    summaries = [summarize(event) for event in rec.events]
    assert summaries[1] == (
        "avg(ClosedDate - CreatedDate (hours)) by Account.ShippingState → 1 groups"
    )
    assert summaries[4] == "2 line(s): '= (1 + 2) / 2 nj fastest'"
    assert next_index(rec.events, 3, is_scratch) == 4
    assert next_index(rec.events, 4, is_scratch) is None
