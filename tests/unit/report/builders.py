"""Hand-made recordings written through the real Recorder with frozen clocks.

``make_fixture_folder`` writes the report fixture: 2 humans and 2 models over HTU, KQA and
BRI instances, plus a later (not counted) submission, an unfinished and an unsubmitted session
and a
tampered file. The expected numbers in test_report.py were worked out by hand from the
scripts below.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from crmtui.record import Recorder

ORG = {"path": "/orgs/sample.db", "digest": "d" * 64, "name": "sample"}


def rid(prefix: str, n: int) -> str:
    """An 18-character Salesforce-shaped Id with the object's key prefix."""
    return f"{prefix}Ws{n:010d}AAA"


CASE_1 = rid("500", 1)
CASE_2 = rid("500", 2)
CASE_3 = rid("500", 3)
AGENT_A = rid("005", 1)
AGENT_B = rid("005", 2)
ARTICLE = rid("ka0", 7)
HISTORY_1 = rid("a0H", 1)

HTU = {
    "idx": 650,
    "task": "handle_time",
    "query": "Who had the shortest handle time?",
    "reward_metric": "exact_match",
}
KQA = {
    "idx": 0,
    "task": "knowledge_qa",
    "query": "What do golf shoes have?",
    "reward_metric": "fuzzy_match",
}
BRI = {
    "idx": 1040,
    "task": "best_region_identification",
    "query": "Which state?",
    "reward_metric": "exact_match",
}

#: ``<org>.solutions.json`` content for the fixture instances.
SOLUTIONS: dict[str, Any] = {
    "650": {"solver": "handle_time", "params": {}, "evidence": [CASE_1, CASE_2, HISTORY_1]},
    "0": {"solver": "knowledge_qa", "params": {}, "evidence": [ARTICLE]},
    "1040": {"solver": "best_region", "params": {}, "evidence": [CASE_3]},
}


class FakeClock:
    """Wall and monotonic clocks that move only when told to."""

    def __init__(self, start: dt.datetime) -> None:
        self.now = start
        self.mono = 1000.0

    def advance(self, seconds: float) -> None:
        self.now += dt.timedelta(seconds=seconds)
        self.mono += seconds

    def wall(self) -> dt.datetime:
        return self.now

    def monotonic(self) -> float:
        return self.mono


Script = list[tuple[float, str, dict[str, Any]]]


def write_session(
    root: Path,
    actor: dict[str, Any],
    instance: dict[str, Any],
    script: Script,
    *,
    start: dt.datetime,
    session_id: str,
    end: tuple[float, str] | None = (0.5, "finished"),
    org: dict[str, Any] | None = None,
) -> Path:
    """Write one recording: ``script`` is (seconds to wait, event type, payload) triples."""
    clock = FakeClock(start)
    recorder = Recorder.create(
        root,
        actor=actor,
        instance=instance,
        org=org or ORG,
        tasks_source="sample",
        session_id=session_id,
        wall=clock.wall,
        monotonic=clock.monotonic,
        fsync=False,
    )
    reward = None
    for delay, kind, payload in script:
        clock.advance(delay)
        recorder.emit(kind, payload)
        if kind == "submit":
            reward = payload["reward"]
    if end is None:
        recorder.suspend()
    else:
        clock.advance(end[0])
        recorder.close(end[1], reward)
    return recorder.path


def open_object(obj: str) -> dict[str, Any]:
    return {"object": obj, "query": f"SELECT Id, Name FROM {obj}"}


def open_record(obj: str, record_id: str) -> dict[str, Any]:
    return {
        "object": obj,
        "id": record_id,
        "query": f"SELECT Id FROM {obj} WHERE Id = '{record_id}'",
    }


def run_query(text: str, rows: int = 1, error_code: str | None = None) -> dict[str, Any]:
    return {
        "text": text,
        "kind": "sosl" if text.upper().startswith("FIND") else "soql",
        "rows": rows,
        "ms": 1.5,
        "error_code": error_code,
        "error": None if error_code is None else "bad",
    }


def submit(answer: str, reward: float | None, gold: Any) -> dict[str, Any]:
    return {"answer": answer, "reward": reward, "scoring": "strict", "gold": gold}


def model_call(prompt: int, completion: int, cost: float | None) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "cost": cost,
        "latency_ms": 250.0,
        "content": "...",
    }


HUMAN_A = {"kind": "human", "id": "alice"}
HUMAN_B = {"kind": "human", "id": "bob"}
MODEL_A = {"kind": "model", "id": "gpt-4o", "strategy": "react"}
MODEL_B = {"kind": "model", "id": "tiny", "strategy": "act"}

DAY1 = dt.datetime(2026, 1, 1, 9, 0, 0, tzinfo=dt.UTC)
DAY2 = dt.datetime(2026, 1, 2, 9, 0, 0, tzinfo=dt.UTC)
DAY3 = dt.datetime(2026, 1, 3, 9, 0, 0, tzinfo=dt.UTC)

HISTORY_QUERY = f"SELECT Id, NewValue__c FROM CaseHistory__c WHERE CaseId__c = '{CASE_1}'"

