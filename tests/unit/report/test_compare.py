"""Comparison of attempts at one instance: evidence verdicts, alignment, renderings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmtui.errors import ConfigError
from crmtui.record import load
from crmtui.review.compare import (
    LUCKY_GUESS,
    MISSED_EVIDENCE,
    REASONING_ERROR,
    SOLVED,
    UNSCORED,
    CompareError,
    compare,
    default_solutions_path,
    evidence_for,
    evidence_ids,
    load_solutions,
    recordings_for_idx,
    verdict,
)
from crmtui.review.compare_format import comparison_markdown
from crmtui.review.summary import summarize
from tests.unit.report import builders as b


@pytest.mark.parametrize(
    ("right", "seen", "expected"),
    [
        (True, True, SOLVED),
        (True, False, LUCKY_GUESS),
        (False, True, REASONING_ERROR),
        (False, False, MISSED_EVIDENCE),
        (None, True, UNSCORED),
    ],
)
def test_verdict_table(right: bool | None, seen: bool, expected: str) -> None:
    assert verdict(right, seen) == expected


def test_evidence_classification_of_each_fixture_session(fixture_paths: dict[str, Path]) -> None:
    evidence = b.SOLUTIONS["650"]["evidence"]
    results = {
        name: evidence_for(summarize(load(fixture_paths[name])), evidence)
        for name in ("alice_htu", "alice_htu_later", "bob_htu", "gpt_htu", "tiny_htu")
    }
    assert results["alice_htu"].verdict == SOLVED
    assert results["alice_htu"].seen == (b.CASE_1,) and results["alice_htu"].total == 3
    assert results["gpt_htu"].verdict == SOLVED
    assert results["bob_htu"].verdict == MISSED_EVIDENCE
    assert results["tiny_htu"].verdict == MISSED_EVIDENCE
    # The later (not counted) attempt looked only at the User list and answered wrong.
    assert results["alice_htu_later"].verdict == MISSED_EVIDENCE


def test_lucky_guess_and_reasoning_error(tmp_path: Path) -> None:
    lucky = b.write_session(
        tmp_path,
        b.HUMAN_B,
        b.HTU,
        [(1.0, "submit", b.submit(b.AGENT_A, 1.0, b.AGENT_A))],
        start=b.DAY1,
        session_id="1" * 32,
    )
    wrong = b.write_session(
        tmp_path,
        b.MODEL_B,
        b.HTU,
        [
            (1.0, "open_record", b.open_record("Case", b.CASE_2)),
            (1.0, "submit", b.submit(b.AGENT_B, 0.0, b.AGENT_A)),
        ],
        start=b.DAY1,
        session_id="2" * 32,
    )
    result = compare([load(lucky), load(wrong)], b.SOLUTIONS)
    assert result.evidence is not None
    assert [e.verdict for e in result.evidence] == [LUCKY_GUESS, REASONING_ERROR]
    assert result.evidence[1].seen == (b.CASE_2,)
    assert result.evidence_total == 3


def test_compare_fixture_instance(fixture_paths: dict[str, Path]) -> None:
    recs = [load(fixture_paths[n]) for n in ("alice_htu", "gpt_htu")]
    result = compare(recs, b.SOLUTIONS)
    assert result.idx == 650 and result.task == "handle_time" and result.gold == b.AGENT_A
    statuses = [row.status for row in result.rows]
    # alice browsed twice before the query gpt-4o also ran (spelled differently).
    assert statuses == ["gap", "gap", "match", "match"]
    assert result.first_divergence == 0
    assert result.divergence == [None, 0]
    assert [a.actor_label for a in result.actors] == ["alice", "gpt-4o (react)"]
    assert result.notes == []


def test_markdown_rendering(fixture_paths: dict[str, Path]) -> None:
    recs = [load(fixture_paths[n]) for n in ("alice_htu", "gpt_htu", "tiny_htu")]
    text = comparison_markdown(compare(recs, b.SOLUTIONS))
    assert text.startswith("# Compare idx 650: HTU (handle_time)\n")
    assert "| Verdict | solved | solved | missed evidence |" in text
    assert "| Evidence seen | 1/3 | 1/3 | 0/3 |" in text
    assert "| Tokens | — | 2,350 | 540 |" in text
    assert "| Cost | — | $0.0300 | — |" in text
    assert "| Active time | 0:14 | 0:04 | 0:04 |" in text
    assert text.count("◀ first divergence") == 1
    assert (
        "| 1 | **gap** ◀ first divergence | open_object: SELECT Id, Name FROM Case | — | — |"
        in (text)
    )


def test_json_rendering_round_trips(fixture_paths: dict[str, Path]) -> None:
    recs = [load(fixture_paths[n]) for n in ("alice_kqa", "gpt_kqa")]
    data = json.loads(compare(recs, b.SOLUTIONS).to_json())
    assert data["idx"] == 0 and data["abbreviation"] == "KQA"
    assert [e["verdict"] for e in data["evidence"]] == [SOLVED, MISSED_EVIDENCE]
    assert data["actors"][0]["reward"] == 0.8 and data["actors"][1]["cost"] == 0.005
    assert data["steps"][0][0]["records"] == [b.ARTICLE]
    assert [row["status"] for row in data["rows"]] == ["gap", "partial"]
    assert data["rows"][1]["cells"] == [1, 0]


def test_compare_without_solutions_or_entry(fixture_paths: dict[str, Path]) -> None:
    recs = [load(fixture_paths[n]) for n in ("alice_htu", "bob_htu")]
    plain = compare(recs)
    assert plain.evidence is None and plain.evidence_total is None
    assert "No evidence list" in comparison_markdown(plain)
    missing = compare(recs, {"1": {"evidence": []}})
    assert missing.evidence is None
    assert missing.notes == ["the solutions file has no entry for idx 650"]


def test_compare_refuses_bad_input(fixture_paths: dict[str, Path]) -> None:
    alice = load(fixture_paths["alice_htu"])
    with pytest.raises(CompareError, match="at least two"):
        compare([alice])
    with pytest.raises(CompareError, match=r"different instances \(idx 0, 650\)"):
        compare([alice, load(fixture_paths["alice_kqa"])])
    with pytest.raises(CompareError, match="no list of evidence"):
        evidence_ids({"650": {"evidence": "500"}}, 650)


def test_different_orgs_are_noted(tmp_path: Path, fixture_paths: dict[str, Path]) -> None:
    other = b.write_session(
        tmp_path,
        b.HUMAN_B,
        b.HTU,
        b.BOB_HTU,
        start=b.DAY1,
        session_id="3" * 32,
        org={"path": "/elsewhere.db", "digest": "e" * 64, "name": "x"},
    )
    result = compare([load(fixture_paths["alice_htu"]), load(other)])
    assert result.notes == ["the recordings were made on different orgs (org digests differ)"]


def test_solutions_files(tmp_path: Path) -> None:
    org = tmp_path / "myorg.db"
    rec_path = b.write_session(
        tmp_path / "r",
        b.HUMAN_A,
        b.HTU,
        b.BOB_HTU,
        start=b.DAY1,
        session_id="4" * 32,
        org={"path": str(org), "digest": "d" * 64, "name": "myorg"},
    )
    recording = load(rec_path)
    assert default_solutions_path(recording) is None
    solutions = tmp_path / "myorg.solutions.json"
    solutions.write_text(json.dumps(b.SOLUTIONS), "utf-8")
    assert default_solutions_path(recording) == solutions
    assert load_solutions(solutions)["650"]["evidence"] == b.SOLUTIONS["650"]["evidence"]
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]", "utf-8")
    with pytest.raises(ConfigError, match="JSON object"):
        load_solutions(bad)
    bad.write_text("{nope", "utf-8")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_solutions(bad)
    with pytest.raises(ConfigError, match="cannot read"):
        load_solutions(tmp_path / "absent.json")


def test_recordings_for_idx(fixture_root: Path) -> None:
    found, skipped = recordings_for_idx(fixture_root, 650)
    labels = [(r.header["actor"]["id"], r.header["session_id"][:2]) for r in found]
    assert labels == [
        ("alice", "a1"),
        ("alice", "a0"),
        ("bob", "b1"),
        ("gpt-4o", "c1"),
        ("tiny", "d1"),
    ]
    assert [s.path.name for s in skipped] == ["bob-edited.jsonl"]


def test_a_checked_none_answer_is_solved_and_an_unchecked_one_a_lucky_guess(
    tmp_path: Path,
) -> None:
    # A None gold rests on no records: there is nothing to find, so looking is the evidence.
    checked = b.write_session(
        tmp_path,
        b.HUMAN_A,
        b.HTU,
        [
            (1.0, "run_query", b.run_query("SELECT Id FROM Case WHERE Status = 'New'", rows=0)),
            (1.0, "submit", b.submit("None", 1.0, None)),
        ],
        start=b.DAY1,
        session_id="1" * 32,
    )
    guessed = b.write_session(
        tmp_path,
        b.HUMAN_B,
        b.HTU,
        [(1.0, "submit", b.submit("None", 1.0, None))],
        start=b.DAY1,
        session_id="2" * 32,
    )
    result = compare([load(checked), load(guessed)], {"650": {"evidence": []}})
    assert result.evidence is not None
    assert [e.verdict for e in result.evidence] == [SOLVED, LUCKY_GUESS]
    assert "Gold answer: `None`" in comparison_markdown(result)


def test_a_query_that_failed_on_one_side_only_is_a_divergence(tmp_path: Path) -> None:
    query = "SELECT Id FROM Case"
    paths = [
        b.write_session(
            tmp_path,
            actor,
            b.HTU,
            [(1.0, "run_query", b.run_query(query, error_code=code))],
            start=b.DAY1,
            session_id=sid * 32,
        )
        for actor, code, sid in ((b.HUMAN_A, None, "1"), (b.HUMAN_B, "MALFORMED_QUERY", "2"))
    ]
    result = compare([load(p) for p in paths])
    assert result.first_divergence == 0
    assert "identical step by step" not in comparison_markdown(result)
