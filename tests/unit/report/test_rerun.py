"""Re-running recorded queries on the org to find the records they returned."""

from __future__ import annotations

from pathlib import Path

import pytest

from crmtui.data.schema import builtin_schema
from crmtui.org.store import Org, write_org
from crmtui.record import load
from crmtui.review.compare import MISSED_EVIDENCE, SOLVED, compare
from crmtui.review.rerun import OrgResultIds, collect_ids, result_ids_for, underlying_query
from tests.unit.report import builders as b


@pytest.fixture
def org(tmp_path: Path) -> Org:
    rows = [
        {"Id": b.CASE_1, "Status": "Closed", "Subject": "Broken lace"},
        {"Id": b.CASE_2, "Status": "Closed", "Subject": "Late order"},
        {"Id": b.CASE_3, "Status": "New", "Subject": "Refund"},
    ]
    return write_org(tmp_path / "tiny.db", builtin_schema(), {"Case": rows}, meta={"name": "tiny"})


def _org_info(org: Org) -> dict[str, str]:
    return {"path": str(org.path), "digest": org.digest, "name": org.name}


def test_collect_ids_walks_nested_results() -> None:
    records = [
        {"attributes": {"type": "Case"}, "Id": b.CASE_1, "Owner": {"Id": b.AGENT_A}},
        {"Id": "not-an-id", "Contacts": {"records": [{"Id": b.CASE_2}]}},
    ]
    assert collect_ids(records) == {b.CASE_1, b.AGENT_A, b.CASE_2}


def test_org_result_ids_runs_and_caches(org: Org) -> None:
    runner = OrgResultIds(org)
    assert set(runner("SELECT Id FROM Case WHERE Status = 'Closed'") or ()) == {
        b.CASE_1,
        b.CASE_2,
    }
    assert runner("SELECT Nope FROM Case") is None
    assert len(runner._cache) == 2


def test_rerun_turns_an_aggregate_query_into_evidence_seen(org: Org, tmp_path: Path) -> None:
    script = [
        (1.0, "model_call", b.model_call(10, 1, 0.0)),
        (1.0, "run_query", b.run_query("SELECT Id FROM Case WHERE Status = 'Closed'", rows=2)),
        (1.0, "model_call", b.model_call(10, 1, 0.0)),
        (1.0, "submit", b.submit(b.AGENT_A, 1.0, b.AGENT_A)),
    ]
    info = _org_info(org)
    model = load(
        b.write_session(tmp_path / "r", b.MODEL_A, b.HTU, script, start=b.DAY1,
                        session_id="6" * 32, org=info)
    )  # fmt: skip
    human = load(
        b.write_session(tmp_path / "r", b.HUMAN_B, b.HTU, b.BOB_HTU, start=b.DAY1,
                        session_id="7" * 32, org=info)
    )  # fmt: skip
    plain = compare([human, model], b.SOLUTIONS)
    assert plain.evidence is not None
    assert [e.verdict for e in plain.evidence] == [MISSED_EVIDENCE, "lucky guess"]

    runner, note = result_ids_for(model)
    assert runner is not None and note.startswith("queries re-run on")
    rerun = compare([human, model], b.SOLUTIONS, [None, runner])
    assert rerun.evidence is not None
    assert [e.verdict for e in rerun.evidence] == [MISSED_EVIDENCE, SOLVED]
    assert rerun.evidence[1].seen == (b.CASE_1, b.CASE_2)


def test_rerun_refused_for_missing_or_changed_org(org: Org, tmp_path: Path) -> None:
    gone = {"path": str(tmp_path / "gone.db"), "digest": "d" * 64, "name": "elsewhere"}
    missing = load(
        b.write_session(tmp_path / "m", b.HUMAN_A, b.HTU, b.BOB_HTU, start=b.DAY1,
                        session_id="8" * 32, org=gone)
    )  # fmt: skip
    runner, note = result_ids_for(missing)
    assert runner is None and "only Ids named in steps are counted" in note
    changed = load(
        b.write_session(tmp_path / "c", b.HUMAN_A, b.HTU, b.BOB_HTU, start=b.DAY1,
                        session_id="9" * 32, org={**_org_info(org), "digest": "0" * 64})
    )  # fmt: skip
    runner, note = result_ids_for(changed)
    assert runner is None and "changed since the recording" in note


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (
            "SELECT IssueId__c, COUNT(Id) c FROM Case WHERE Subject = 'a GROUP BY b' "
            "AND Id IN (SELECT CaseId__c FROM CaseHistory__c ORDER BY X) "
            "GROUP BY IssueId__c ORDER BY COUNT(Id) DESC LIMIT 1",
            "SELECT Id FROM Case WHERE Subject = 'a GROUP BY b' "
            "AND Id IN (SELECT CaseId__c FROM CaseHistory__c ORDER BY X)",
        ),
        (
            "SELECT COUNT() FROM Case WHERE Status = 'New'",
            "SELECT Id FROM Case WHERE Status = 'New'",
        ),
        ("select OwnerId from Case group by OwnerId", "SELECT Id FROM Case"),
        ("SELECT Id FROM Case ORDER BY CreatedDate LIMIT 5", None),
        ("FIND {x} IN ALL FIELDS", None),
    ],
)
def test_underlying_query(query: str, expected: str | None) -> None:
    assert underlying_query(query) == expected


def test_aggregate_query_counts_the_rows_it_aggregates(org: Org) -> None:
    runner = OrgResultIds(org)
    found = runner("SELECT Status, COUNT(Id) n FROM Case WHERE Status = 'Closed' GROUP BY Status")
    assert set(found or ()) == {b.CASE_1, b.CASE_2}


def test_browse_list_views_are_not_rerun(org: Org, tmp_path: Path) -> None:
    from crmtui.review.trajectory import extract_steps

    script = [
        (1.0, "open_object", b.open_object("Case")),
        (1.0, "run_query", b.run_query("SELECT Id FROM Case WHERE Status = 'New'")),
    ]
    rec = load(
        b.write_session(tmp_path / "r", b.HUMAN_A, b.HTU, script, start=b.DAY1,
                        session_id="5" * 32, org=_org_info(org), end=(1.0, "quit"))
    )  # fmt: skip
    steps = extract_steps(rec, OrgResultIds(org))
    assert steps[0].records == frozenset()
    assert steps[1].records == {b.CASE_3}
