"""Inputs checked at the door of the CLI: bad bytes, bad numbers, and bugs, one line each."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import click
import pytest

from crmtui import cli as cli_module
from crmtui.cli import main
from crmtui.exit_codes import ERROR as EXIT_ERROR
from crmtui.exit_codes import USAGE as EXIT_USAGE


def _fail(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(list(argv))
    return int(info.value.code or 0), capsys.readouterr().err


def test_an_argument_that_is_not_utf8_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    # What Python makes of the Latin-1 byte 0xE9 in argv: a lone surrogate.
    latin1 = b"SELECT Id FROM Case WHERE Subject = 'caf\xe9'".decode("utf-8", "surrogateescape")
    code, err = _fail(capsys, "query", latin1)
    assert code == EXIT_USAGE
    assert err == (
        "Error: argument 2 is not valid UTF-8 text (byte 0xe9 at character 41); "
        "pass text in UTF-8\n"
    )


def test_an_argument_holding_nul_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    # Only a caller in this process can pass one (os.stat raised ValueError: internal error).
    code, err = _fail(capsys, "verify", "a\x00b")
    assert code == EXIT_USAGE and err == "Error: argument 2 holds a NUL character\n"


def test_stdin_that_is_not_utf8_is_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = io.TextIOWrapper(io.BytesIO(b"SELECT Id FROM Case WHERE Subject = 'caf\xe9'"))
    monkeypatch.setattr(sys, "stdin", fake)
    code, err = _fail(capsys, "query", "-")
    assert code == EXIT_USAGE
    assert err == "Error: standard input is not UTF-8 text (byte 0xe9 at offset 40)\n"


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["run", "--model", "m", "--time-limit", "nan"], "'nan' is not a finite number"),
        (["run", "--model", "m", "--timeout", "inf"], "'inf' is not a finite number"),
        (["run", "--model", "m", "--timeout", "-1"], "'-1' must be more than zero seconds"),
        (["run", "--model", "m", "--timeout", "0"], "'0' must be more than zero seconds"),
        (["watch", "--model", "m", "--delay", "-0.5"], "'-0.5' must be zero or more seconds"),
        (["play", "--idle", "NaN"], "'NaN' is not a finite number"),
        (["play", "--idle", "soon"], "'soon' is not a number of seconds"),
        (["study", "create", "s", "--shared", "nan"], "'nan' must be a number from 0 to 1"),
        (["study", "create", "s", "--per-type", "0"], "0 is not in the range x>=1"),
        (["study", "create", "s", "--practice", "-2"], "-2 is not in the range x>=0"),
        (["serve", "--study", "s", "--port", "70000"], "70000 is not in the range 0<=x<=65535"),
        (["serve", "--study", "s", "--max-sessions", "0"], "0 is not in the range x>=1"),
        (["serve-rest", "--port", "-1"], "-1 is not in the range 0<=x<=65535"),
    ],
)
def test_meaningless_numbers_are_usage_errors(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _fail(capsys, *argv)
    assert code == EXIT_USAGE
    assert needle in err and "Traceback" not in err


def test_zero_delay_is_fine() -> None:
    from crmtui.commands.options import NON_NEGATIVE_SECONDS

    assert NON_NEGATIVE_SECONDS.convert("0", None, None) == 0.0
    assert NON_NEGATIVE_SECONDS.convert(1.5, None, None) == 1.5


def test_a_bug_is_one_line_with_a_scrubbed_crash_log(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, crmtui_home: Path
) -> None:
    monkeypatch.setenv("SOME_API_KEY", "s3cret-value-123")

    @click.command("boom")
    def boom() -> None:
        raise RuntimeError("exploded near s3cret-value-123\nsecond line")

    monkeypatch.setitem(cli_module.COMMANDS, "boom", ("crmtui.cli", "boom", "test"))
    monkeypatch.setattr(cli_module, "boom", boom, raising=False)
    monkeypatch.delenv(cli_module.DEBUG_ENV, raising=False)
    code, err = _fail(capsys, "boom")
    assert code == EXIT_ERROR
    assert err.count("\n") == 1
    assert err.startswith("Error: internal error (RuntimeError: exploded near *** second line)")
    logs = list((crmtui_home / "logs").glob("crash-*.txt"))
    assert len(logs) == 1 and str(logs[0]) in err
    text = logs[0].read_text(encoding="utf-8")
    assert "Traceback" in text and "s3cret-value-123" not in text

    monkeypatch.setenv(cli_module.DEBUG_ENV, "1")
    with pytest.raises(RuntimeError):
        main(["boom"])
