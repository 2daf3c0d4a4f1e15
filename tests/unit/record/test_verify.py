"""verify/load: tamper detection names the first bad line and what is wrong with it."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from crmtui.errors import CrmtuiError
from crmtui.record import Recorder, RecordingError, load, repair, verify
from crmtui.record.errors import RecordingError as BaseRecordingError

from .conftest import FakeClock, play_sample

Make = Callable[..., Recorder]


@pytest.fixture
def session(make_recorder: Make, clock: FakeClock, tmp_path: Path) -> Path:
    rec = make_recorder(tmp_path / "s.jsonl")
    play_sample(rec, clock)
    return rec.path


def _rewrite(path: Path, edit: Callable[[list[str]], list[str]]) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("".join(line + "\n" for line in edit(lines)), encoding="utf-8")


def test_intact_session_verifies(session: Path) -> None:
    report = verify(session)
    assert report.ok and report.finished and report.events == 15
    assert report.valid_bytes == session.stat().st_size
    assert report.describe() == "OK (15 events, finished)"


def test_hashes_match_an_independent_computation(session: Path) -> None:
    # Re-derive the chain with hashlib + json only, not crmtui's helpers.
    prev = None
    for line in session.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        body = {k: v for k, v in obj.items() if k != "hash"}
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert hashlib.sha256(text.encode()).hexdigest() == obj["hash"]
        if prev is not None:
            assert obj["prev"] == prev
        prev = obj["hash"]


def test_edited_value_is_reported_at_its_line(session: Path) -> None:
    def edit(lines: list[str]) -> list[str]:
        lines[5] = lines[5].replace("500000000000001", "500000000000002", 1)
        return lines

    _rewrite(session, edit)
    report = verify(session)
    assert not report.ok and report.first_bad_line == 6 and report.events == 4
    assert report.problem == "hash mismatch (the line was changed after it was written)"
    assert not report.truncated


def test_edited_header_is_reported_at_line_one(session: Path) -> None:
    _rewrite(session, lambda lines: [lines[0].replace('"aided"', '"default"')] + lines[1:])
    report = verify(session)
    assert report.first_bad_line == 1 and "header hash mismatch" in str(report.problem)


def test_deleted_line_is_reported(session: Path) -> None:
    _rewrite(session, lambda lines: lines[:3] + lines[4:])
    report = verify(session)
    assert report.first_bad_line == 4
    assert report.problem == "seq is 4, expected 3 (a line was deleted, inserted or reordered)"


def test_reordered_lines_are_reported(session: Path) -> None:
    _rewrite(session, lambda lines: lines[:2] + [lines[3], lines[2]] + lines[4:])
    report = verify(session)
    assert report.first_bad_line == 3 and "reordered" in str(report.problem)


def test_relinked_line_with_consistent_seq_still_fails_on_prev(session: Path) -> None:
    # Delete line 3, then renumber line 4 and recompute its hash: only prev can catch it.
    def edit(lines: list[str]) -> list[str]:
        moved = json.loads(lines[3])
        moved["seq"] = 2
        body = {k: v for k, v in moved.items() if k != "hash"}
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        moved["hash"] = hashlib.sha256(text.encode()).hexdigest()
        return lines[:2] + [_canonical(moved)] + lines[4:]

    _rewrite(session, edit)
    report = verify(session)
    assert report.first_bad_line == 3
    assert report.problem is not None and report.problem.startswith(
        "prev does not match the hash of line 2"
    )


def _canonical(obj: dict[str, object]) -> str:
    """A line as the recorder writes it (a careful forger does the same)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def test_a_reformatted_line_is_named_though_its_content_is_unchanged(session: Path) -> None:
    # The content still hashes right, but the recorder never writes that text: rewritten.
    _rewrite(
        session,
        lambda lines: lines[:4] + [json.dumps(json.loads(lines[4]), indent=None)] + lines[5:],
    )
    report = verify(session)
    assert not report.ok and report.first_bad_line == 5
    assert report.problem == (
        "not in the recorder's canonical JSON (the line was rewritten after it was written)"
    )


