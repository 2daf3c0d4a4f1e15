"""The HTML reports in real headless Chromium: every figure drawn, no request outside the file.

Two pages: a study report with a model run beside it, and a folder report with people,
models and dialogues. Skipped (with the reason) when Playwright or Debian's chromium is
missing; ``.ci/run`` installs both.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from crmtui.cli import cli
from tests.serve.browser import browser_missing
from tests.serve.report_page import open_report
from tests.unit.report.builders import make_fixture_folder
from tests.unit.report.html_scenes import make_folder, make_study

pytestmark = pytest.mark.skipif(bool(browser_missing()), reason=browser_missing() or "")


def _assert_drawn(path: Path, expected: list[str], screenshot: Path) -> None:
    check = open_report(path, screenshot)
    assert check.requests == [path.resolve().as_uri()], check.requests
    assert check.errors == []
    assert [f["name"] for f in check.figures] == expected
    for figure in check.figures:
        assert figure["width"] > 200 and figure["height"] > 60, figure
        assert figure["marks"] >= 2 and figure["texts"] >= 3, figure
    assert screenshot.stat().st_size > 10_000


def test_study_report_with_a_model_in_chromium(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRMTUI_STUDIES", str(tmp_path / "studies"))
    study, models = make_study(tmp_path / "studies")
    page = tmp_path / "study.html"
    result = CliRunner().invoke(
        cli,
        ["study", "report", study.name, "--models", str(models), "--format", "html",
         "--out", str(page)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    expected = [
        "accuracy-by-task",
        "paired-difference",
        "time-per-instance",
        "annotator-accuracy",
        "annotator-agreement",
    ]
    _assert_drawn(page, expected, tmp_path / "study.png")


def test_folder_report_with_dialogues_in_chromium(tmp_path: Path) -> None:
    fixture = make_fixture_folder(tmp_path / "fixture")["tampered"].parent.parent
    folder = make_folder(tmp_path / "recordings", fixture)
    page = tmp_path / "report.html"
    result = CliRunner().invoke(
        cli, ["report", str(folder), "--format", "html", "--out", str(page)]
    )
    assert result.exit_code == 0, result.output
    expected = ["accuracy-by-task", "paired-difference", "time-per-instance", "multi-turn"]
    _assert_drawn(page, expected, tmp_path / "report.png")
