"""Scratch steps (viewer opens, copies, computes, notes) in trajectories, summaries and compare;
records a query returned count as seen whether or not it selected Id."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from crmtui.data.schema import builtin_schema
from crmtui.org.store import Org, write_org
from crmtui.record import load
from crmtui.review.compare import LUCKY_GUESS, SOLVED, compare
from crmtui.review.compare_format import comparison_markdown
from crmtui.review.rerun import OrgResultIds, collect_ids
from crmtui.review.summary import summarize
from crmtui.review.trajectory import extract_steps
from tests.unit.report import builders as b

ACCOUNT = b.rid("001", 1)
NO_ID_QUERY = "SELECT Account.ShippingState, CreatedDate, ClosedDate FROM Case WHERE Status = 'New'"


@pytest.fixture
def org(tmp_path: Path) -> Org:
    tables = {
        "Account": [{"Id": ACCOUNT, "ShippingState": "NJ"}],
        "Case": [
            {"Id": b.CASE_1, "Status": "Closed", "AccountId": ACCOUNT},
            {"Id": b.CASE_2, "Status": "Closed", "AccountId": ACCOUNT},
            {"Id": b.CASE_3, "Status": "New", "AccountId": ACCOUNT},
        ],
    }
    return write_org(tmp_path / "tiny.db", builtin_schema(), tables, meta={"name": "tiny"})


def _org_info(org: Org) -> dict[str, str]:
    return {"path": str(org.path), "digest": org.digest, "name": org.name}


def _compute(query: str, error: str | None = None) -> dict[str, Any]:
    return {
        "source": "console",
        "object": None,
        "query": query,
        "spec": {
            "aggregate": "avg",
            "group_by": "Account.ShippingState",
            "field": None,
            "start": "CreatedDate",
            "end": "ClosedDate",
            "unit": "hours",
        },
        "input_rows": 0 if error else 2,
        "skipped": 0,
        "columns": [] if error else ["Account.ShippingState", "n", "avg"],
        "rows": [] if error else [["NJ", 2, 3.5]],
        "groups": 0 if error else 1,
        "ms": 1.0,
        "error": error,
    }


SCRATCH = [
    (1.0, "view_value", {"source": "record", "object": "Case", "record": b.CASE_1,
                         "field": "Description", "length": 1234}),
    (1.0, "compute", _compute(NO_ID_QUERY)),
    (1.0, "compute", _compute("SELECT Nope FROM Case", error="no column 'Nope'")),
    (1.0, "copy", {"source": "compute", "object": None, "record": None,
                   "field": "Account.ShippingState", "what": "value", "value": "NJ", "length": 2}),
    (1.0, "note_edit", {"text": "= (1 + 2) / 2\nnj fastest"}),
    (1.0, "submit", b.submit("NJ", 1.0, "NJ")),
]  # fmt: skip


def test_collect_ids_reads_the_id_in_attributes_when_id_was_not_selected() -> None:
    records = [
        {
            "attributes": {"type": "Case", "url": f"/services/data/v60.0/sobjects/Case/{b.CASE_1}"},
            "Account": {
                "attributes": {
                    "type": "Account",
                    "url": f"/services/data/v60.0/sobjects/Account/{ACCOUNT}",
                },
                "ShippingState": "NJ",
            },
        },
        {"attributes": {"type": "AggregateResult"}, "expr0": 3},
    ]
    assert collect_ids(records) == {b.CASE_1, ACCOUNT}


def test_a_query_without_id_counts_its_rows_as_seen(org: Org) -> None:
    assert set(OrgResultIds(org)(NO_ID_QUERY) or ()) == {b.CASE_3, ACCOUNT}


def test_scratch_steps_are_steps_with_what_they_touched(org: Org, tmp_path: Path) -> None:
    rec = load(
        b.write_session(tmp_path / "r", b.HUMAN_A, b.BRI, SCRATCH, start=b.DAY1,
                        session_id="1" * 32, org=_org_info(org))
    )  # fmt: skip
    steps = extract_steps(rec, OrgResultIds(org))
    assert [s.kind for s in steps] == [
        "view_value",
        "compute",
        "compute",
        "copy",
        "note_edit",
        "submit",
    ]
    view, compute, failed, copy, note, _ = steps
    assert view.records == {b.CASE_1} and view.objects == {"Case"}
    assert view.label == f"view_value: Case.Description · {b.CASE_1} (1,234 chars)"
    assert compute.query == NO_ID_QUERY and compute.rows == 2
    assert compute.records == {b.CASE_3, ACCOUNT}  # the rows it read, found by re-running it
    assert "avg(ClosedDate - CreatedDate (hours)) by Account.ShippingState" in compute.label
    assert failed.error_code == "COMPUTE_ERROR" and failed.records == frozenset()
    assert copy.label == "copy: Account.ShippingState = 'NJ'"
    assert note.label == "note_edit: 2 line(s): '= (1 + 2) / 2 nj fastest'"
    summary = summarize(rec, steps)
    assert summary.scratch_steps == 5
    assert summary.queries == 0  # a compute is scratch work, not a query
    assert summary.to_dict()["scratch_steps"] == 5


def test_compare_counts_scratch_steps_and_a_query_without_id_is_evidence(
    org: Org, tmp_path: Path
) -> None:
    """The issue's case: a right answer from a query that selected no Id is not a lucky guess."""
    solutions = {"1040": {"solver": "best_region", "params": {}, "evidence": [b.CASE_3]}}
    human = load(
        b.write_session(tmp_path / "h", b.HUMAN_A, b.BRI, SCRATCH, start=b.DAY1,
                        session_id="2" * 32, org=_org_info(org))
    )  # fmt: skip
    typed = [
        (1.0, "run_query", b.run_query(NO_ID_QUERY, rows=1)),
        (1.0, "submit", b.submit("NJ", 1.0, "NJ")),
    ]
    model = load(
        b.write_session(tmp_path / "m", b.MODEL_A, b.BRI, typed, start=b.DAY1,
                        session_id="3" * 32, org=_org_info(org))
    )  # fmt: skip
    plain = compare([human, model], solutions)
    assert plain.evidence is not None
    assert [e.verdict for e in plain.evidence] == [LUCKY_GUESS, LUCKY_GUESS]
    runner = OrgResultIds(org)
    rerun = compare([human, model], solutions, [runner, runner])
    assert rerun.evidence is not None
    assert [e.verdict for e in rerun.evidence] == [SOLVED, SOLVED]
    assert len(rerun.steps[0]) == 6  # every scratch step is a step of the alignment
    markdown = comparison_markdown(rerun)
    assert "| Scratch steps | 5 | 0 |" in markdown
    assert "compute: avg(ClosedDate - CreatedDate (hours))" in markdown


