"""read_columns: a query's columns read straight from its rows equal its records' values."""

from __future__ import annotations

from typing import Any

import pytest

from crmtui.query import QueryError, execute_soql, read_columns
from tests.unit.query.conftest import TODAY

QUERIES = [
    "SELECT Id, Subject, CreatedDate, ClosedDate, Status FROM Case ORDER BY Id",
    "SELECT Id, Account.Name, Owner.FirstName, Account.ShippingState FROM Case",
    "SELECT Quantity, UnitPrice, Product2Id FROM OrderItem WHERE Quantity > 1",
    "SELECT Parent.OrderItemId__r.Order.Account.ShippingState FROM EmailMessage",
    "SELECT EffectiveDate, Status FROM Order LIMIT 3",
]


def _walk(record: dict[str, Any], path: str) -> Any:
    value: Any = record
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


@pytest.mark.parametrize("soql", QUERIES)
def test_columns_equal_the_records_values(org: Any, soql: str) -> None:
    records = execute_soql(org, soql, today=TODAY)
    read = read_columns(org, soql, lambda columns: columns, today=TODAY)
    assert read is not None
    assert read.columns == records.columns
    assert read.rows == len(records.records) > 0
    for name, values in zip(read.columns, read.values, strict=True):
        assert values == [_walk(r, name) for r in records.records], name


def test_only_the_picked_columns_are_read(org: Any) -> None:
    seen: list[list[str]] = []

    def pick(columns: list[str]) -> list[str]:
        seen.append(columns)
        return ["Quantity"]

    read = read_columns(org, "SELECT Product2Id, Quantity FROM OrderItem", pick, today=TODAY)
    assert read is not None and seen == [["Product2Id", "Quantity"]]
    assert len(read.values) == 1 and None in read.values[0]
    assert all(isinstance(v, float) for v in read.values[0] if v is not None)


def test_queries_without_plain_columns_are_left_to_the_records_path(org: Any) -> None:
    every = lambda columns: columns  # noqa: E731
    assert read_columns(org, "SELECT COUNT() FROM Case", every, today=TODAY) is None
    agg = "SELECT OwnerId, COUNT(Id) n FROM Case GROUP BY OwnerId"
    assert read_columns(org, agg, every, today=TODAY) is None
    child = "SELECT Id, (SELECT Id FROM Cases) FROM Account"
    assert read_columns(org, child, every, today=TODAY) is None


def test_a_pick_that_raises_reads_no_row_and_a_bad_query_is_a_query_error(org: Any) -> None:
    def refuse(columns: list[str]) -> list[str]:
        raise LookupError("no")

    with pytest.raises(LookupError):
        read_columns(org, "SELECT Id FROM Case", refuse, today=TODAY)
    with pytest.raises(QueryError):
        read_columns(org, "SELECT Nope FROM Case", lambda c: c, today=TODAY)
