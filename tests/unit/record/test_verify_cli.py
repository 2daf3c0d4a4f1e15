"""``crmtui verify``: OK lines, the first bad line, exit status, help."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from crmtui.cli import cli, main
from crmtui.record import Recorder

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
