"""Trajectory extraction and session summaries on hand-made recordings."""

from __future__ import annotations

from pathlib import Path

import pytest

from crmtui.record import load
from crmtui.review.summary import is_right, summarize
from crmtui.review.trajectory import (
    extract_steps,
    ids_in_query,
    ids_in_text,
    is_record_id,
    normalize_query,
    objects_in_query,
)
from tests.unit.report import builders as b


def test_record_ids_in_queries() -> None:
    text = (
        f"SELECT Id FROM Case WHERE OwnerId IN ('{b.AGENT_A}', '{b.AGENT_B}') "
        "AND Status = 'Closed' AND Subject = 'Order 1234567890123'"
    )
    assert ids_in_query(text) == {b.AGENT_A, b.AGENT_B}
    assert ids_in_query(f"FIND {{{b.CASE_1}}} IN ALL FIELDS") == {b.CASE_1}
    assert ids_in_query("SELECT Id FROM Case WHERE Subject = 'it\\'s 500Ws0000000001AAA'") == set()
    assert is_record_id("500Ws0000000001") and not is_record_id("significantlyhi")


def test_objects_in_queries() -> None:
    assert objects_in_query("select id, (SELECT Id FROM Contacts) from account") == {"Account"}
    assert objects_in_query(
        "FIND {shoe} IN ALL FIELDS RETURNING Product2(Id, Name), case (Id), Nope"
    ) == {"Product2", "Case"}
    assert objects_in_query("SELECT COUNT() FROM CaseHistory__c") == {"CaseHistory__c"}


def test_normalize_query_keeps_literals() -> None:
    assert normalize_query("SELECT  Id ,Name\nFROM Case WHERE Subject = 'A  B';") == (
        "select id,name from case where subject='A  B'"
    )
    assert normalize_query("  ;") is None
    assert normalize_query(None) is None


def test_human_steps(fixture_paths: dict[str, Path]) -> None:
    steps = extract_steps(load(fixture_paths["alice_htu"]))
    assert [s.kind for s in steps] == ["open_object", "open_record", "run_query", "submit"]
    assert [s.index for s in steps] == [0, 1, 2, 3]
    assert steps[0].objects == {"Case"} and steps[0].records == frozenset()
    assert steps[1].records == {b.CASE_1}
    assert steps[2].objects == {"CaseHistory__c", "Case"}
    assert steps[2].records == {b.CASE_1}
    assert steps[2].rows == 1 and steps[2].error_code is None
    assert steps[3].answer == b.AGENT_A
    assert steps[3].ms == 104_000


def test_model_steps_carry_tokens_and_thought(fixture_paths: dict[str, Path]) -> None:
    steps = extract_steps(load(fixture_paths["gpt_htu"]))
    assert [s.kind for s in steps] == ["run_query", "submit"]
    assert (steps[0].prompt_tokens, steps[0].completion_tokens) == (1000, 100)
    assert steps[0].thought == "look at the history"
    assert (steps[1].prompt_tokens, steps[1].completion_tokens) == (1200, 50)
    assert steps[1].thought is None


def test_model_call_without_action_is_its_own_step(tmp_path: Path) -> None:
    script = [
        (1.0, "model_call", b.model_call(10, 1, 0.1)),
        (1.0, "model_call", b.model_call(20, 2, 0.2)),
        (1.0, "run_query", b.run_query("SELECT Id FROM Nope", rows=0, error_code="INVALID_TYPE")),
        (1.0, "model_call", b.model_call(30, 3, 0.3)),
    ]
    path = b.write_session(
        tmp_path, b.MODEL_A, b.HTU, script, start=b.DAY1, session_id="e" * 32, end=(1.0, "error")
    )
    recording = load(path)
    steps = extract_steps(recording)
    assert [s.kind for s in steps] == ["model_call", "run_query", "model_call"]
    assert [s.prompt_tokens for s in steps] == [10, 20, 30]
    assert steps[1].error_code == "INVALID_TYPE" and steps[1].objects == frozenset()
    summary = summarize(recording, steps)
    assert summary.model_calls == 3 and summary.tokens == 66
    assert summary.cost == pytest.approx(0.6)
    assert summary.query_errors == 1 and not summary.submitted and summary.reward is None


