"""``crmtui verify``: OK lines, the first bad line, exit status, help."""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from crmtui.cli import cli, main
from crmtui.record import Recorder
from tests.waiting import PATIENCE_S, promptly

from .conftest import FakeClock, play_sample

Make = Callable[..., Recorder]


@pytest.fixture
def good(make_recorder: Make, clock: FakeClock, tmp_path: Path) -> Path:
    rec = make_recorder(tmp_path / "recs" / "good.jsonl")
    play_sample(rec, clock)
    return rec.path


@pytest.fixture
def bad(make_recorder: Make, tmp_path: Path) -> Path:
    rec = make_recorder(tmp_path / "recs" / "bad.jsonl", session_id="f" * 32)
    rec.emit("thought", {"text": "one"})
    rec.emit("thought", {"text": "two"})
    rec.suspend()
    text = rec.path.read_text().replace('"two"', '"TWO"')
    rec.path.write_text(text)
    return rec.path


def test_good_file_prints_ok(good: Path) -> None:
    result = CliRunner().invoke(cli, ["verify", str(good)])
    assert result.exit_code == 0, result.output
    assert result.output == f"{good}: OK (15 events, finished)\n"


def test_bad_file_prints_first_bad_line_and_exits_1(good: Path, bad: Path) -> None:
    result = CliRunner().invoke(cli, ["verify", str(good), str(bad)])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[1] == (
        f"{bad}: BAD line 3: hash mismatch (the line was changed after it was written)"
    )
    assert lines[-1] == "1 OK, 1 bad"


def test_folder_and_quiet(good: Path, bad: Path) -> None:
    result = CliRunner().invoke(cli, ["verify", "-q", str(good.parent)])
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"{bad}: BAD line 3: hash mismatch (the line was changed after it was written)"
    ]


def test_truncated_file_is_named_as_such(good: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good.write_bytes(good.read_bytes()[:-10])
    # The console script calls sys.exit(main(...)): the returned status is the exit code.
    assert main(["verify", str(good)]) == 1
    assert "BAD line 16: truncated final line (partial write)" in capsys.readouterr().out


def test_missing_file_and_empty_folder_are_usage_errors(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["verify", str(tmp_path / "nope.jsonl")])
    assert result.exit_code == 2 and "does not exist" in result.output
    result = CliRunner().invoke(cli, ["verify", str(tmp_path)])
    assert result.exit_code == 2 and "no .jsonl recordings" in result.output


def test_help_text() -> None:
    result = CliRunner().invoke(cli, ["verify", "--help"])
    assert result.exit_code == 0
    assert "hash" in result.output and "Exits with status 1" in result.output


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_devices_and_fifos_are_bad_at_once(
    good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer forever
    started = time.monotonic()
    assert main(["verify", "/dev/zero", str(fifo), str(good)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "/dev/zero: BAD not a regular file (a device, FIFO or socket)"
    assert out[1] == f"{fifo}: BAD not a regular file (a device, FIFO or socket)"
    assert out[2].endswith("OK (15 events, finished)") and out[3] == "1 OK, 2 bad"
    assert time.monotonic() - started < promptly(5.0, instead=PATIENCE_S)  # never a FIFO's wait


def test_an_endless_line_is_not_read_into_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # crmtui.record.verify the module (the package attribute is the function).
    monkeypatch.setattr(importlib.import_module("crmtui.record.verify"), "MAX_LINE_BYTES", 1000)
    path = tmp_path / "long.jsonl"
    path.write_bytes(b"x" * 5000)
    assert main(["verify", str(path)]) == 1
    assert "BAD line 1: line longer than 1,000 bytes" in capsys.readouterr().out


def test_repair_cuts_only_a_partial_final_line(
    good: Path, bad: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good.write_bytes(good.read_bytes()[:-10])
    before = bad.read_bytes()
    assert main(["verify", "--repair", str(good), str(bad)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{good}: repaired (cut ")
    assert out[1].startswith(f"{good}: UNFINISHED after line 15 (14 events; no end event)")
    assert out[2].startswith(f"{bad}: BAD line 3: hash mismatch")
    assert bad.read_bytes() == before
