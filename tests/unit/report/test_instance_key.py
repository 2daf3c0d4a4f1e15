"""Compare, report and replay tell instances apart by org and task source, never by idx alone.

One recordings folder holds every org a person played; each org numbers its instances from 0.
``crmtui compare --idx 11`` put a b2b monthly-trend recording beside a CRMArena sample
recording (one query, one gold, "Evidence 0/6"); the report counted alice's answer to one as
her (later, not counted) answer to the other, and paired a person and a model on different
questions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crmtui.record.verify import load
from crmtui.review.compare import CompareError, compare, recordings_for_idx
from crmtui.review.instance_key import instance_key, instance_place
from crmtui.review.recheck import TaskLookup
from crmtui.review.report import BOTH_RIGHT, ONLY_HUMAN, load_folder, report_folder
from tests.unit.report import builders as b
from tests.unit.report.test_cli import run

B2B = {"path": "/orgs/sample-b2b.db", "digest": "e" * 64, "name": "sample-b2b"}
TREND = {
    "idx": 650,
    "task": "monthly_trend_analysis",
    "query": "Which month had the most cases for the trail shoes?",
    "reward_metric": "exact_match",
}


def _folder(root: Path) -> dict[str, Path]:
    """alice and gpt-4o on idx 650 of two orgs: handle time on sample, a trend on b2b."""
    made = {}
    for n, (actor, instance, script, org) in enumerate(
        [
            (b.HUMAN_A, b.HTU, b.ALICE_HTU, None),
            (b.MODEL_A, b.HTU, b.GPT_HTU, None),
            (b.HUMAN_A, TREND, [(1.0, "submit", b.submit("June", 1.0, "June"))], B2B),
            (b.MODEL_A, TREND, [(1.0, "submit", b.submit("May", 0.0, "June"))], B2B),
        ]
    ):
        made[f"{actor['id']}-{org and org['name'] or 'sample'}"] = b.write_session(
            root, actor, instance, script, start=b.DAY1, session_id=f"{n}" * 32, org=org
        )
    return made


def test_the_key_is_the_idx_and_the_question_never_the_idx_alone(tmp_path: Path) -> None:
    paths = _folder(tmp_path)
    keys = {name: instance_key(load(path).header) for name, path in paths.items()}
    assert keys["alice-sample"] == keys["gpt-4o-sample"]
    assert keys["alice-sample"].idx == keys["alice-sample-b2b"].idx == 650
    assert keys["alice-sample"] != keys["alice-sample-b2b"]
    places = {name: instance_place(load(path).header) for name, path in paths.items()}
    assert places["alice-sample-b2b"] == ("sample-b2b", "sample")
    # The same tasks on another org (a live org's run beside a local copy) are one instance.
    elsewhere = b.write_session(
        tmp_path / "live", b.MODEL_B, b.HTU, b.TINY_HTU, start=b.DAY1, session_id="9" * 32,
        org={"path": None, "digest": None, "name": "live org"},
    )  # fmt: skip
    assert instance_key(load(elsewhere).header) == keys["alice-sample"]


def test_compare_by_idx_refuses_to_mix_orgs_and_chooses_with_org(tmp_path: Path) -> None:
    _folder(tmp_path)
    with pytest.raises(CompareError, match=r"2 different instances .*--org NAME"):
        recordings_for_idx(tmp_path, 650)
    for org, task in (("sample", "handle_time"), ("sample-b2b", "monthly_trend_analysis")):
        found, _ = recordings_for_idx(tmp_path, 650, org=org)
        assert len(found) == 2
        assert {rec.header["instance"]["task"] for rec in found} == {task}
        assert compare(found).task == task


def test_compare_of_two_files_refuses_different_questions_with_one_idx(tmp_path: Path) -> None:
    paths = _folder(tmp_path)
    with pytest.raises(CompareError, match="different instances"):
        compare([load(paths["alice-sample"]), load(paths["gpt-4o-sample-b2b"])])


def test_the_cli_says_how_to_choose(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _folder(tmp_path)
    code, _, err = run(["compare", "--idx", "650", str(tmp_path), "--format", "md"], capsys)
    assert code == 1 and err.startswith("Error: ") and len(err.strip().splitlines()) == 1
    assert "org 'sample'" in err and "org 'sample-b2b'" in err and "--org" in err
    code, out, _ = run(
        [
            "compare",
            "--idx",
            "650",
            str(tmp_path),
            "--org",
            "sample-b2b",
            "--format",
            "json",
            "--no-rerun",
        ],  # fmt: skip
        capsys,
    )
    assert code == 0 and json.loads(out)["task"] == "monthly_trend_analysis"
    code, _, err = run(["compare", "--idx", "650", str(tmp_path), "--org", "nope"], capsys)
    assert code == 2 and "found 0 valid recording(s) of idx 650 org 'nope'" in err


def test_the_report_counts_each_org_s_instance_once_per_actor(tmp_path: Path) -> None:
    _folder(tmp_path)
    report = report_folder(tmp_path)
    # Four answers counted: alice's b2b answer is not "a later submission" of her sample one.
    assert len(report.sessions) == 4
    assert "a later submission of an instance already submitted" not in report.excluded
    (pair,) = report.agreement
    # Two shared instances (not one idx): both right on sample; on b2b, alice only.
    assert pair.n == 2
    assert sorted(kind for _, kind in pair.instances) == sorted([BOTH_RIGHT, ONLY_HUMAN])


def test_replay_looks_for_the_recorded_orgs_own_tasks(tmp_path: Path, monkeypatch: Any) -> None:
    from crmtui import paths

    paths_b2b = _folder(tmp_path)
    header = load(paths_b2b["alice-sample-b2b"]).header
    found = TaskLookup().candidates(header)
    assert found[0] == paths.org_tasks_path("sample-b2b")
    assert paths.org_tasks_path("sample") not in found


def test_summaries_carry_the_key(tmp_path: Path) -> None:
    _folder(tmp_path)
    loaded, _, _ = load_folder(tmp_path)
    assert {s.place[0] for _, s in loaded} == {"sample", "sample-b2b"}
