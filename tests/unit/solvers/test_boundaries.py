"""The solvers against the stated conventions on boundary fixtures.

Conventions (as the generated tasks state them): a period is ``[start, end)`` and "the past N
units" ends at 00:00:00 of today, excluded; a case belongs to a period by its CreatedDate, a
history row by its own CreatedDate; closures and transfers count wherever they fall, also
after the period or after today; a case with more than one Owner Assignment in its whole
history is a transferred case. Two regression tests pin gold errors of the first generator.
"""

from __future__ import annotations

from crmtui.org.solvers import (
    best_region,
    handle_time,
    monthly_trend,
    named_entity,
    relative_window,
    top_issue,
    transfer_count,
)

A, B, C = "005A", "005B", "005C"
TODAY = "2022-06-15"
PAST_MONTH = relative_window(TODAY, "month", 1)  # [2022-05-15, 2022-06-15)


def _case(cid, owner, created, closed=None, account="acc1", item="oi1", issue="I1"):
    return {
        "Id": cid,
        "OwnerId": owner,
        "CreatedDate": created,
        "ClosedDate": closed,
        "Status": "Closed" if closed else "Working",
        "AccountId": account,
        "OrderItemId__c": item,
        "IssueId__c": issue,
    }


def _oa(hid, case, when, new, old=None):
    return {
        "Id": hid,
        "CaseId__c": case,
        "CreatedDate": when,
        "Field__c": "Owner Assignment",
        "NewValue__c": new,
        "OldValue__c": old,
    }


def test_regression_case_transferred_after_the_period_is_not_credited_to_the_receiver():
    # Seed 7 idx 695 (stress): a case opened by A in the period, handed to B after it ended.
    # Counting only history rows inside the window made it look never transferred, and its
    # handle time (626 h) went to B, its final owner, who then had the longest average.
    tables = {
        "Case": [
            _case("k1", A, "2022-05-20T10:00:05Z", "2022-05-22T10:00:05Z"),  # A: 48 h
            _case("k2", B, "2022-05-21T10:00:05Z", "2022-06-16T12:00:05Z"),  # A -> B on 06-16
            _case("k3", B, "2022-05-23T10:00:05Z", "2022-05-24T10:00:05Z"),  # B: 24 h
        ],
        "CaseHistory__c": [
            _oa("h1", "k1", "2022-05-20T10:05:05Z", A),
            _oa("h2", "k2", "2022-05-21T10:05:05Z", A),
            _oa("h2b", "k2", "2022-06-16T09:00:05Z", B, A),
            _oa("h3", "k3", "2022-05-23T10:05:05Z", B),
        ],
    }
    slow = handle_time(tables, PAST_MONTH.start, PAST_MONTH.end, 0, "max")
    assert slow.answer == A
    assert slow.detail["scores"] == {A: 48.0, B: 24.0}
    assert slow.detail["support"] == {A: 1, B: 1}  # k2 counts for nobody


def test_regression_transfer_at_midnight_of_today_is_outside_the_past_period():
    # Seed 205 idx 879 (full): a transfer stamped exactly 00:00:00 of today was counted in a
    # period that "ends at the start of today's date".
    history = [
        _oa("h1", "k1", "2022-06-01T09:00:05Z", A),
        _oa("h1b", "k1", "2022-06-02T09:00:05Z", B, A),
        _oa("h2", "k2", "2022-06-03T09:00:05Z", C),
        _oa("h2b", "k2", "2022-06-04T09:00:05Z", A, C),
        _oa("h3", "k3", "2022-06-05T09:00:05Z", C),
        _oa("h3b", "k3", "2022-06-15T00:00:00Z", B, C),  # exactly at the window's end
    ]
    most = transfer_count({"CaseHistory__c": history}, PAST_MONTH.start, PAST_MONTH.end, 0, "max")
    assert most.answer == [A, C]  # one each; C's midnight transfer would have made C win
    one_more_second = transfer_count(
        {"CaseHistory__c": history}, PAST_MONTH.start, "2022-06-15T00:00:01Z", 0, "max"
    )
    assert one_more_second.answer == C


