"""Top issue, monthly trend, named entity and best region on hand-built orgs."""

from __future__ import annotations

import pytest

from crmtui.org.solvers import (
    best_region,
    monthly_trend,
    named_entity,
    named_window,
    relative_window,
    top_issue,
)

WINTER_2020 = named_window("Winter", 2020)  # 2020-12-01 .. 2021-03-01


@pytest.fixture
def product_org():
    def case(cid, item, issue, created):
        return {
            "Id": cid,
            "OrderItemId__c": item,
            "IssueId__c": issue,
            "CreatedDate": created,
            "Status": "New",
        }

    return {
        "OrderItem": [
            {"Id": "oi1", "Product2Id": "P1", "OrderId": "o1"},
            {"Id": "oi2", "Product2Id": "P1", "OrderId": "o2"},
            {"Id": "oi3", "Product2Id": "P2", "OrderId": "o2"},
        ],
        "Case": [
            case("t1", "oi1", "I1", "2020-12-01T00:00:00.000+0000"),  # window start
            case("t2", "oi2", "I1", "2020-12-15T09:00:00.000+0000"),
            case("t3", "oi1", "I2", "2021-01-10T09:00:00.000+0000"),
            case("t4", "oi1", "I2", "2021-02-10T09:00:00.000+0000"),
            case("t5", "oi1", "I2", "2021-03-01T00:00:00.000+0000"),  # window end
            case("t6", "oi3", "I3", "2021-01-05T09:00:00.000+0000"),  # other product
            case("t7", "oi1", None, "2021-01-06T09:00:00.000+0000"),  # no issue
            case("t8", "oi2", "I1", "2020-11-30T23:59:00.000+0000"),  # before
        ],
    }


def test_top_issue_window_is_half_open(product_org):
    # I1: t1 (at the start, in), t2; I2: t3, t4; t5 (exactly at the end) is out: a 2-2 tie.
    result = top_issue(product_org, "P1", WINTER_2020.start, WINTER_2020.end)
    assert result.answer == ["I1", "I2"]
    # One second later the end takes t5 in and I2 leads 3-2.
    result = top_issue(product_org, "P1", WINTER_2020.start, "2021-03-01T00:00:01Z")
    assert (result.answer, result.evidence) == ("I2", ["t3", "t4", "t5"])
    assert result.detail["scores"] == {"I1": 2, "I2": 3}


def test_top_issue_none(product_org):
    winter_2021 = named_window("Winter", 2021)
    assert top_issue(product_org, "P1", winter_2021.start, winter_2021.end).answer is None
    assert top_issue(product_org, "P404", WINTER_2020.start, WINTER_2020.end).answer is None


def test_top_issue_tie(product_org):
    # Without the last day either, the two issues still tie 2-2.
    result = top_issue(product_org, "P1", "2020-12-01", "2021-02-28")
    assert result.answer == ["I1", "I2"]


def test_monthly_trend_winter_spans_years_and_excludes_end(product_org):
    # December: t1, t2; January: t3, t7; February: t4; t5 (March 1) is outside.
    result = monthly_trend(product_org, "P1", WINTER_2020.start, WINTER_2020.end)
    assert result.answer == ["January", "December"]
    assert sorted(result.evidence) == ["t1", "t2", "t3", "t7"]


def test_monthly_trend_relative_window(product_org):
    # Past 3 months from 2021-03-02: [2020-12-02, 2021-03-02) drops t1 and keeps t5.
    window = relative_window("2021-03-02", "month", 3)
    result = monthly_trend(product_org, "P1", window.start, window.end)
    assert (result.answer, result.evidence) == ("January", ["t3", "t7"])


def test_monthly_trend_none(product_org):
    assert monthly_trend(product_org, "P2", "2019-01-01", "2020-01-01").answer is None


