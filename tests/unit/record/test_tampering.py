"""verify names every tampering of the probe; none verifies OK or counts as a finished session.

Deleting the last line, keeping only the header, CRLF line endings and trailing spaces used
to verify OK (the last two even counted in reports as finished sessions). A line is intact
only in the form the recorder writes; a recording without an end event is UNFINISHED (exit 1)
unless a running session holds it, since a cut-off finished session and an interrupted one
look alike.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from crmtui.cli import main
from crmtui.record import Recorder
from crmtui.record.verify import verify
from crmtui.review.report import report_folder

EXAMPLES = sorted((Path(__file__).resolve().parents[3] / "recordings").rglob("*.jsonl"))


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")[:-1]


def _join(lines: list[bytes], end: bytes = b"\n") -> bytes:
    return b"".join(line + end for line in lines)


def _crlf_one(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    k = rng.randrange(len(lines))
    return _join([line + b"\r" if i == k else line for i, line in enumerate(lines)])


def _space_one(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    k = rng.randrange(len(lines))
    return _join([line + b" " if i == k else line for i, line in enumerate(lines)])


TAMPERINGS: dict[str, Callable[[bytes, random.Random], bytes]] = {
    "delete the last line": lambda d, r: _join(_lines(d)[:-1]),
    "keep only the header": lambda d, r: _join(_lines(d)[:1]),
    "CRLF line endings": lambda d, r: _join(_lines(d), b"\r\n"),
    "CRLF on one line": _crlf_one,
    "trailing spaces": lambda d, r: _join([line + b"  " for line in _lines(d)]),
    "a trailing space on one line": _space_one,
    "a blank line at the end": lambda d, r: d + b"\n",
}


@pytest.mark.parametrize("tampering", sorted(TAMPERINGS))
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_no_tampering_verifies_ok_or_counts_as_finished(
    example: Path,
    tampering: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert verify(example).ok and verify(example).finished  # the untouched original
    folder = tmp_path / "recs"
    folder.mkdir()
    path = folder / example.name
    path.write_bytes(TAMPERINGS[tampering](example.read_bytes(), random.Random(example.name)))

    report = verify(path)
    assert not (report.ok and report.finished), report.describe()
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert ": BAD line " in out or ": UNFINISHED after line " in out, out
    assert "OK (" not in out
    counted = report_folder(folder).sessions
    data = example.read_bytes()
    human = b'"kind":"human"' in _lines(data)[0] and b'"type":"submit"' in data
    if tampering == "delete the last line" and human:
        # Without its end event, a person's recording reads as a crash just after the submit:
        # the answer they submitted still counts (the report's first-submission rule), and
        # verify still says UNFINISHED. Nothing else survives a tampering.
        assert [s.path for s in counted] == [path]
    else:
        assert counted == []  # never counted


def test_each_tampering_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    example = next(p for p in EXAMPLES if "annotator" in str(p))
    data = example.read_bytes()
    named = {}
    for tampering in ("delete the last line", "keep only the header", "CRLF line endings",
                      "trailing spaces"):  # fmt: skip
        path = tmp_path / f"{len(named)}.jsonl"
        path.write_bytes(TAMPERINGS[tampering](data, random.Random(0)))
        main(["verify", str(path)])
        named[tampering] = capsys.readouterr().out.split(": ", 1)[1].strip()
    events = len(_lines(data)) - 1
    assert named["delete the last line"].startswith(
        f"UNFINISHED after line {events} ({events - 1} events; no end event)"
    )
    assert named["keep only the header"].startswith(
        "UNFINISHED after line 1 (the header alone, no events; no end event)"
    )
    assert named["CRLF line endings"] == (
        "BAD line 1: header: CRLF line ending (the file was rewritten after it was written)"
    )
    assert named["trailing spaces"] == (
        "BAD line 1: header: trailing whitespace (the line was changed after it was written)"
    )


def test_a_session_being_recorded_is_ok_in_progress(
    make_recorder: Callable[..., Recorder], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = make_recorder(tmp_path / "live.jsonl")
    rec.emit("thought", {"text": "still here"})
    assert main(["verify", str(rec.path)]) is None
    assert capsys.readouterr().out.endswith("OK (1 events, in progress: a live session holds it)\n")
    rec.suspend()  # let go without an end: interrupted
    assert main(["verify", str(rec.path)]) == 1
    assert "UNFINISHED after line 2 (1 events; no end event)" in capsys.readouterr().out
