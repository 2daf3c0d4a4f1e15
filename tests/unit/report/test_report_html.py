"""``crmtui report --format html`` and ``crmtui study report --format html``: the figures'
numbers are the JSON report's, the page is self-contained, the figure files are written."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from crmtui.cli import cli
from crmtui.review.figures import report_figures
from crmtui.review.intervals import paired_difference, wilson
from crmtui.review.report import report_folder
from crmtui.review.report_html import DATA_ID, report_html
from crmtui.study import load_study, report_study
from crmtui.study.report_html import study_report_html
from tests.unit.report.html_scenes import make_folder, make_study


def embedded_data(page: str) -> dict[str, Any]:
    """The inert JSON block of a page."""
    found = re.search(rf'<script type="application/json" id="{DATA_ID}">(.*?)</script>', page, re.S)
    assert found, "no data block"
    return json.loads(found.group(1).replace("<\\/", "</"))


def assert_self_contained(page: str) -> None:
    """No script that runs, no URL a browser would fetch, a CSP that forbids it anyway."""
    assert "default-src 'none'" in page
    scripts = re.findall(r"<script\b[^>]*>", page)
    assert scripts == [f'<script type="application/json" id="{DATA_ID}">']
    assert not re.search(r"\b(src|href)\s*=\s*[\"']?(https?:|//)", page, re.I)
    assert not re.search(r"url\(\s*[\"']?(https?:|//)", page, re.I)
    assert "@import" not in page and "<link" not in page and "<iframe" not in page
    # The only http text left is the SVG and XLink namespace names (never fetched).
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", page))
    assert urls <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}, urls


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory, fixture_root: Path) -> Path:
    return make_folder(tmp_path_factory.mktemp("html-report"), fixture_root)


def test_figures_show_the_json_reports_numbers(folder: Path) -> None:
    out = CliRunner().invoke(cli, ["report", str(folder), "--format", "json"]).output
    data = json.loads(out)
    figures = {f.name: f for f in report_figures(report_folder(folder))}
    assert list(figures) == [
        "accuracy-by-task",
        "paired-difference",
        "time-per-instance",
        "multi-turn",
    ]
    # Accuracy: one bar per actor and task with data, its value and count the JSON's.
    expected = {
        (actor["label"], column): (cell["accuracy"], cell["scored"])
        for actor in data["actors"]
        for column, cell in actor["cells"].items()
        if cell["accuracy"] is not None
    }
    drawn = {(r["actor"], r["group"]): (r["accuracy"], r["n"]) for r in figures[
        "accuracy-by-task"].rows}  # fmt: skip
    assert drawn == expected
    for row in figures["accuracy-by-task"].rows:
        assert row["low"] <= row["accuracy"] <= row["high"]
        assert (row["low"], row["high"]) == wilson(row["accuracy"], row["n"])
    # Paired differences: the agreement counts of the JSON, per person and model.
    pairs = {(a["human"], a["model"]): a for a in data["agreement"]}
    for row in figures["paired-difference"].rows:
        source = pairs.pop((row["human"], row["model"]))
        for kind in ("both right", "only human", "only model", "both wrong"):
            assert row[kind] == source[kind]
        assert row["shared"] == source["shared"]
        share = (source["only human"] - source["only model"]) / source["shared"]
        assert row["difference"] == pytest.approx(share)
        assert (row["difference"], row["low"], row["high"]) == paired_difference(
            *(source[kind] for kind in ("both right", "only human", "only model", "both wrong"))
        )
    assert not pairs
    # Time: every counted session's active seconds.
    times = sorted((s["actor"], s["idx"], s["active_seconds"]) for s in data["sessions"])
    drawn_times = sorted(
        (r["actor"], r["idx"], r["active_seconds"]) for r in figures["time-per-instance"].rows
    )
    assert drawn_times == times
    # Multi-turn: success and turns per (agent, user) pair.
    for row in figures["multi-turn"].rows:
        pair = next(
            p
            for p in data["dialogues"]["pairs"]
            if (p["agent"], p["user"]) == (row["agent"], row["user"])
        )
        key = {
            "Success (share)": "success",
            "User turns (median)": "median_user_turns",
            "Turns to 1st key fact (median)": "median_turns_to_first_key_fact",
        }[row["measure"]]
        assert row["value"] == pytest.approx(pair[key])
    assert {r["pairing"] for r in figures["multi-turn"].rows} == {
        "model/model",
        "human/model",
        "model/human",
    }


def test_the_page_carries_the_json_and_draws_every_figure(folder: Path, tmp_path: Path) -> None:
    page_path = tmp_path / "report.html"
    result = CliRunner().invoke(
        cli,
        ["report", str(folder), "--format", "html", "--out", str(page_path),
         "--figures", str(tmp_path / "figs")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    page = page_path.read_text(encoding="utf-8")
    printed = CliRunner().invoke(cli, ["report", str(folder), "--format", "json"]).output
    as_json = json.loads(printed)
    assert embedded_data(page) == as_json
    assert_self_contained(page)
    names = re.findall(r'<figure data-figure="([^"]+)">\s*<svg', page)
    assert names == ["accuracy-by-task", "paired-difference", "time-per-instance", "multi-turn"]
    # Each inline SVG has its own ids (several clip paths on one page must not collide).
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))
    for name in names:
        svg = (tmp_path / "figs" / f"{name}.svg").read_text(encoding="utf-8")
        assert svg.lstrip().startswith("<svg") and "<path" in svg
        png = (tmp_path / "figs" / f"{name}.png").read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n")


def test_html_options_are_checked(folder: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["report", str(folder), "--figures", str(tmp_path)])
    assert result.exit_code == 2 and "--figures needs --format html" in result.output
    result = CliRunner().invoke(cli, ["report", str(folder), "--out", str(tmp_path / "x")])
    assert result.exit_code == 2 and "--out needs" in result.output


def test_an_empty_folder_still_gives_a_page(tmp_path: Path) -> None:
    page, figures = report_html(report_folder(tmp_path))
    assert figures == [] and "nothing to draw" in page
    assert_self_contained(page)


def test_study_report_html(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRMTUI_STUDIES", str(tmp_path / "studies"))
    study, models = make_study(tmp_path / "studies")
    result = report_study(load_study(study.name), models)
    page, figures = study_report_html(result)
    names = [f.name for f in figures]
    assert names == [
        "accuracy-by-task",
        "paired-difference",
        "time-per-instance",
        "annotator-accuracy",
        "annotator-agreement",
    ]
    assert_self_contained(page)
    cli_json = CliRunner().invoke(
        cli, ["study", "report", study.name, "--models", str(models), "--format", "json"]
    )
    assert cli_json.exit_code == 0, cli_json.output
    data = json.loads(cli_json.output)
    assert embedded_data(page) == data
    by_name = {f.name: f for f in figures}
    for row, source in zip(
        by_name["annotator-accuracy"].rows, data["study"]["annotator_stats"], strict=True
    ):
        assert row["annotator"] == source["annotator"]
        assert row["accuracy"] == pytest.approx(source["accuracy"])
        assert [row["low"], row["high"]] == pytest.approx(source["wilson_95"])
    agreement = data["study"]["agreement"]["correctness"]
    alpha = next(
        r
        for r in by_name["annotator-agreement"].rows
        if r["kind"] == "alpha" and r["rating"] == "correctness"
    )
    assert alpha["value"] == pytest.approx(agreement["krippendorff_alpha"])
    assert alpha["low"] == pytest.approx(agreement["alpha_interval"]["low"])
    pair = next(
        r
        for r in by_name["annotator-agreement"].rows
        if r["kind"] == "pair agreement" and r["rating"] == "correctness"
    )
    source_pair = agreement["pairs"][0]
    assert pair["value"] == pytest.approx(source_pair["agreeing"] / source_pair["n"])
    # Through the CLI, with the figure files.
    out = tmp_path / "study.html"
    result_cli = CliRunner().invoke(
        cli,
        ["study", "report", study.name, "--models", str(models), "--format", "html",
         "--out", str(out), "--figures", str(tmp_path / "figs")],
    )  # fmt: skip
    assert result_cli.exit_code == 0, result_cli.output
    assert out.read_text(encoding="utf-8") == page
    assert sorted(p.name for p in (tmp_path / "figs").iterdir()) == sorted(
        [f"{n}.svg" for n in names] + [f"{n}.png" for n in names]
    )


@given(right=st.integers(0, 200), extra=st.integers(0, 200))
def test_wilson_contains_the_share_and_narrows_with_n(right: int, extra: int) -> None:
    n = right + extra
    if n == 0:
        assert wilson(0.0, 0) is None
        return
    low, high = wilson(right / n, n) or (0, 0)
    assert 0 <= low <= right / n <= high <= 1
    wider = wilson(right / n, max(1, n // 4))
    assert wider is not None and wider[1] - wider[0] >= (high - low) - 1e-12


def test_wilson_and_paired_difference_known_values() -> None:
    low, high = wilson(0.5, 10) or (0, 0)
    assert (low, high) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    low, high = wilson(1.0, 1) or (0, 0)
    assert (low, high) == pytest.approx((0.2065, 1.0), abs=1e-4)
    # 10 shared: 3 both right, 4 only the person, 1 only the model, 2 both wrong: +0.3,
    # inside the two Wilson-based bounds, swapping the actors mirrors the interval.
    difference, low, high = paired_difference(3, 4, 1, 2) or (0, 0, 0)
    assert difference == pytest.approx(0.3)
    assert -1 < low < 0 < difference < high < 1  # one person-only excess in ten: not clear
    mirrored = paired_difference(3, 1, 4, 2) or (0, 0, 0)
    assert mirrored == pytest.approx((-difference, -high, -low))
    # One shared instance keeps a width (a Wald interval would collapse to a point).
    one = paired_difference(0, 1, 0, 0) or (0, 0, 0)
    assert one[0] == 1.0 and one[1] < 0.5 and one[2] == 1.0
    assert paired_difference(0, 0, 0, 0) is None


@given(a=st.integers(0, 40), b=st.integers(0, 40), c=st.integers(0, 40), d=st.integers(0, 40))
def test_paired_difference_stays_in_range(a: int, b: int, c: int, d: int) -> None:
    found = paired_difference(a, b, c, d)
    if a + b + c + d == 0:
        assert found is None
        return
    assert found is not None
    difference, low, high = found
    assert -1 <= low <= difference <= high <= 1
    assert difference == pytest.approx((b - c) / (a + b + c + d))
    # More of the same evidence narrows it.
    _, low4, high4 = paired_difference(4 * a, 4 * b, 4 * c, 4 * d) or (0, 0, 0)
    assert high4 - low4 <= high - low + 1e-9


def test_skill_figure_is_the_json_skill_table(fixture_root: Path) -> None:
    """With CRMArena-Pro sessions, the skill figure draws the JSON's skill cells."""
    from dataclasses import replace

    from crmtui.review.figures import accuracy_by_skill
    from crmtui.review.report import build_report, load_folder
    from crmtui.review.report_format import to_dict

    pro = {
        "handle_time": "sales_amount_understanding",
        "knowledge_qa": "lead_qualification",
        "best_region_identification": "quote_approval",
    }
    loaded, _, _ = load_folder(fixture_root)
    summaries = [
        replace(s, task=pro[s.task], gold=[s.gold] if s.submitted else None) for _, s in loaded
    ]
    report = build_report(summaries)
    figure = accuracy_by_skill(report)
    assert figure is not None and report.skills
    expected = {
        (actor["label"], skill): (cell["accuracy"], cell["scored"])
        for actor in to_dict(report)["actors"]
        for skill, cell in actor["skills"].items()
        if cell["accuracy"] is not None
    }
    assert {(r["actor"], r["group"]): (r["accuracy"], r["n"]) for r in figure.rows} == expected
    assert figure.name in [f.name for f in report_figures(report)]
    from crmtui.review.report_html import figure_svg

    assert "Confidentiality" not in figure_svg(figure)  # only skills with data are drawn
    assert "Policy Compliance" in figure_svg(figure)
