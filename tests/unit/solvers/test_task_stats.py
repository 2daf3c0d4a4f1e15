"""task_stats and check_targets on hand-made tiny orgs with known figures."""

from __future__ import annotations

import sqlite3
from types import SimpleNamespace

import pytest

from crmtui.org.solvers import index_tables
from crmtui.org.task_stats import (
    TypeStats,
    check_targets,
    margin,
    read_org_tables,
    task_stats,
)

A, B, C = "005A", "005B", "005C"


def _case(cid, created, closed, *, owner=A, account="ca", item="oi1", issue="I1", subject=""):
    return {
        "Id": cid,
        "OwnerId": owner,
        "Status": "Closed" if closed else "Working",
        "CreatedDate": created,
        "ClosedDate": closed,
        "AccountId": account,
        "OrderItemId__c": item,
        "IssueId__c": issue,
        "Subject": subject,
    }


@pytest.fixture
def tables():
    jan = "2022-01-{:02d}T10:00:05Z"
    cases = [
        # P1 in January 2022: I1 three times, I2 once; CA closes in 2 h, NY in 5 h.
        _case("c1", jan.format(3), "2022-01-03T12:00:05Z", subject="Zip broke"),
        _case("c2", jan.format(5), "2022-01-05T12:00:05Z"),
        _case("c3", jan.format(7), "2022-01-07T12:00:05Z", owner=B),
        _case("c4", jan.format(9), "2022-01-09T15:00:05Z", account="ny", issue="I2"),
        # P1 in February 2022: two cases of I2.
        _case("c5", "2022-02-02T10:00:05Z", None, issue="I2"),
        _case("c6", "2022-02-03T10:00:05Z", None, owner=C, issue="I2"),
    ]
    return {
        "Case": cases,
        "Account": [{"Id": "ca", "ShippingState": "CA"}, {"Id": "ny", "ShippingState": "NY"}],
        "OrderItem": [{"Id": "oi1", "Product2Id": "P1", "OrderId": "o1"}],
    }


JAN = {"start": "2022-01-01T00:00:00Z", "end": "2022-02-01T00:00:00Z"}
JAN_FEB = {"start": "2022-01-01T00:00:00Z", "end": "2022-03-01T00:00:00Z"}
FEB = {"start": "2022-02-01T00:00:00Z", "end": "2022-03-01T00:00:00Z"}
MARCH = {"start": "2022-03-01T00:00:00Z", "end": "2022-04-01T00:00:00Z"}


def _inst(idx, task, answer, query=""):
    return SimpleNamespace(idx=idx, task=task, answer=answer, query=query)


@pytest.fixture
def task_set():
    routing = "Apply the policy.\n## Given Case\n- Case Subject: {}\n- Case Description: x"
    return [
        _inst(0, "top_issue_identification", "I1"),
        _inst(1, "top_issue_identification", "I2"),
        _inst(2, "top_issue_identification", None),
        _inst(3, "best_region_identification", "CA"),
        _inst(4, "monthly_trend_analysis", "January"),
        _inst(5, "case_routing", A, routing.format("Zip broke")),
        _inst(6, "case_routing", A, routing.format("A brand new subject")),
    ]


@pytest.fixture
def solutions():
    return {
        "0": {"solver": "top_issue", "params": {"product_id": "P1", **JAN}},
        "1": {"solver": "top_issue", "params": {"product_id": "P1", **FEB}},
        "2": {"solver": "top_issue", "params": {"product_id": "P1", **MARCH}},
        "3": {"solver": "best_region", "params": JAN},
        "4": {"solver": "monthly_trend", "params": {"product_id": "P1", **JAN_FEB}},
        "5": {"solver": "case_routing", "params": {"issue_id": "I1", "product_id": "P1"}},
        "6": {"solver": "case_routing", "params": {"issue_id": "I1", "product_id": "P1"}},
    }


def _by_task(stats):
    return {item.task: item for item in stats}


def test_distribution_only_without_solutions(task_set):
    stats = _by_task(task_stats(task_set))
    tii = stats["top_issue_identification"]
    assert (tii.instances, tii.answered, tii.distinct) == (3, 2, 2)
    assert tii.none_share == pytest.approx(1 / 3)
    assert tii.top3_share == 1.0
    assert tii.single_share is None and tii.evidence_median is None and tii.mismatches is None
    assert list(stats) == [
        "top_issue_identification",
        "best_region_identification",
        "monthly_trend_analysis",
        "case_routing",
    ]


