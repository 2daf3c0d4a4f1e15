"""The example recordings shipped in recordings/ verify, replay on a rebuilt sample, and report."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from crmtui.record.verify import load, verify
from crmtui.review.replay_org import open_recorded_org
from crmtui.review.report import report_folder

EXAMPLES = Path(__file__).resolve().parents[2] / "recordings"
#: The shipped examples' folders only: anything else there (sessions recorded here with
#: --recordings recordings, or by an older crmtui that wrote into ./recordings) is no example.
EXAMPLE_ACTORS = ("example-annotator", "openai-scripted-model")
FILES = sorted(p for actor in EXAMPLE_ACTORS for p in (EXAMPLES / actor).glob("*.jsonl"))


@pytest.mark.skipif(not FILES, reason="no example recordings in this checkout")
def test_examples_verify_and_replay_against_the_rebuilt_sample() -> None:
    assert len(FILES) >= 4
    kinds = set()
    for path in FILES:
        report = verify(path)
        assert report.ok and report.finished, report.describe()
        recording = load(path)
        kinds.add(recording.header["actor"]["kind"])
        # A fresh CRMTUI_HOME: the sample is rebuilt and must be the very org recorded.
        org, check = open_recorded_org(recording)
        assert org is not None and check.ok, check.message
    assert kinds == {"human", "model"}


@pytest.mark.skipif(not FILES, reason="no example recordings in this checkout")
def test_examples_report_has_a_human_and_two_model_strategies(tmp_path: Path) -> None:
    for actor in EXAMPLE_ACTORS:
        shutil.copytree(EXAMPLES / actor, tmp_path / actor)
    report = report_folder(tmp_path)
    labels = sorted((row.kind, row.strategy or "") for row in report.rows)
    assert labels == [("human", ""), ("model", "react"), ("model", "tool_call")]
    assert not report.skipped