@pytest.fixture
def purchase_org():
    return {
        "Contact": [
            {"Id": "k1", "AccountId": "acc1"},
            {"Id": "k2", "AccountId": "acc2"},
            {"Id": "k3", "AccountId": None},
        ],
        "Order": [
            {"Id": "o1", "AccountId": "acc1", "EffectiveDate": "2021-05-10", "Status": "Activated"},
            {"Id": "o2", "AccountId": "acc1", "EffectiveDate": "2021-05-10", "Status": "Draft"},
            {"Id": "o3", "AccountId": "acc2", "EffectiveDate": "2021-05-10", "Status": "Activated"},
            {"Id": "o4", "AccountId": "acc1", "EffectiveDate": "2021-05-03", "Status": "Activated"},
        ],
        "OrderItem": [
            {"Id": "oi1", "OrderId": "o1", "Product2Id": "P1"},
            {"Id": "oi2", "OrderId": "o1", "Product2Id": "P3"},
            {"Id": "oi3", "OrderId": "o2", "Product2Id": "P2"},
            {"Id": "oi4", "OrderId": "o3", "Product2Id": "P2"},
            {"Id": "oi5", "OrderId": "o4", "Product2Id": "P1"},
            {"Id": "oi6", "OrderId": "o4", "Product2Id": "P2"},
        ],
    }


def test_named_entity_matches_activated_order_of_the_contact(purchase_org):
    # P2 on that day is only in a Draft order of acc1 and in another account's order.
    result = named_entity(purchase_org, "k1", "2021-05-10", ["P1", "P2"])
    assert (result.answer, result.evidence) == ("P1", ["o1", "oi1"])
    assert named_entity(purchase_org, "k1", "2021-05-10T00:00:00Z", ["P1"]).answer == "P1"


def test_named_entity_none_and_tie(purchase_org):
    assert named_entity(purchase_org, "k1", "2021-05-11", ["P1", "P2"]).answer is None
    assert named_entity(purchase_org, "k1", "2021-05-10", ["P9"]).answer is None
    assert named_entity(purchase_org, "k3", "2021-05-10", ["P1"]).answer is None
    assert named_entity(purchase_org, "k404", "2021-05-10", ["P1"]).answer is None
    assert named_entity(purchase_org, "k1", "2021-05-03", ["P1", "P2"]).answer == ["P1", "P2"]


@pytest.fixture
def region_org():
    def case(cid, account, created, closed, status="Closed"):
        return {
            "Id": cid,
            "AccountId": account,
            "CreatedDate": created,
            "ClosedDate": closed,
            "Status": status,
        }

    return {
        "Account": [
            {"Id": "acc1", "ShippingState": "CA"},
            {"Id": "acc2", "ShippingState": "OR"},
            {"Id": "acc3", "ShippingState": None},
            {"Id": "acc4", "ShippingState": "NY"},
        ],
        "Case": [
            case("b1", "acc1", "2021-06-01T00:00:00Z", "2021-06-01T02:00:00Z"),  # at start
            case("b2", "acc1", "2021-07-01T00:00:00Z", "2021-07-01T04:00:00Z"),
            case("b3", "acc2", "2021-07-02T00:00:00Z", "2021-07-02T02:00:00Z"),
            case("b4", "acc2", "2021-09-01T00:00:00Z", "2021-09-05T04:00:00Z"),  # at end
            case("b5", "acc3", "2021-07-05T00:00:00Z", "2021-07-05T00:01:00Z"),  # no state
            case("b6", "acc4", "2021-07-05T00:00:00Z", None, status="Working"),
            case("b7", "acc4", "2021-05-31T23:59:00Z", "2021-06-01T00:00:00Z"),  # before
            case("b8", "acc4", "2021-07-10T00:00:00Z", "2021-07-10T02:00:00Z"),
            case("b9", "acc4", "2021-08-10T00:00:00Z", "2021-08-10T03:00:00Z"),
        ],
    }


def test_best_region_excludes_cases_created_at_the_end(region_org):
    # Summer 2021: CA 3 h (b1, b2), OR 2 h (b3; b4 starts at the end), NY 2.5 h (b8, b9).
    summer = named_window("Summer", 2021)
    result = best_region(region_org, summer.start, summer.end)
    assert (result.answer, result.evidence) == ("OR", ["acc2", "b3"])


def test_best_region_tie_and_none(region_org):
    july = named_window("July", 2021)
    assert best_region(region_org, july.start, july.end).answer == ["NY", "OR"]
    assert best_region(region_org, "2019-01-01", "2019-12-31").answer is None
