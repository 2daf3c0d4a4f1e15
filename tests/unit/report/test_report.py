"""Report numbers on the hand-made fixture folder, checked against hand computation.

See builders.py for each session's script; the expected values below are worked out from
those scripts, not read back from the code.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from crmtui.data.tasktypes import TASK_ORDER
from crmtui.errors import ConfigError
from crmtui.review.report import OVERALL, ActorRow, Report, report_folder
from crmtui.review.report_format import (
    report_notes,
    to_csv,
    to_dict,
    to_json,
    to_markdown,
    to_table_text,
)


@pytest.fixture(scope="module")
def report(fixture_root: Path) -> Report:
    return report_folder(fixture_root)


def _row(report: Report, label: str) -> ActorRow:
    return next(r for r in report.rows if r.label == label)


def test_rows_and_columns(report: Report) -> None:
    assert [r.label for r in report.rows] == ["alice", "bob", "gpt-4o (react)", "tiny (act)"]
    assert report.tasks == list(TASK_ORDER)
    assert report.columns[-1] == OVERALL
    assert report.files == 11
    assert len(report.sessions) == 7


def test_tampered_file_is_skipped_with_its_line(report: Report) -> None:
    assert [(s.path.name, s.reason) for s in report.skipped] == [
        ("bob-edited.jsonl", "line 3: hash mismatch (the line was changed after it was written)")
    ]


def test_excluded_sessions(report: Report) -> None:
    assert report.excluded == {
        "unfinished": 1,
        "not submitted": 1,
        "a later submission of an instance already submitted": 1,
    }


def test_accuracy_cells(report: Report) -> None:
    alice = _row(report, "alice").accuracy
    # alice's first HTU submission is right (the later wrong one does not count).
    assert (alice["handle_time"].value, alice["handle_time"].n) == (1.0, 1)
    assert alice["knowledge_qa"].value == pytest.approx(0.8)
    assert alice[OVERALL].value == pytest.approx(0.9) and alice[OVERALL].n == 2
    assert alice["best_region_identification"].value is None
    assert alice["best_region_identification"].n == 0
    bob = _row(report, "bob").accuracy
    # bob's unfinished BRI and unsubmitted KQA sessions do not count as wrong answers.
    assert bob["handle_time"].value == 0.0 and bob[OVERALL].n == 1
    assert bob["best_region_identification"].n == 0 and bob["knowledge_qa"].n == 0
    gpt = _row(report, "gpt-4o (react)").accuracy
    assert gpt[OVERALL].value == pytest.approx((1.0 + 0.4) / 2)
    tiny = _row(report, "tiny (act)").accuracy
    assert tiny[OVERALL].value == pytest.approx(0.5)
    assert tiny["best_region_identification"].value == 1.0


def test_overall_is_mean_of_task_columns_not_of_sessions(tmp_path: Path) -> None:
    from tests.unit.report import builders as b

    # Two right HTU instances and one wrong BRI: per-session mean would be 2/3,
    # the leaderboard-style mean of task columns is (1.0 + 0.0) / 2.
    for n, (inst, reward) in enumerate([(650, 1.0), (651, 1.0), (1040, 0.0)]):
        base = b.BRI if inst == 1040 else b.HTU
        b.write_session(
            tmp_path,
            b.HUMAN_A,
            {**base, "idx": inst},
            [(1.0, "submit", b.submit("x", reward, "x"))],
            start=b.DAY1,
            session_id=f"{n}" * 32,
        )
    row = report_folder(tmp_path).rows[0]
    assert row.accuracy["handle_time"].value == 1.0 and row.accuracy["handle_time"].n == 2
    assert row.accuracy[OVERALL].value == pytest.approx(0.5)
    assert row.accuracy[OVERALL].n == 3


def test_time_queries_tokens_cost(report: Report) -> None:
    alice = _row(report, "alice")
    assert alice.active_seconds["handle_time"].value == pytest.approx(14.0)
    assert alice.active_seconds[OVERALL].value == pytest.approx((14.0 + 20.0) / 2)
    assert alice.queries["handle_time"].value == 3
    assert alice.queries[OVERALL].value == 2
    gpt = _row(report, "gpt-4o (react)")
    assert gpt.tokens["handle_time"].value == 2350
    assert gpt.tokens[OVERALL].value == pytest.approx((2350 + 520) / 2)
    assert gpt.cost[OVERALL].value == pytest.approx((0.03 + 0.005) / 2)
    assert gpt.active_seconds["knowledge_qa"].value == pytest.approx(2.0)  # stops at the submit
    tiny = _row(report, "tiny (act)")
    # One call of unknown price makes the HTU (and so the overall) cost unknown.
    assert tiny.cost["handle_time"].value is None
    assert tiny.cost["best_region_identification"].value == pytest.approx(0.002)
    assert tiny.cost[OVERALL].value is None


def test_agreement(report: Report) -> None:
    table = {(a.human, a.model): (a.n, a.counts) for a in report.agreement}
    assert table[("alice", "gpt-4o (react)")] == (
        2,
        {"both right": 1, "only human": 1, "only model": 0, "both wrong": 0},
    )
    assert table[("alice", "tiny (act)")][1]["only human"] == 1
    assert table[("bob", "gpt-4o (react)")][1]["only model"] == 1
    assert table[("bob", "tiny (act)")][1]["both wrong"] == 1
    alice_gpt = next(a for a in report.agreement if a.model == "gpt-4o (react)")
    assert alice_gpt.instances == [(0, "only human"), (650, "both right")]


def test_csv(report: Report) -> None:
    rows = list(csv.DictReader(io.StringIO(to_csv(report))))
    keyed = {(r["actor"], r["abbreviation"]): r for r in rows}
    assert len(rows) == 11  # 7 task cells with data + 4 Overall rows
    assert keyed[("alice", "Overall")]["accuracy"] == "0.9"
    assert keyed[("alice", "HTU")]["median_active_seconds"] == "14.0"
    assert keyed[("alice", "HTU")]["mean_cost_usd"] == ""
    assert keyed[("tiny (act)", "BRI")]["mean_tokens"] == "110.0"
    assert keyed[("tiny (act)", "HTU")]["mean_cost_usd"] == ""


def test_json(report: Report) -> None:
    data = json.loads(to_json(report))
    assert data["columns"][0] == "NCR" and data["columns"][-1] == "Overall"
    alice = data["actors"][0]
    assert alice["cells"]["HTU"]["accuracy"] == 1.0 and alice["cells"]["NCR"]["instances"] == 0
    assert data["skipped"][0]["reason"].startswith("line 3: hash mismatch")
    assert data["agreement"][0]["instances"][0] == {"idx": 0, "outcome": "only human"}


def test_table_and_markdown(report: Report) -> None:
    text = to_table_text(report)
    assert "NCR" in text and "BRI" in text and "Overall" in text
    assert "90.0 (2)" in text
    assert "Skipped" in text and "bob-edited.jsonl" in text
    md = to_markdown(report)
    assert "| alice | — | 100.0 (1) | — | — | — | 80.0 (1) | — | — | — | 90.0 (2) |" in md
    assert "| gpt-4o (react) | — | $0.0300 | — | — | — | $0.0050 | — | — | — | $0.0175 |" in md
    assert "| alice | gpt-4o (react) | 2 | 1 | 1 | 0 | 0 |" in md
    assert "## Skipped files" in md


def test_extra_task_types_get_columns_after_the_nine(tmp_path: Path) -> None:
    from tests.unit.report import builders as b

    pro = {"idx": 5, "task": "lead_qualification", "query": "q", "reward_metric": "exact_match"}
    b.write_session(
        tmp_path,
        b.HUMAN_A,
        pro,
        [(1.0, "submit", b.submit("x", 1.0, ["x"]))],
        start=b.DAY1,
        session_id="9" * 32,
    )
    report = report_folder(tmp_path)
    assert report.tasks[-1] == "lead_qualification"
    assert report.rows[0].accuracy["lead_qualification"].value == 1.0


def test_empty_and_missing_folders(tmp_path: Path) -> None:
    empty = report_folder(tmp_path)
    assert empty.rows == [] and empty.agreement == []
    assert "No counted sessions" in to_markdown(empty)
    with pytest.raises(ConfigError, match="no such folder"):
        report_folder(tmp_path / "absent")


def test_a_persons_first_submission_counts_and_later_ones_are_flagged(tmp_path: Path) -> None:
    from tests.unit.report import builders as b

    # The first submission is written last and sorts last by name: its submit time decides.
    b.write_session(
        tmp_path / "a", b.HUMAN_A, b.HTU, b.ALICE_HTU, start=b.DAY3, session_id="1" * 32
    )
    b.write_session(
        tmp_path / "z", b.HUMAN_A, b.HTU, b.ALICE_HTU_LATER, start=b.DAY1, session_id="0" * 32
    )
    report = report_folder(tmp_path)
    assert report.rows[0].accuracy["handle_time"].value == 0.0  # DAY1's answer, wrong
    assert [(x.actor, x.idx, x.path.parts[-3], x.counted.parts[-3]) for x in report.later] == [
        ("alice", 650, "a", "z")
    ]
    notes = "\n".join(report_notes(report))
    assert "NOT COUNTED: alice, instance 650" in notes
    assert to_dict(report)["later_submissions"][0]["idx"] == 650


def test_earlier_unanswered_sessions_add_their_time_to_the_instance(tmp_path: Path) -> None:
    from tests.unit.report import builders as b

    left = [(4.0, "open_object", b.open_object("Case"))]
    b.write_session(
        tmp_path, b.HUMAN_A, b.HTU, left, start=b.DAY1, session_id="0" * 32, end=(1.0, "abandoned")
    )
    b.write_session(tmp_path, b.HUMAN_A, b.HTU, b.ALICE_HTU, start=b.DAY2, session_id="1" * 32)
    (session,) = report_folder(tmp_path).sessions
    # 14 s in the answered session, plus the 5 s (to its end) of the one left before.
    assert session.active_seconds == pytest.approx(14 + 5)


def test_a_models_rerun_replaces_its_earlier_attempt(tmp_path: Path) -> None:
    from tests.unit.report import builders as b

    b.write_session(tmp_path, b.MODEL_B, b.HTU, b.TINY_HTU, start=b.DAY1, session_id="0" * 32)
    b.write_session(tmp_path, b.MODEL_B, b.HTU, b.GPT_HTU, start=b.DAY2, session_id="1" * 32)
    report = report_folder(tmp_path)
    assert report.rows[0].accuracy["handle_time"].value == 1.0 and report.later == []