def test_events_exactly_at_midnight_belong_to_the_period_they_start():
    cases = [
        _case("s1", A, "2022-05-15T00:00:00Z", "2022-05-15T01:00:00Z", account="ca"),  # start
        _case("e1", A, "2022-06-15T00:00:00Z", "2022-06-15T00:10:00Z", account="ny"),  # end
        _case("m1", A, "2022-05-30T12:00:00Z", "2022-05-30T15:00:00Z", account="ny"),
        _case("m2", B, "2022-06-01T00:00:00Z", "2022-06-01T03:00:00Z", account="ca", issue="I2"),
    ]
    tables = {
        "Case": cases,
        "Account": [{"Id": "ca", "ShippingState": "CA"}, {"Id": "ny", "ShippingState": "NY"}],
        "OrderItem": [{"Id": "oi1", "Product2Id": "P1", "OrderId": "o1"}],
    }
    # s1 (1 h, at the start) is in; e1 (10 min, at the end) is out: CA 2 h beats NY 3 h.
    region = best_region(tables, PAST_MONTH.start, PAST_MONTH.end)
    assert region.answer == "CA"
    assert region.detail["support"] == {"CA": 2, "NY": 1}
    # May: s1, m1; June: m2 (its midnight is the first moment of June); e1 is out.
    trend = monthly_trend(tables, "P1", PAST_MONTH.start, PAST_MONTH.end)
    assert trend.answer == "May"
    assert trend.detail["scores"] == {"June": 1, "May": 2}
    assert top_issue(tables, "P1", PAST_MONTH.start, PAST_MONTH.end).answer == "I1"


def test_closures_after_the_period_and_after_today_still_count():
    # Membership is by CreatedDate; a closure dated after today is read from the org as is.
    cases = [
        _case("q1", A, "2022-06-10T08:00:05Z", "2022-06-20T08:00:05Z", account="ca"),  # 240 h
        _case("q2", A, "2022-06-11T08:00:05Z", "2022-06-11T09:00:05Z", account="ny"),  # 1 h
        _case("q3", B, "2022-06-12T08:00:05Z", account="ny"),  # still open: not counted
    ]
    tables = {
        "Case": cases,
        "Account": [{"Id": "ca", "ShippingState": "CA"}, {"Id": "ny", "ShippingState": "NY"}],
        "CaseHistory__c": [
            _oa("h1", "q1", "2022-06-10T08:01:05Z", A),
            _oa("h2", "q2", "2022-06-11T08:01:05Z", A),
            _oa("h3", "q3", "2022-06-12T08:01:05Z", B),
        ],
    }
    region = best_region(tables, PAST_MONTH.start, PAST_MONTH.end)
    assert region.detail["scores"] == {"CA": 240.0, "NY": 1.0}
    slow = handle_time(tables, PAST_MONTH.start, PAST_MONTH.end, 0, "max")
    assert slow.answer == A
    assert slow.detail["scores"] == {A: 120.5}


def test_transfers_after_today_are_not_in_the_period_but_still_make_a_case_transferred():
    tables = {
        "Case": [
            _case("t1", B, "2022-06-01T08:00:05Z", "2022-06-03T08:00:05Z"),
            _case("t2", A, "2022-06-02T08:00:05Z", "2022-06-02T10:00:05Z"),
        ],
        "CaseHistory__c": [
            _oa("h1", "t1", "2022-06-01T08:01:05Z", A),
            _oa("h1b", "t1", "2022-06-20T08:01:05Z", B, A),  # after today
            _oa("h2", "t2", "2022-06-02T08:01:05Z", A),
        ],
    }
    # No transfer is dated in the period ...
    assert transfer_count(tables, PAST_MONTH.start, PAST_MONTH.end, 0, "max").answer is None
    # ... yet t1 has two Owner Assignments, so only t2 counts for handle time.
    result = handle_time(tables, PAST_MONTH.start, PAST_MONTH.end, 0, "min")
    assert result.detail["scores"] == {A: 2.0}


def test_named_entity_months_are_calendar_months_clamped_to_the_month_end():
    tables = {
        "Contact": [{"Id": "k1", "AccountId": "acc1"}],
        "Order": [
            {"Id": "o1", "AccountId": "acc1", "EffectiveDate": "2022-02-28", "Status": "Activated"},
            {"Id": "o2", "AccountId": "acc1", "EffectiveDate": "2022-03-01", "Status": "Activated"},
        ],
        "OrderItem": [
            {"Id": "i1", "OrderId": "o1", "Product2Id": "P1"},
            {"Id": "i2", "OrderId": "o2", "Product2Id": "P2"},
        ],
    }
    # "A month ago" on 2022-03-31 is 2022-02-28 (no February 31), not 30 days back (03-01).
    bought = relative_window("2022-03-31", "month", 1).start
    assert bought.date().isoformat() == "2022-02-28"
    assert named_entity(tables, "k1", bought, ["P1", "P2"]).answer == "P1"
    thirty_days = relative_window("2022-03-31", "day", 30).start
    assert named_entity(tables, "k1", thirty_days, ["P1", "P2"]).answer == "P2"
