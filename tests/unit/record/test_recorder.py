"""The recorder: header, events, chain, default paths, resume and unfinished sessions."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from crmtui.record import (
    PayloadError,
    Recorder,
    RecordingError,
    RecordingInUse,
    close_unfinished,
    find_unfinished,
    load,
    resume,
    verify,
)
from crmtui.record.format import object_hash

from .conftest import HEADER, FakeClock, play_sample

GOLDEN = Path(__file__).parent / "golden" / "session.jsonl"

Make = Callable[..., Recorder]


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_header_is_first_line_and_hides_the_gold_answer(make_recorder: Make) -> None:
    rec = make_recorder()
    rec.close()
    header = _lines(rec.path)[0]
    assert header["kind"] == "header"
    assert header["format"] == "crmtui-recording"
    assert header["format_version"] == 1
    assert header["instance"] == {
        "idx": 42,
        "task": "handle_time",
        "query": "Which agent had the shortest handle time?",
        "reward_metric": "exact_match",
    }
    assert "005Wt000003NDqDIAW" not in rec.path.read_text()
    assert header["started_at"] == "2026-01-02T03:04:05.000Z"
    assert header["today"] == "2024-05-26"
    assert header["mode"] == "aided"
    assert header["hash"] == object_hash(header)


def test_default_location_uses_actor_slug_time_idx_and_session(
    tmp_path: Path, crmtui_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # not where it goes: under CRMTUI_HOME, from any folder
    rec = Recorder.create(
        actor={"kind": "model", "id": "openai/gpt-4o mini", "strategy": "react"},
        instance=HEADER["instance"],
        org=HEADER["org"],
        tasks_source="x",
        session_id="abcdef0123456789",
        wall=FakeClock().wall,
    )
    rec.close()
    name = "openai-gpt-4o-mini/20260102-030405-idx42-abcdef01.jsonl"
    assert rec.path == crmtui_home / "recordings" / name
    assert rec.path.is_file() and not (tmp_path / "recordings").exists()


def test_events_are_chained_and_numbered(make_recorder: Make, clock: FakeClock) -> None:
    rec = make_recorder()
    clock.advance(1.2345)
    first = rec.emit("thought", {"text": "look at cases"})
    clock.advance(0.5)
    second = rec.emit("thought", {"text": "done"}, actor="bob")
    assert (first.seq, first.ms, first.t) == (1, 1234, "2026-01-02T03:04:06.234Z")
    assert first.prev == rec.header["hash"]
    assert second.prev == first.hash
    assert second.actor == "bob" and first.actor == "alice"
    assert rec.seq == 2 and rec.last_hash == second.hash
    on_disk = _lines(rec.path)[2]
    assert on_disk == second.to_dict()


def test_emit_copies_the_payload(make_recorder: Make) -> None:
    payload = {"object": "Case", "field": "Status", "op": "in", "value": ["New"], "query": "q"}
    rec = make_recorder()
    event = rec.emit("filter", payload)
    payload["value"].append("Closed")
    assert event.payload["value"] == ["New"]


def test_ms_never_goes_backwards_even_if_the_clock_does(
    make_recorder: Make, clock: FakeClock
) -> None:
    rec = make_recorder()
    clock.advance(2)
    rec.emit("pause")
    clock.mono -= 1  # a misbehaving injected clock
    event = rec.emit("resume")
    assert event.ms == 2000


@pytest.mark.parametrize(
    ("kind", "payload", "message"),
    [
        ("teleport", {}, "unknown event type 'teleport'"),
        ("open_object", {"object": "Case"}, "missing payload field 'query'"),
        (
            "open_object",
            {"object": "Case", "query": "q", "extra": 1},
            "unknown payload field 'extra'",
        ),
        (
            "sort",
            {"object": "C", "field": "f", "descending": "yes", "query": "q"},
            "'descending' must be bool",
        ),
        (
            "run_query",
            {"text": "q", "kind": "sql", "rows": 1, "ms": 1, "error_code": None, "error": None},
            "'kind' must be 'soql', 'sosl' or 'tool'",
        ),
        (
            "run_query",
            {"text": "q", "kind": "soql", "rows": True, "ms": 1, "error_code": None, "error": None},
            "'rows' must be int",
        ),
        ("idle", {"seconds": -1}, "'seconds' must be a non-negative number"),
        ("idle", {"seconds": float("nan")}, "'seconds' must be a non-negative number"),
        (
            "submit",
            {"answer": "a", "reward": 1, "scoring": "strict", "gold": [1]},
            "'gold' must be a string",
        ),
    ],
)
def test_bad_payloads_are_refused_and_nothing_is_written(
    make_recorder: Make, kind: str, payload: dict, message: str
) -> None:
    rec = make_recorder()
    size = rec.path.stat().st_size
    with pytest.raises(PayloadError, match=message):
        rec.emit(kind, payload)
    assert rec.path.stat().st_size == size and rec.seq == 0


def test_bad_header_fields_are_refused(make_recorder: Make) -> None:
    with pytest.raises(PayloadError, match="actor 'kind'"):
        make_recorder(actor={"kind": "robot", "id": "x"})
    with pytest.raises(PayloadError, match="strategy"):
        make_recorder(actor={"kind": "model", "id": "gpt-4o"})
    with pytest.raises(PayloadError, match="'mode'"):
        make_recorder(mode="helpful")
    with pytest.raises(PayloadError, match="'today'"):
        make_recorder(today="26/05/2024")


def test_refuses_to_overwrite_and_to_write_after_close(make_recorder: Make, tmp_path: Path) -> None:
    target = tmp_path / "one.jsonl"
    rec = make_recorder(target)
    rec.close()
    with pytest.raises(RecordingError, match="already exists"):
        make_recorder(target)
    with pytest.raises(RecordingError, match="closed"):
        rec.emit("pause")


def test_context_manager_closes_with_reason(make_recorder: Make) -> None:
    with pytest.raises(ZeroDivisionError), make_recorder() as rec:
        rec.emit("thought", {"text": "hmm"})
        1 / 0  # noqa: B018
    end = load(rec.path).end
    assert end is not None and end.payload == {"reason": "error"}


def test_golden_file_with_frozen_clocks(
    make_recorder: Make, clock: FakeClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Regenerate after an intended format change: CRMTUI_REGEN_GOLDEN=1 pytest -k golden
    monkeypatch.setattr("crmtui.record.format.__version__", "0.1.0")
    rec = make_recorder(tmp_path / "session.jsonl")
    play_sample(rec, clock)
    produced = rec.path.read_bytes()
    if os.environ.get("CRMTUI_REGEN_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_bytes(produced)
    assert produced == GOLDEN.read_bytes()
    assert verify(GOLDEN).ok


def test_suspend_then_resume_continues_the_chain(make_recorder: Make, clock: FakeClock) -> None:
    rec = make_recorder()
    clock.advance(3)
    rec.emit("thought", {"text": "before"})
    last = rec.last_hash
    rec.suspend()
    assert find_unfinished(rec.path.parents[1]) == [rec.path]

    clock.advance(3600)  # the process was gone for an hour
    again = resume(rec.path, wall=clock.wall, monotonic=clock.monotonic)
    resumed = load(rec.path).events[-1]
    assert resumed.type == "resume" and resumed.prev == last and resumed.seq == 2
    assert resumed.payload == {"reopened": True, "gap_ms": 3_600_000}
    assert resumed.ms == 3000  # time away is not counted in ms
    clock.advance(1)
    assert again.emit("thought", {"text": "after"}).ms == 4000
    again.close("submitted")
    report = verify(rec.path)
    assert report.ok and report.finished and report.events == 4
    assert find_unfinished(rec.path.parents[1]) == []


def test_resume_cuts_a_partial_last_line(make_recorder: Make, clock: FakeClock) -> None:
    rec = make_recorder()
    rec.emit("thought", {"text": "kept"})
    rec.suspend()
    with rec.path.open("ab") as handle:
        handle.write(b'{"actor":"alice","hash":"12')
    assert verify(rec.path).truncated
    again = Recorder.resume(rec.path, wall=clock.wall, monotonic=clock.monotonic)
    again.close()
    recording = load(rec.path)
    assert [e.type for e in recording.events] == ["thought", "resume", "end"]
    assert recording.events[1].payload["discarded_bytes"] == 27


def test_resume_refuses_finished_corrupt_and_busy_sessions(
    make_recorder: Make, tmp_path: Path
) -> None:
    done = make_recorder(tmp_path / "done.jsonl")
    done.close()
    with pytest.raises(RecordingError, match="already ended"):
        Recorder.resume(done.path)

    busy = make_recorder(tmp_path / "busy.jsonl")
    with pytest.raises(RecordingInUse):
        Recorder.resume(busy.path)
    busy.emit("thought", {"text": "still mine"})  # the live recorder is unaffected
    busy.suspend()

    lines = busy.path.read_text().splitlines()
    lines[1] = lines[1].replace("still mine", "stolen")
    busy.path.write_text("\n".join(lines) + "\n")
    with pytest.raises(
        RecordingError, match=r"busy.jsonl:2: cannot resume a corrupt recording: hash"
    ):
        Recorder.resume(busy.path)


def test_find_unfinished_filters_by_actor_and_ignores_other_files(
    make_recorder: Make, tmp_path: Path
) -> None:
    root = tmp_path / "rec"
    alice = make_recorder(root / "a.jsonl")
    alice.suspend()
    bob = make_recorder(root / "b.jsonl", actor={"kind": "human", "id": "bob"}, session_id="b" * 32)
    bob.suspend()
    finished = make_recorder(root / "c.jsonl", session_id="c" * 32)
    finished.close()
    (root / "notes.jsonl").write_text('{"hello": 1}\n')
    (root / "empty.jsonl").write_text("")
    assert find_unfinished(root) == [alice.path, bob.path]
    assert find_unfinished(root, actor_id="bob") == [bob.path]
    assert find_unfinished(tmp_path / "missing") == []


def test_find_unfinished_reads_long_last_lines(make_recorder: Make, tmp_path: Path) -> None:
    rec = make_recorder(tmp_path / "long.jsonl")
    rec.emit("thought", {"text": "x" * 200_000})
    rec.close()
    assert find_unfinished(tmp_path) == []


def test_close_unfinished_appends_end_without_resume(make_recorder: Make) -> None:
    rec = make_recorder()
    rec.emit("thought", {"text": "x"})
    rec.suspend()
    end = close_unfinished(rec.path)
    recording = load(rec.path)
    assert [e.type for e in recording.events] == ["thought", "end"]
    assert end.payload == {"reason": "abandoned"} and recording.finished


def test_instance_and_org_may_be_objects(make_recorder: Make, tmp_path: Path) -> None:
    class Inst:
        idx, task, query, reward_metric, answer = 5, "top_issue", "q", "exact_match", "a1M1"

    class OrgLike:
        path, digest, name = tmp_path / "o.db", "e" * 64, "o"

    rec = make_recorder(tmp_path / "obj.jsonl", instance=Inst(), org=OrgLike())
    rec.close()
    header = load(rec.path).header
    assert header["instance"] == {
        "idx": 5,
        "task": "top_issue",
        "query": "q",
        "reward_metric": "exact_match",
    }
    assert header["org"] == {"path": str(tmp_path / "o.db"), "digest": "e" * 64, "name": "o"}


def test_partial_last_line_counts_as_unfinished_unless_the_session_ended(
    make_recorder: Make, tmp_path: Path
) -> None:
    crashed = make_recorder(tmp_path / "crashed.jsonl")
    crashed.emit("thought", {"text": "x"})
    crashed.suspend()
    ended = make_recorder(tmp_path / "ended.jsonl", session_id="e" * 32)
    ended.close()
    for rec in (crashed, ended):
        with rec.path.open("ab") as handle:
            handle.write(b'{"actor"')
    assert find_unfinished(tmp_path) == [crashed.path]
    with pytest.raises(RecordingError, match="already ended"):
        Recorder.resume(ended.path)