def test_result_ids_hook_adds_returned_records(fixture_paths: dict[str, Path]) -> None:
    recording = load(fixture_paths["tiny_htu"])
    seen: list[str] = []

    def rows(query: str) -> list[str]:
        seen.append(query)
        return [b.CASE_2, b.CASE_3]

    steps = extract_steps(recording, rows)
    assert seen == ["SELECT Id FROM Case WHERE Status = 'Closed'"]
    assert steps[0].records == {b.CASE_2, b.CASE_3}


def test_human_summary_active_time(fixture_paths: dict[str, Path]) -> None:
    s = summarize(load(fixture_paths["alice_htu"]))
    # 104 s until the submit, 60 s paused, 30 s idle (see builders.ALICE_HTU).
    assert (s.elapsed_ms, s.paused_ms, s.idle_ms, s.active_ms) == (104_000, 60_000, 30_000, 14_000)
    assert (s.queries, s.typed_queries, s.browse_actions) == (3, 1, 2)
    assert s.records == {b.CASE_1} and s.records_viewed == 1
    assert s.objects == {"Case", "CaseHistory__c"}
    assert (s.answer, s.reward, s.scoring, s.gold) == (b.AGENT_A, 1.0, "strict", b.AGENT_A)
    assert s.actor_label == "alice" and s.abbreviation == "HTU"
    assert s.model_calls == 0 and s.tokens == 0 and s.cost is None
    assert s.finished and s.end_reason == "finished"


def test_model_summary_tokens_and_cost(fixture_paths: dict[str, Path]) -> None:
    s = summarize(load(fixture_paths["gpt_htu"]))
    assert s.actor_label == "gpt-4o (react)"
    assert (s.prompt_tokens, s.completion_tokens, s.tokens) == (2200, 150, 2350)
    assert s.cost == pytest.approx(0.03)
    assert s.active_ms == 4000  # the clock stops at the submit, not at the end
    unknown = summarize(load(fixture_paths["tiny_htu"]))
    assert unknown.tokens == 540 and unknown.cost is None


def test_paused_at_the_end_counts_until_the_last_event(tmp_path: Path) -> None:
    script = [(2.0, "open_object", b.open_object("Case")), (1.0, "pause", {})]
    path = b.write_session(
        tmp_path, b.HUMAN_A, b.HTU, script, start=b.DAY1, session_id="f" * 32, end=(5.0, "quit")
    )
    s = summarize(load(path))
    assert (s.elapsed_ms, s.paused_ms, s.active_ms) == (8000, 5000, 3000)


@pytest.mark.parametrize(
    ("reward", "metric", "expected"),
    [
        (1.0, "exact_match", True),
        (0.0, "exact_match", False),
        (0.99, "exact_match", False),
        (0.5, "fuzzy_match", True),
        (0.49, "fuzzy_match", False),
        (None, "exact_match", None),
    ],
)
def test_is_right(reward: float | None, metric: str, expected: bool | None) -> None:
    assert is_right(reward, metric) is expected


def test_ids_in_an_agent_observation_count_as_seen(fixture_paths: dict[str, Path]) -> None:
    from dataclasses import replace

    from crmtui.record.verify import Recording

    recording = load(fixture_paths["tiny_htu"])
    events = list(recording.events)
    query = next(n for n, e in enumerate(events) if e.type == "run_query")
    observation = f"[{{'Id': '{b.CASE_2}'}}, {{'Id': '{b.CASE_3}'}}] zzz4567890abcde"
    events[query] = replace(
        events[query], payload={**events[query].payload, "observation": observation}
    )
    steps = extract_steps(Recording(recording.path, recording.header, events))
    # The unknown-prefix word is not taken for an Id.
    assert steps[0].records == {b.CASE_2, b.CASE_3}
    assert ids_in_text("no ids 500Ws0000000001AAAx here") == set()


def test_crmarena_pro_objects_are_objects_too() -> None:
    from crmtui.review.trajectory import objects_in_query

    query = "SELECT Id FROM Opportunity WHERE Id IN (SELECT WhatId FROM Task)"
    assert objects_in_query(query) == {"Opportunity", "Task"}
    assert objects_in_query("FIND {Ivy} RETURNING Lead(Id), VoiceCallTranscript__c") == {
        "Lead",
        "VoiceCallTranscript__c",
    }
