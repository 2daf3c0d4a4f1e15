"""Browser views: equivalent SOQL/SOSL, filter typing, and navigation history."""

from __future__ import annotations

import pytest

from crmtui.data.schema import builtin_schema
from crmtui.play.history import History
from crmtui.play.views import (
    Condition,
    FilterError,
    RecordView,
    TableView,
    describe,
    equivalent_query,
    table_soql,
)

SCHEMA = builtin_schema()
CASE_COLS = ["Id", "Status"]


def test_plain_table_view_is_select_all_fields() -> None:
    soql = equivalent_query(SCHEMA, TableView("Issue__c"))
    assert soql == "SELECT Id, Name FROM Issue__c"


def test_filters_and_sort_compile_with_types() -> None:
    view = TableView(
        "Case",
        conditions=(
            Condition("status", "=", "Closed"),
            Condition("CreatedDate", ">=", "2021-03-01"),
            Condition("Subject", "contains", "50%_off"),
        ),
        sort_field="createddate",
        sort_desc=True,
    )
    soql = table_soql(SCHEMA, view, CASE_COLS)
    assert soql == (
        "SELECT Id, Status FROM Case WHERE Status = 'Closed' AND "
        "CreatedDate >= 2021-03-01T00:00:00Z AND Subject LIKE '%50\\%\\_off%' "
        "ORDER BY CreatedDate DESC NULLS LAST, Id"
    )


def test_datetime_equals_a_day_becomes_a_range() -> None:
    view = TableView("Case", conditions=(Condition("ClosedDate", "=", "2022-02-28"),))
    soql = table_soql(SCHEMA, view, CASE_COLS)
    assert "(ClosedDate >= 2022-02-28T00:00:00Z AND ClosedDate < 2022-03-01T00:00:00Z)" in soql


@pytest.mark.parametrize(
    ("cond", "message"),
    [
        (Condition("Nope", "=", "x"), "has no field"),
        (Condition("UnitPrice", "=", "cheap"), "not a number"),
        (Condition("CreatedDate", ">", "last week"), "YYYY-MM-DD"),
        (Condition("UnitPrice", "contains", "1"), "text fields"),
        (Condition("Status", "~", "x"), "unknown operator"),
    ],
)
def test_bad_filters_name_the_problem(cond: Condition, message: str) -> None:
    obj = "OrderItem" if cond.field == "UnitPrice" else "Case"
    with pytest.raises(FilterError, match=message):
        table_soql(SCHEMA, TableView(obj, conditions=(cond,)))


def test_null_and_boolean_literals() -> None:
    view = TableView(
        "Product2",
        conditions=(Condition("IsActive", "=", "yes"), Condition("Description", "!=", "null")),
    )
    assert "IsActive = TRUE AND Description != null" in table_soql(SCHEMA, view, ["Id"])


def test_search_view_is_sosl_and_record_view_is_by_id() -> None:
    view = TableView("Knowledge__kav", search="refund {cap}")
    sosl = equivalent_query(SCHEMA, view)
    assert sosl.startswith("FIND {refund \\{cap\\}} IN ALL FIELDS RETURNING Knowledge__kav(Id, ")
    rec = equivalent_query(SCHEMA, RecordView("Case", "500Ws000007rRKgIAM"))
    assert rec.endswith("FROM Case WHERE Id = '500Ws000007rRKgIAM'")


def test_record_view_quotes_the_id_as_a_soql_string() -> None:
    rec = equivalent_query(SCHEMA, RecordView("Case", "O'Brien \\ \n"))
    assert rec.endswith("WHERE Id = 'O\\'Brien \\\\ \\n'")


def test_describe() -> None:
    view = TableView("Case", (Condition("Status", "=", "New"),), "Priority", True, "zip")
    assert describe(view) == "Case · search 'zip' · Status = New · by Priority desc"


def test_history_back_forward_restores_scroll() -> None:
    h = History()
    a = TableView("Case")
    h.visit(a)
    h.replace(a.with_cursor(40))
    b = RecordView("Case", "500x")
    h.visit(b)
    assert h.can_go_back and not h.can_go_forward
    assert h.back() == TableView("Case", cursor_row=40)
    assert h.forward() == b
    assert h.forward() is None
    h.back()
    h.visit(TableView("Account"))
    assert not h.can_go_forward
    assert h.back() == TableView("Case", cursor_row=40)
    assert h.back() is None


def test_history_is_bounded() -> None:
    h = History(limit=3)
    for i in range(10):
        h.visit(RecordView("Case", str(i)))
    steps = 0
    while h.back() is not None:
        steps += 1
    assert steps == 3