def test_a_summary_shows_as_its_aggregate_soql_and_counts_the_rows_it_read(
    org: Org, tmp_path: Path
) -> None:
    """A report-style summary of a list view is laid beside a model's queries as the SOQL
    aggregate it equals; what it read is still every row of the view's query."""
    summary_query = (
        "SELECT Account.ShippingState, COUNT(Id) FROM Case WHERE Status = 'New' "
        "GROUP BY Account.ShippingState ORDER BY Account.ShippingState"
    )
    payload = _compute(NO_ID_QUERY)
    payload["spec"] = {**payload["spec"], "aggregate": "count", "start": None, "end": None,
                       "unit": None, "group_by2": "month(CreatedDate)"}  # fmt: skip
    payload["source"], payload["object"] = "table", "Case"
    payload["summary_query"] = summary_query
    events = [(1.0, "compute", payload), (1.0, "submit", b.submit("NJ", 1.0, "NJ"))]
    rec = load(
        b.write_session(tmp_path / "r", b.HUMAN_A, b.BRI, events, start=b.DAY1,
                        session_id="2" * 32, org=_org_info(org))
    )  # fmt: skip
    compute_step = extract_steps(rec, OrgResultIds(org))[0]
    assert compute_step.query == summary_query
    assert compute_step.records == {b.CASE_3, ACCOUNT}  # from the full-row query
    assert "by Account.ShippingState, month(CreatedDate)" in compute_step.label