def test_truncated_final_line_is_reported_distinctly(session: Path) -> None:
    data = session.read_bytes()
    session.write_bytes(data[:-40])
    report = verify(session)
    assert report.truncated and not report.ok
    assert report.first_bad_line == 16 and report.events == 14
    assert report.problem == "truncated final line (partial write)"
    assert report.describe() == (
        "line 16: truncated final line (partial write) (lines 1-15 are intact)"
    )
    assert report.valid_bytes == data.rindex(b"\n", 0, len(data) - 1) + 1
    with pytest.raises(RecordingError, match=r"s.jsonl:16: truncated"):
        load(session)
    assert repair(session) == len(data) - 40 - report.valid_bytes
    repaired = load(session)
    assert len(repaired.events) == 14 and not repaired.finished
    assert repair(session) == 0


def test_repair_leaves_other_damage_alone(session: Path) -> None:
    _rewrite(session, lambda lines: lines[:3] + [lines[3][:50]] + lines[4:])
    before = session.read_bytes()
    with pytest.raises(RecordingError, match="cannot repair: not valid JSON"):
        repair(session)
    assert session.read_bytes() == before


def test_truncation_mid_file_is_not_called_a_partial_write(session: Path) -> None:
    _rewrite(session, lambda lines: lines[:3] + [lines[3][:50]] + lines[4:])
    report = verify(session)
    assert report.first_bad_line == 4 and not report.truncated
    assert str(report.problem).startswith("not valid JSON")


@pytest.mark.parametrize(
    ("content", "line", "problem"),
    [
        (b"", 1, "empty file (no header)"),
        (b"[1, 2]\n", 1, "not a JSON object"),
        (b'{"kind": "header"}\n', 1, "header: 'format' must be 'crmtui-recording'"),
        (b"\xff\xfe\n", 1, "not valid UTF-8"),
    ],
)
def test_malformed_files(tmp_path: Path, content: bytes, line: int, problem: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    report = verify(path)
    assert (report.ok, report.first_bad_line, report.problem) == (False, line, problem)


def test_blank_line_second_header_and_event_after_end(session: Path) -> None:
    original = session.read_text(encoding="utf-8").splitlines()
    _rewrite(session, lambda lines: lines[:2] + [""] + lines[2:])
    assert (verify(session).first_bad_line, verify(session).problem) == (3, "empty line")
    _rewrite(session, lambda lines: original[:2] + [original[0]] + original[2:])
    assert verify(session).problem == "a second header"
    _rewrite(session, lambda lines: original + [original[-1]])
    assert (verify(session).first_bad_line, verify(session).problem) == (
        17,
        "event after the end event",
    )


def test_unknown_event_type_is_reported_even_with_a_valid_hash(session: Path) -> None:
    def edit(lines: list[str]) -> list[str]:
        last = json.loads(lines[-1])
        last["type"] = "teleport"
        body = {k: v for k, v in last.items() if k != "hash"}
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        last["hash"] = hashlib.sha256(text.encode()).hexdigest()
        return lines[:-1] + [_canonical(last)]

    _rewrite(session, edit)
    assert verify(session).problem == "unknown event type 'teleport'"


def test_load_returns_header_and_events(session: Path) -> None:
    recording = load(session)
    assert recording.actor == {"kind": "human", "id": "alice"}
    assert recording.instance["idx"] == 42
    assert recording.finished and recording.end is not None
    assert recording.submit is not None and recording.submit.payload["reward"] == 1.0
    assert [e.type for e in recording.of_type("pause", "resume")] == ["pause", "resume"]


def test_unreadable_file_is_a_crmtui_error(tmp_path: Path) -> None:
    with pytest.raises(BaseRecordingError) as info:
        verify(tmp_path / "nope.jsonl")
    assert isinstance(info.value, CrmtuiError)
    assert "cannot read recording" in str(info.value)
