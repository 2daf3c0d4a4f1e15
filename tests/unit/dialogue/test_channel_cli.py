"""``play --channel NAME``: a mistake in the options is one clear line, before any screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from crmtui.cli import cli


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--channel", "a/b", "--interactive"], "channel name 'a/b' must be"),
        (["--channel", "pair"], "--channel needs --interactive"),
        (["--channel", "pair", "--as-user", "--agent-model", "openai/x"], "choose one"),
        (["--channel", "pair", "--as-user", "--study", "s", "--annotator", "a"], "--study"),
    ],
)
def test_channel_mistakes_are_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    monkeypatch.setenv("CRMTUI_HOME", str(tmp_path))
    result = CliRunner().invoke(cli, ["play", *args])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
