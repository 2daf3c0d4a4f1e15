"""Aggregates, GROUP BY, HAVING, ORDER BY, LIMIT/OFFSET and SELECT COUNT()."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from crmtui.query import QueryError, QueryResult

from .conftest import C, P, U

Rows = Callable[[str], list[dict[str, Any]]]


def test_aggregate_result_shape(q: Callable[[str], QueryResult]) -> None:
    result = q("SELECT Status, COUNT(Id) FROM Case GROUP BY Status ORDER BY Status")
    assert result.records[0] == {
        "attributes": {"type": "AggregateResult"},
        "Status": "Closed",
        "expr0": 7,
    }
    assert [(r["Status"], r["expr0"]) for r in result.records] == [
        ("Closed", 7),
        ("Escalated", 1),
        ("New", 3),
        ("Working", 1),
    ]
    assert result.total_size == 4
    assert result.columns == ["Status", "expr0"]


def test_numeric_aggregates(rows: Rows) -> None:
    got = rows(
        "SELECT SUM(Quantity), AVG(Quantity) avgQ, MIN(UnitPrice), MAX(UnitPrice), "
        "COUNT(Quantity), COUNT(Id), COUNT_DISTINCT(Product2Id) FROM OrderItem"
    )
    assert got == [
        {
            "expr0": 25.0,
            "avgQ": pytest.approx(25 / 9),
            "expr1": 9.5,
            "expr2": 240.0,
            "expr3": 9,
            "expr4": 10,
            "expr5": 4,
        }
    ]
    assert isinstance(got[0]["expr3"], int)


def test_group_by_order_by_aggregate(rows: Rows) -> None:
    got = rows(
        "SELECT Product2Id, SUM(Quantity) total FROM OrderItem GROUP BY Product2Id "
        "ORDER BY SUM(Quantity) DESC"
    )
    assert got == [
        {"Product2Id": P[2], "total": 17.0},
        {"Product2Id": P[0], "total": 4.0},
        {"Product2Id": P[1], "total": 3.0},
        {"Product2Id": P[3], "total": 1.0},
    ]


def test_having(rows: Rows) -> None:
    got = rows(
        "SELECT OwnerId, COUNT(Id) cnt FROM Case GROUP BY OwnerId HAVING COUNT(Id) > 3 "
        "ORDER BY OwnerId"
    )
    assert got == [{"OwnerId": U[0], "cnt": 4}, {"OwnerId": U[1], "cnt": 4}]
    got = rows("SELECT Status FROM Case GROUP BY Status HAVING Status LIKE 'W%'")
    assert got == [{"Status": "Working"}]


def test_group_by_relationship_field_uses_last_name(rows: Rows) -> None:
    got = rows(
        "SELECT Account.ShippingState, COUNT(Id) FROM Case GROUP BY Account.ShippingState "
        "ORDER BY COUNT(Id) DESC"
    )
    assert got == [
        {"ShippingState": "CA", "expr0": 5},
        {"ShippingState": "NY", "expr0": 4},
        {"ShippingState": "TX", "expr0": 2},
        {"ShippingState": None, "expr0": 1},
    ]


def test_group_by_date_function(rows: Rows) -> None:
    got = rows(
        "SELECT CALENDAR_YEAR(CreatedDate), COUNT(Id) FROM Case "
        "GROUP BY CALENDAR_YEAR(CreatedDate) ORDER BY CALENDAR_YEAR(CreatedDate)"
    )
    assert got == [{"expr0": 2023, "expr1": 2}, {"expr0": 2024, "expr1": 10}]
    got = rows(
        "SELECT DAY_ONLY(CreatedDate) d, COUNT(Id) n FROM Case WHERE CreatedDate = THIS_WEEK "
        "GROUP BY DAY_ONLY(CreatedDate) ORDER BY DAY_ONLY(CreatedDate) DESC"
    )
    assert got == [
        {"d": "2024-05-16", "n": 1},
        {"d": "2024-05-15", "n": 1},
        {"d": "2024-05-14", "n": 1},
        {"d": "2024-05-12", "n": 1},
    ]


def test_select_count(q: Callable[[str], QueryResult]) -> None:
    result = q("SELECT COUNT() FROM Case WHERE Status = 'Closed'")
    assert result.to_salesforce() == {"totalSize": 7, "done": True, "records": []}
    assert result.is_count
    assert q("SELECT COUNT() FROM Case LIMIT 5").total_size == 5
    assert q("SELECT COUNT() FROM Case GROUP BY Status").total_size == 4


def test_order_by_nulls_defaults_and_overrides(ids: Callable[[str], list[str]]) -> None:
    nulls = [C[i] for i in (0, 11, 2, 5, 8)]  # null ClosedDate, by Subject
    closed = [C[i] for i in (10, 9, 7, 6, 4, 3, 1)]  # by ClosedDate ascending
    assert ids("SELECT Id FROM Case ORDER BY ClosedDate, Subject") == nulls + closed
    assert ids("SELECT Id FROM Case ORDER BY ClosedDate DESC, Subject") == closed[::-1] + nulls
    assert ids("SELECT Id FROM Case ORDER BY ClosedDate ASC NULLS LAST, Subject") == (
        closed + nulls
    )
    assert ids("SELECT Id FROM Case ORDER BY ClosedDate DESC NULLS FIRST, Subject") == (
        nulls + closed[::-1]
    )


def test_order_by_number_casts_and_offset(ids: Callable[[str], list[str]]) -> None:
    from .conftest import OI

    assert ids("SELECT Id FROM OrderItem ORDER BY Quantity DESC NULLS LAST LIMIT 3") == [
        OI[6],
        OI[8],
        OI[2],
    ]
    assert ids("SELECT Id FROM Case ORDER BY CreatedDate LIMIT 2 OFFSET 1") == [C[9], C[8]]
    assert ids("SELECT Id FROM Case ORDER BY CreatedDate OFFSET 10") == [C[0], C[11]]


@pytest.mark.parametrize(
    ("text", "code", "message"),
    [
        (
            "SELECT Subject, COUNT(Id) FROM Case",
            "MALFORMED_QUERY",
            "Field must be grouped or aggregated: Subject",
        ),
        (
            "SELECT Status, Subject FROM Case GROUP BY Status",
            "MALFORMED_QUERY",
            "Field must be grouped or aggregated: Subject",
        ),
        (
            "SELECT Status FROM Case GROUP BY Status ORDER BY Subject",
            "MALFORMED_QUERY",
            "Ordered field must be grouped or aggregated: Subject",
        ),
        (
            "SELECT Id, COUNT() FROM Case",
            "MALFORMED_QUERY",
            "COUNT() must be the only element in the SELECT list",
        ),
        (
            "SELECT SUM(Subject) FROM Case",
            "INVALID_FIELD",
            "field Subject does not support aggregate operator SUM",
        ),
        (
            "SELECT MAX(IsActive) FROM Product2",
            "INVALID_FIELD",
            "field IsActive does not support aggregate operator MAX",
        ),
        (
            "SELECT CALENDAR_YEAR(CreatedDate) FROM Case",
            "MALFORMED_QUERY",
            "CALENDAR_YEAR(CreatedDate) is only allowed in aggregate queries",
        ),
        (
            "SELECT COUNT(Id), (SELECT Id FROM Cases) FROM Account",
            "MALFORMED_QUERY",
            "Child subqueries are not allowed in aggregate queries",
        ),
        (
            "SELECT Id FROM Case OFFSET 2001",
            "NUMBER_OUTSIDE_VALID_RANGE",
            "Maximum SOQL offset allowed is 2000",
        ),
        ("SELECT FOO(Id) FROM Case GROUP BY Id", "MALFORMED_QUERY", "Unknown function: FOO"),
        (
            "SELECT CreatedDate, COUNT(Id) FROM Case GROUP BY CreatedDate",
            "INVALID_FIELD",
            "field 'CreatedDate' can not be grouped in a query call. Group by a date function "
            "instead, e.g. GROUP BY DAY_ONLY(CreatedDate)",
        ),
    ],
)
def test_aggregate_errors(
    q: Callable[[str], QueryResult], text: str, code: str, message: str
) -> None:
    with pytest.raises(QueryError) as info:
        q(text)
    assert info.value.code == code
    assert info.value.message.startswith(message)


def test_mixed_boolean_spellings_sort_and_group_as_two_values(rows: Rows) -> None:
    # The fixture stores IsActive as '1', 'true', '0' and 'False'.
    ordered = rows("SELECT Name, IsActive FROM Product2 ORDER BY IsActive, Name")
    assert [(r["IsActive"], r["Name"]) for r in ordered] == [
        (False, "Tent_2P"),
        (False, "Wool Sock"),
        (True, "Rain Jacket"),
        (True, "Trail Shoe"),
    ]
    descending = rows("SELECT Name FROM Product2 ORDER BY IsActive DESC, Name LIMIT 2")
    assert [r["Name"] for r in descending] == ["Rain Jacket", "Trail Shoe"]
    grouped = rows("SELECT IsActive, COUNT(Id) n FROM Product2 GROUP BY IsActive ORDER BY IsActive")
    assert grouped == [{"IsActive": False, "n": 2}, {"IsActive": True, "n": 2}]
    assert rows("SELECT COUNT_DISTINCT(IsActive) FROM Product2") == [{"expr0": 2}]
    having = rows(
        "SELECT IsActive, COUNT(Id) FROM Product2 WHERE IsActive = true GROUP BY IsActive"
    )
    assert having == [{"IsActive": True, "expr0": 2}]
