"""Handle time, transfer count and case routing on tiny hand-built orgs with known answers.

The main fixture covers Q1 2021 = [2021-01-01, 2021-04-01). Agents A, B, C, D. Owner
Assignment rows (case, time, new owner, previous owner):

    h1  c1 01-05 10:00 A -      h5  c5 03-01 00:00 B -      h9a c9 03-10 A -
    h2  c2 02-01 00:00 A -      h6a c6 02-10 00:00 C -      h9b c9 03-11 B <- A
    h3  c3 01-10 08:00 B -      h6b c6 02-10 01:00 D <- C   h8  c8 04-01 00:00 A -  (at end)
    h4a c4 01-11 08:00 C -      h7  c7 02-15 00:00 D -      h0  c0 2020-12-31 B -  (before)
    h4b c4 01-11 09:00 B <- C

First assignments in the window: A 3 (h1 h2 h9a; h8 is at the excluded end), B 2, C 2, D 1.
Counting every Owner Assignment row instead would give B 4 and D 2, which the traps below
catch.
"""

from __future__ import annotations

import pytest

from crmtui.org.solvers import (
    SolverError,
    case_routing,
    handle_time,
    named_window,
    transfer_count,
)

A, B, C, D = "005A", "005B", "005C", "005D"
Q1 = named_window("Q1", 2021)


def _case(cid, owner, created, closed=None, status="Closed", **extra):
    return {
        "Id": cid,
        "OwnerId": owner,
        "CreatedDate": created,
        "ClosedDate": closed,
        "Status": status,
        **extra,
    }


def _oa(hid, case, when, new, old=None, field="Owner Assignment"):
    return {
        "Id": hid,
        "CaseId__c": case,
        "CreatedDate": when,
        "Field__c": field,
        "NewValue__c": new,
        "OldValue__c": old,
    }


@pytest.fixture
def agent_org():
    cases = [
        _case("c0", B, "2020-12-31T23:59:00.000+0000", "2021-01-01T00:30:00.000+0000"),
        _case("c1", A, "2021-01-05T10:00:00.000+0000", "2021-01-05T12:00:00.000+0000"),
        _case("c2", A, "2021-02-01T00:00:00.000+0000", "2021-02-01T06:00:00.000+0000"),
        _case("c3", B, "2021-01-10T08:00:00.000+0000", "2021-01-10T09:00:00.000+0000"),
        # transferred C -> B, very long: including it would make B the slowest agent
        _case("c4", B, "2021-01-11T08:00:00.000+0000", "2021-01-18T08:00:00.000+0000"),
        _case("c5", B, "2021-03-01T00:00:00.000+0000", "2021-03-01T01:00:00.000+0000"),
        _case("c6", D, "2021-02-10T00:00:00.000+0000", "2021-02-10T03:00:00.000+0000"),
        # D's only own case is very quick: D must not qualify for "more than 1 case"
        _case("c7", D, "2021-02-15T00:00:00.000+0000", "2021-02-15T00:05:00.000+0000"),
        _case("c8", A, "2021-04-01T00:00:00.000+0000", "2021-04-01T00:01:00.000+0000"),
        _case("c9", B, "2021-03-10T00:00:00.000+0000", status="Working"),
    ]
    history = [
        _oa("h0", "c0", "2020-12-31T23:59:00.000+0000", B),
        _oa("h1", "c1", "2021-01-05T10:00:00.000+0000", A),
        _oa("h1c", "c1", "2021-01-05T10:00:00.000+0000", None, field="Case Creation"),
        _oa("h2", "c2", "2021-02-01T00:00:00.000+0000", A),
        _oa("h3", "c3", "2021-01-10T08:00:00.000+0000", B),
        _oa("h4a", "c4", "2021-01-11T08:00:00.000+0000", C),
        _oa("h4b", "c4", "2021-01-11T09:00:00.000+0000", B, C),
        _oa("h5", "c5", "2021-03-01T00:00:00.000+0000", B),
        _oa("h6a", "c6", "2021-02-10T00:00:00.000+0000", C),
        _oa("h6b", "c6", "2021-02-10T01:00:00.000+0000", D, C),
        _oa("h7", "c7", "2021-02-15T00:00:00.000+0000", D),
        _oa("h9a", "c9", "2021-03-10T00:00:00.000+0000", A),
        _oa("h9b", "c9", "2021-03-11T00:00:00.000+0000", B, A),
        _oa("h8", "c8", "2021-04-01T00:00:00.000+0000", A),
    ]
    return {"Case": cases, "CaseHistory__c": history}


def test_handle_time_min_skips_agent_qualified_only_by_a_transfer(agent_org):
    # A 240 min (c1 120, c2 360), B 60 min (c3, c5); D (5 min) has one own case only.
    result = handle_time(agent_org, Q1.start, Q1.end, 1, "min")
    assert result.answer == B
    assert result.evidence == ["c3", "c5", "h3", "h5"]


def test_handle_time_max_leaves_out_transferred_cases(agent_org):
    # With c4 (7 days) counted, B would average 3400 min and win; without it A wins.
    assert handle_time(agent_org, Q1.start, Q1.end, 1, "max").answer == A


def test_handle_time_history_window_end_is_exclusive(agent_org):
    # First assignments in [start, end): A 3 (h1 h2 h9a; h8 at exactly the end is out),
    # B 2, C 2. Counting every assignment row would let B (4 rows, 60 min) in as well.
    result = handle_time(agent_org, Q1.start, Q1.end, 2, "min")
    assert result.answer == A
    assert result.evidence == ["c1", "c2", "h1", "h2", "h9a"]
    assert handle_time(agent_org, Q1.start, Q1.end, 3, "min").answer is None