def test_rankings_from_a_rerun_on_the_org(task_set, solutions, tables):
    subjects = [row["Subject"] for row in tables["Case"]]
    stats = _by_task(task_stats(task_set, solutions, index_tables(tables), subjects))
    tii = stats["top_issue_identification"]
    # idx 0: I1 3 vs I2 1 (clear); idx 1: February has only I2 (a single candidate).
    assert (tii.ranked, tii.single_share, tii.close_share, tii.ties) == (2, 0.5, 0.0, 0)
    assert tii.evidence_median == 2.5  # 3 cases for idx 0, 2 for idx 1
    assert tii.mismatches == 0
    bri = stats["best_region_identification"]
    assert (bri.single_share, bri.close_share) == (0.0, 0.0)
    assert bri.extras == {"winner_3_cases": 1.0}  # CA rests on c1, c2, c3
    mta = stats["monthly_trend_analysis"]
    # January 4, February 2: a clear winner, but only two months have cases.
    assert (mta.close_share, mta.extras) == (0.0, {"months_3": 0.0})
    ncr = stats["case_routing"]
    assert ncr.single_share is None  # not an argmax type: rules instead
    assert ncr.extras == {"rule_1": 1.0, "rule_2": 0.0, "rule_3": 0.0, "subject_reused": 1.0}


def test_rerun_counts_gold_answers_that_no_longer_agree(task_set, solutions, tables):
    task_set[3] = _inst(3, "best_region_identification", "NY")
    stats = _by_task(task_stats(task_set, solutions, index_tables(tables)))
    assert stats["best_region_identification"].mismatches == 1
    assert stats["top_issue_identification"].mismatches == 0


def test_recorded_rankings_are_used_without_an_org(task_set):
    solutions = {
        "0": {
            "solver": "top_issue",
            "evidence": ["c1", "c2"],
            "detail": {"scores": {"I1": 5, "I2": 4}, "better": "max", "kind": "count"},
        },
        "1": {
            "solver": "top_issue",
            "evidence": ["c4"],
            "detail": {"scores": {"I1": 2, "I2": 2}, "better": "max", "kind": "count"},
        },
    }
    tii = _by_task(task_stats(task_set, solutions))["top_issue_identification"]
    assert (tii.solved, tii.ranked, tii.close_share, tii.ties) == (2, 2, 1.0, 1)
    assert tii.mismatches is None


def test_margins_of_averages_and_counts():
    def detail(scores, better="min", kind="average"):
        return {"scores": scores, "better": better, "kind": kind}

    assert margin(detail({"x": 10.0})) == "single"
    assert margin(detail({"x": 10.0, "y": 10.1})) == "close"  # within 1% of the best
    assert margin(detail({"x": 10.0, "y": 10.2})) == "clear"
    assert margin(detail({"x": 10.0, "y": 10.0})) == "tie"
    assert margin(detail({"x": 5, "y": 4}, "max", "count")) == "close"
    assert margin(detail({"x": 6, "y": 4}, "max", "count")) == "clear"
    assert margin(detail({"x": 1, "y": 3}, "min", "count")) == "clear"


def test_check_targets_flags_what_misses():
    good = TypeStats("transfer_count", 10, 7, 0.3, 5, 0.5, 7, 7, 0.0, 0.0, 0)
    bad = TypeStats("best_region_identification", 10, 10, 0.2, 5, 0.5, 10, 10, 0.2, 0.0, 1)
    bad = TypeStats(**{**bad.to_json(), "extras": {"winner_3_cases": 0.5}})
    checks = check_targets([good, bad])
    assert all(c.ok for c in checks if c.task == "transfer_count")
    failed = {c.target for c in checks if not c.ok}
    assert failed == {
        "single-candidate share",
        "exact ties",
        "winner rests on >= 3 cases",
        "None share vs the real file (gap)",
    }


def test_read_org_tables_reads_only_present_columns(tables):
    conn = sqlite3.connect(":memory:")
    conn.execute('CREATE TABLE "Account" ("Id" TEXT, "ShippingState" TEXT, "Name" TEXT)')
    conn.execute("INSERT INTO Account VALUES ('ca', 'CA', 'x')")
    conn.execute('CREATE TABLE "Contact" ("Id" TEXT)')
    conn.execute("INSERT INTO Contact VALUES ('k1')")
    read = read_org_tables(conn, {"Account": ["Id", "ShippingState", "Name"], "Contact": ["Id"]})
    assert read == {"Account": [{"Id": "ca", "ShippingState": "CA"}], "Contact": [{"Id": "k1"}]}
