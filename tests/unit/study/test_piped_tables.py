"""Piped (no terminal), `study status` and `study report` print whole words: a table is as
wide as it needs, never folded at 80 columns ("Annotat/or", "openai/fa/ke-user")."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from crmtui.cli import cli
from crmtui.study import StudyRequest, create_study
from crmtui.study.roles import Conversation
from tests.unit.study.helpers import workspace


def test_piped_status_and_report_keep_every_cell_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRMTUI_STUDIES", str(tmp_path / "studies"))
    monkeypatch.delenv("COLUMNS", raising=False)
    names = ["annotator-number-one", "annotator-number-two", "annotator-number-three"]
    create_study(
        StudyRequest(name="wide", annotators=names, per_type=2, shared=0.0, overlap=1, seed=1,
                     conversation=Conversation(user_model="openai/fake-user-model-name",
                                               agent_model="openai/fake-agent-model-name"),
                     roles=["agent", "user"]),
        workspace=workspace(),
    )  # fmt: skip
    status = CliRunner().invoke(cli, ["study", "status", "wide"])
    assert status.exit_code == 0, status.output
    lines = status.output.splitlines()
    for whole in [*names, "Annotator", "simulated user openai/fake-user-model-name"]:
        assert any(whole in line for line in lines), (whole, status.output)
