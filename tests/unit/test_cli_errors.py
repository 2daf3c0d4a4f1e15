"""Mistakes on the command line of the TUI commands are one Error: line, before any TUI."""

from __future__ import annotations

import pytest

from crmtui.cli import main


@pytest.mark.parametrize(
    ("argv", "needle", "code"),
    [
        (["play", "--org", "nope"], "no org named 'nope'", 2),
        (["play", "--idx", "9999"], "no instance with idx 9999", 1),
        (["play", "--task", "XYZ"], "unknown task type 'XYZ'", 2),
        (["play", "--tasks", "missing.json"], "task file not found", 1),
        (["watch", "--model", "openai/x", "--idx", "9999"], "no instance with idx 9999", 1),
    ],
)
def test_tui_commands_fail_fast_with_one_line(
    argv: list[str],
    needle: str,
    code: int,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy-key")  # watch checks for a key first
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == code
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("Error: ") and needle in err[0]
