"""PlaySession: timing, debounced answers, scoring and the recording it writes."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from crmtui.play.session import PlaySession, SessionError
from crmtui.record.verify import load, verify
from tests.unit.play.sessions import ORG, Clock, begin, instance, wall

INSTANCE = instance(
    7, "best_region_identification", "Which state closes cases fastest?", "OR", optional="x"
)


def _session(tmp_path: Path, clock: Clock) -> PlaySession:
    return begin(tmp_path, clock, INSTANCE)


def test_full_session_is_recorded_and_verifies(tmp_path: Path) -> None:
    clock = Clock()
    session = _session(tmp_path, clock)
    assert session.today == dt.date(2024, 3, 1)
    session.start()
    session.record_browse("open_object", {"object": "Case", "query": "SELECT Id FROM Case"})
    session.record_query("SELECT Id FROM Account", "soql", 3, 1.5, None, None)
    for text in ["O", "OR", "ORR", "OR"]:
        clock.now += 0.1
        session.answer_edited(text)
    clock.now += 5
    session.flush_pending()
    score = session.submit(" 'OR' ")
    assert score.reward == 1.0 and score.method == "strict"
    with pytest.raises(SessionError):
        session.submit("OR")
    session.close("finished")
    session.close("again")  # idempotent

    assert verify(session.path).ok
    rec = load(session.path)
    assert rec.header["instance"] == {
        "idx": 7,
        "task": "best_region_identification",
        "query": "Which state closes cases fastest?",
        "reward_metric": "exact_match",
    }
    types = [e.type for e in rec.events]
    assert types == ["open_object", "run_query", "answer_edit", "submit", "end"]
    assert rec.events[2].payload == {"text": "OR"}
    assert rec.events[3].payload["gold"] == "OR"
    assert rec.events[-1].payload["reward"] == 1.0


def test_pause_and_idle_are_recorded(tmp_path: Path) -> None:
    clock = Clock()
    session = _session(tmp_path, clock)
    session.start()
    clock.now += 5
    assert session.pause() is True
    assert session.pause() is False
    clock.now += 100
    session.resume()
    clock.now += 70
    session.note_input()
    session.close("quit")
    events = load(session.path).events
    assert [e.type for e in events] == ["pause", "resume", "idle", "end"]
    assert events[2].payload == {"seconds": pytest.approx(70), "idle_after": 60.0}
    # The first 60 s of the 70 s gap count (the default --idle); only 10 s are idle.
    assert session.active_seconds == pytest.approx(5 + 60)


def test_closed_session_refuses_actions(tmp_path: Path) -> None:
    session = _session(tmp_path, Clock())
    session.close("abandoned")
    with pytest.raises(SessionError):
        session.record_browse("back", {"query": None})


def test_resume_continues_the_chain(tmp_path: Path) -> None:
    clock = Clock()
    session = _session(tmp_path, clock)
    session.start()
    session.record_browse("open_object", {"object": "Case", "query": "SELECT Id FROM Case"})
    session.recorder.suspend()
    resumed = PlaySession.resume_from(
        session.path, INSTANCE, ORG, clock=clock, wall=wall, fsync=False
    )
    assert (session.actor_label, resumed.actor_label) == ("human: ann", "human: ann (resumed)")
    resumed.start()
    resumed.submit("CA")
    resumed.close("finished")
    rec = load(session.path)
    assert verify(session.path).ok
    assert [e.type for e in rec.events] == ["open_object", "resume", "submit", "end"]
    assert rec.events[2].payload["reward"] == 0.0


def test_the_clock_stops_at_submit(tmp_path: Path) -> None:
    clock = Clock()
    session = _session(tmp_path, clock)
    session.start()
    clock.now += 12
    session.submit("OR")
    clock.now += 500  # reading the result, then F9 much later
    session.note_input()
    assert session.active_seconds == pytest.approx(12)
    assert session.pause() is False  # nothing left to pause
    session.close("next")
    assert [e.type for e in load(session.path).events] == ["submit", "end"]


def test_editor_edits_and_focus_changes_are_recorded(tmp_path: Path) -> None:
    clock = Clock()
    session = _session(tmp_path, clock)
    session.start()
    for text in ["S", "SE", "SELECT Id FROM Case"]:
        clock.now += 0.1
        session.editor_edited(text)
    session.record_focus(False)
    clock.now += 30
    session.record_focus(True)
    session.close("quit")
    events = load(session.path).events
    assert [e.type for e in events] == ["app_blur", "app_focus", "editor_edit", "end"]
    assert events[2].payload == {"text": "SELECT Id FROM Case"}


def test_resume_restores_drafts_history_and_active_time(tmp_path: Path) -> None:
    clock = Clock()
    session = _session(tmp_path, clock)
    session.start()
    session.record_query("SELECT Id FROM Case", "soql", 3, 1.0, None, None)
    session.record_query("SELECT Nope FROM Case", "soql", 0, 1.0, "INVALID_FIELD", "no")
    session.record_query("SELECT Id FROM Case", "soql", 3, 1.0, None, None)
    session.editor_edited("SELECT Name FROM Acc")
    session.answer_edited("Ore")
    clock.now += 20
    session.flush_pending(force=True)
    session.recorder.suspend()  # the process dies here

    resumed = PlaySession.resume_from(
        session.path, INSTANCE, ORG, clock=clock, wall=wall, fsync=False
    )
    drafts = resumed.drafts
    assert (drafts.answer, drafts.editor) == ("Ore", "SELECT Name FROM Acc")
    assert drafts.queries == ("SELECT Nope FROM Case", "SELECT Id FROM Case")
    resumed.start()
    clock.now += 5
    assert resumed.active_seconds == pytest.approx(25)
    # Putting the restored texts back on screen records nothing new.
    resumed.answer_edited("Ore")
    resumed.editor_edited("SELECT Name FROM Acc")
    resumed.flush_pending(force=True)
    resumed.close("quit")
    types = [e.type for e in load(session.path).events]
    assert types[-2:] == ["resume", "end"]


@pytest.mark.parametrize(
    ("reason", "label"),
    [("quit", "quit"), ("abandoned", "abandoned"), ("time_limit", "time's up")],
)
def test_the_picker_names_how_an_unsubmitted_session_ended(
    tmp_path: Path, reason: str, label: str
) -> None:
    from crmtui.play.progress import actor_progress

    session = _session(tmp_path, Clock())
    session.close(reason)
    assert session.end_reason == reason
    status = actor_progress(tmp_path, "ann")[INSTANCE.idx]
    assert status.finished and status.reason == reason and status.label == label


def test_a_session_recorded_live_elsewhere_is_not_offered_for_resume(tmp_path: Path) -> None:
    """The resume prompt skips a session another process is recording (it holds the lock):
    both of its answers would be refused, and the asked-for instance was dropped."""
    from crmtui.record.sessions import find_unfinished

    session = _session(tmp_path, Clock())
    session.start()
    assert find_unfinished(tmp_path, "ann") == []  # live: its recorder holds the lock
    session.suspend()  # the process went away without ending it
    assert find_unfinished(tmp_path, "ann") == [session.path]