def test_handle_time_none_when_nobody_qualifies(agent_org):
    assert handle_time(agent_org, Q1.start, Q1.end, 4, "min").answer is None
    assert handle_time(agent_org, "2019-01-01", "2019-02-01", 0, "max").answer is None


def test_handle_time_accepts_iso_strings(agent_org):
    result = handle_time(agent_org, "2021-01-01T00:00:00Z", "2021-04-01T00:00:00Z", 1, "max")
    assert result.answer == A


def test_handle_time_tie_returns_sorted_list():
    tables = {
        "Case": [
            _case("x1", B, "2022-01-03T00:00:00Z", "2022-01-03T01:00:00Z"),
            _case("x2", A, "2022-01-04T00:00:00Z", "2022-01-04T01:00:00Z"),
        ],
        "CaseHistory__c": [
            _oa("y1", "x1", "2022-01-03T00:00:00Z", B),
            _oa("y2", "x2", "2022-01-04T00:00:00Z", A),
        ],
    }
    result = handle_time(tables, "2022-01-01", "2022-02-01", 0, "min")
    assert result.answer == [A, B]
    assert result.evidence == ["x1", "x2", "y1", "y2"]


def test_handle_time_rejects_bad_mode_and_count(agent_org):
    with pytest.raises(SolverError, match="mode"):
        handle_time(agent_org, Q1.start, Q1.end, 1, "median")
    with pytest.raises(SolverError, match="n_cases"):
        handle_time(agent_org, Q1.start, Q1.end, -1, "min")


def test_transfer_count_counts_the_agent_handing_over(agent_org):
    # Transfers in Q1: C twice (h4b, h6b), A once (h9b). B never transferred: not ranked.
    low = transfer_count(agent_org, Q1.start, Q1.end, 1, "min")
    assert low.answer == A
    assert low.evidence == ["h1", "h2", "h9a", "h9b"]
    assert low.detail["scores"] == {A: 1, C: 2}
    assert transfer_count(agent_org, Q1.start, Q1.end, 1, "max").answer == C


def test_transfer_count_filter_and_none(agent_org):
    # More than 2 first assignments: only A (3; h8 at the window end does not count).
    assert transfer_count(agent_org, Q1.start, Q1.end, 2, "max").answer == A
    # Early January: only h1 and h3, no transfer at all.
    assert transfer_count(agent_org, "2021-01-01", "2021-01-11", 0, "max").answer is None


def test_transfer_count_tie():
    history = [
        _oa("z1", "k1", "2022-05-01T00:00:00Z", A),
        _oa("z2", "k1", "2022-05-02T00:00:00Z", B, A),
        _oa("z3", "k2", "2022-05-03T00:00:00Z", B),
        _oa("z4", "k2", "2022-05-04T00:00:00Z", A, B),
    ]
    result = transfer_count({"CaseHistory__c": history}, "2022-05-01", "2022-06-01", 0, "max")
    assert result.answer == [A, B]


@pytest.fixture
def routing_org():
    def case(cid, owner, issue, item, status="Closed"):
        return {
            "Id": cid,
            "OwnerId": owner,
            "IssueId__c": issue,
            "OrderItemId__c": item,
            "Status": status,
            "CreatedDate": "2021-01-01T00:00:00Z",
        }

    return {
        "Case": [
            case("r1", A, "I1", "oi1"),
            case("r2", A, "I1", "oi2"),
            case("r3", B, "I1", "oi1"),
            case("r4", B, "I1", "oi1"),
            case("r5", C, "I1", "oi2"),
            case("r6", C, "I1", "oi1", status="Working"),
            case("r7", A, "I2", "oi1"),
            case("r8", B, "I2", "oi2", status="Escalated"),
        ],
        "OrderItem": [
            {"Id": "oi1", "Product2Id": "P1", "OrderId": "o1"},
            {"Id": "oi2", "Product2Id": "P2", "OrderId": "o1"},
        ],
    }


def test_routing_issue_expertise_decides(routing_org):
    result = case_routing(routing_org, "I2", "P1")
    assert (result.answer, result.evidence) == (A, ["r7"])


def test_routing_product_expertise_breaks_issue_tie(routing_org):
    # I1 closed: A 2, B 2, C 1 (r6 is not closed). P2 closed among A, B: A 1, B 0.
    result = case_routing(routing_org, "I1", "P2")
    assert (result.answer, result.evidence) == (A, ["r1", "r2"])


def test_routing_workload_breaks_product_tie(routing_org):
    # P1 closed: A 2 (r1, r7), B 2 (r3, r4); B has one case not closed (r8, Escalated).
    result = case_routing(routing_org, "I1", "P1")
    assert (result.answer, result.evidence) == (A, ["r1", "r2", "r7"])


def test_routing_none_and_full_tie(routing_org):
    assert case_routing(routing_org, "I9", "P1").answer is None
    tables = {
        "Case": [
            {"Id": "q1", "OwnerId": B, "IssueId__c": "I5", "Status": "Closed"},
            {"Id": "q2", "OwnerId": A, "IssueId__c": "I5", "Status": "Closed"},
        ]
    }
    assert case_routing(tables, "I5", "P9").answer == [A, B]