# alice, HTU, right: elapsed 104 s until the submit (the end 0.5 s later does not count),
# paused 60 s, idle 30 s -> active 14 s; 3 queries
# (2 browse + 1 typed); records CASE_1 (evidence) -> "solved".
ALICE_HTU: Script = [
    (2.0, "open_object", open_object("Case")),
    (3.0, "open_record", open_record("Case", CASE_1)),
    (5.0, "run_query", run_query(HISTORY_QUERY)),
    (1.0, "pause", {}),
    (60.0, "resume", {}),
    (2.0, "answer_edit", {"text": AGENT_A}),
    (30.0, "idle", {"seconds": 30}),
    (1.0, "submit", submit(AGENT_A, 1.0, AGENT_A)),
]
# alice's later attempt at the same instance (a second submission, possible before crmtui
# opened submitted instances read-only): wrong, not counted (her first submission counts).
ALICE_HTU_LATER: Script = [
    (4.0, "open_object", open_object("User")),
    (1.0, "submit", submit(AGENT_B, 0.0, AGENT_A)),
]
# alice, KQA: F1 0.8; elapsed 20 s until the submit; 1 query; touched ARTICLE.
ALICE_KQA: Script = [
    (10.0, "open_record", open_record("Knowledge__kav", ARTICLE)),
    (10.0, "submit", submit("advanced soles", 0.8, "Advanced sole technology")),
]
# bob, HTU, wrong, never looked at a record: elapsed 6.5 s -> "missed evidence".
BOB_HTU: Script = [
    (4.0, "open_object", open_object("Case")),
    (2.0, "submit", submit(AGENT_B, 0.0, AGENT_A)),
]
# bob, BRI, unfinished (no end event): not counted.
BOB_BRI: Script = [(3.0, "open_object", open_object("Account"))]
# bob, KQA, quit without submitting: not counted.
BOB_KQA: Script = [(3.0, "open_object", open_object("Knowledge__kav"))]

# gpt-4o (react), HTU, right: the same history query as alice, then submit.
# tokens 1000+100 + 1200+50 = 2350; cost 0.01 + 0.02 = 0.03; elapsed 4.5 s.
GPT_HTU: Script = [
    (1.0, "model_call", model_call(1000, 100, 0.01)),
    (0.0, "thought", {"text": "look at the history"}),
    (1.0, "run_query", run_query(HISTORY_QUERY.replace("SELECT Id,", "select  Id ,"))),
    (1.0, "model_call", model_call(1200, 50, 0.02)),
    (1.0, "submit", submit(AGENT_A, 1.0, AGENT_A)),
]
# gpt-4o (react), KQA: F1 0.4 (wrong for agreement); tokens 500+20; cost 0.005.
GPT_KQA: Script = [
    (1.0, "model_call", model_call(500, 20, 0.005)),
    (1.0, "submit", submit("waterproof", 0.4, "Advanced sole technology")),
]
# tiny (act), HTU, wrong; one call with unknown cost -> cost unknown; tokens 300+30+200+10.
TINY_HTU: Script = [
    (1.0, "model_call", model_call(300, 30, None)),
    (1.0, "run_query", run_query("SELECT Id FROM Case WHERE Status = 'Closed'", rows=5)),
    (1.0, "model_call", model_call(200, 10, 0.001)),
    (1.0, "submit", submit(AGENT_B, 0.0, AGENT_A)),
]
# tiny (act), BRI, right; tokens 100+10; cost 0.002.
TINY_BRI: Script = [
    (1.0, "model_call", model_call(100, 10, 0.002)),
    (1.0, "submit", submit("CA", 1.0, "CA")),
]


def make_fixture_folder(root: Path) -> dict[str, Path]:
    """Write the report fixture under ``root``; returns the paths by name."""
    paths = {
        "alice_htu": write_session(root, HUMAN_A, HTU, ALICE_HTU, start=DAY2, session_id="a1" * 16),
        "alice_htu_later": write_session(
            root, HUMAN_A, HTU, ALICE_HTU_LATER, start=DAY3, session_id="a0" * 16
        ),
        "alice_kqa": write_session(root, HUMAN_A, KQA, ALICE_KQA, start=DAY2, session_id="a2" * 16),
        "bob_htu": write_session(root, HUMAN_B, HTU, BOB_HTU, start=DAY2, session_id="b1" * 16),
        "bob_bri": write_session(
            root, HUMAN_B, BRI, BOB_BRI, start=DAY2, session_id="b2" * 16, end=None
        ),
        "bob_kqa": write_session(
            root, HUMAN_B, KQA, BOB_KQA, start=DAY2, session_id="b3" * 16, end=(1.0, "quit")
        ),
        "gpt_htu": write_session(root, MODEL_A, HTU, GPT_HTU, start=DAY2, session_id="c1" * 16),
        "gpt_kqa": write_session(root, MODEL_A, KQA, GPT_KQA, start=DAY2, session_id="c2" * 16),
        "tiny_htu": write_session(root, MODEL_B, HTU, TINY_HTU, start=DAY2, session_id="d1" * 16),
        "tiny_bri": write_session(root, MODEL_B, BRI, TINY_BRI, start=DAY2, session_id="d2" * 16),
    }
    # A tampered copy of bob's HTU session: the submitted answer edited after the fact.
    tampered = root / "tampered" / "bob-edited.jsonl"
    tampered.parent.mkdir(parents=True)
    text = paths["bob_htu"].read_text(encoding="utf-8")
    tampered.write_text(text.replace(f'"answer":"{AGENT_B}"', f'"answer":"{AGENT_A}"'), "utf-8")
    paths["tampered"] = tampered
    return paths
