"""WHERE: operators, SOQL null and case semantics, LIKE, IN, semi/anti-joins, type rules."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from crmtui.query import QueryError, QueryResult

from .conftest import OI, A, C, P, U


def cases(ids: Callable[[str], list[str]], where: str) -> set[int]:
    got = ids(f"SELECT Id FROM Case WHERE {where}")
    return {C.index(i) for i in got}


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ("Status = 'Closed'", {1, 3, 4, 6, 7, 9, 10}),
        ("Status = 'closed'", {1, 3, 4, 6, 7, 9, 10}),  # text filters ignore case
        ("Status != 'Closed'", {0, 2, 5, 8, 11}),
        ("Status <> 'Closed'", {0, 2, 5, 8, 11}),
        ("Priority != 'High'", {1, 2, 4, 6, 7, 8, 10, 11}),  # null Priority included
        ("Priority = null", {8}),
        ("ClosedDate = null", {0, 2, 5, 8, 11}),
        ("ClosedDate != null", {1, 3, 4, 6, 7, 9, 10}),
        ("Priority IN ('High', 'low')", {0, 1, 3, 4, 5, 7, 9, 11}),
        ("Priority NOT IN ('High', 'Low')", {2, 6, 8, 10}),
        ("Priority IN ('Medium', null)", {2, 6, 8, 10}),
        ("NOT Status = 'Closed'", {0, 2, 5, 8, 11}),
        ("NOT Priority = 'High'", {1, 2, 4, 6, 7, 8, 10, 11}),
        ("(Status = 'New' OR Status = 'Working') AND Priority = 'High'", {0}),
        ("Status = 'New' AND (Priority = 'Low' OR Priority = null)", {8, 11}),
        ("NOT (Status = 'Closed' OR Status = 'New')", {2, 5}),
        ("Subject LIKE 'Case 1%'", {1, 10, 11}),
        ("Subject LIKE 'case 1_'", {10, 11}),
        ("Subject > 'Case 8'", {9}),
        (f"OwnerId = '{U[3]}'", {11}),
        ("IssueId__r.Name = 'Wrong item received'", {1, 4, 8, 10}),
        ("IssueId__r.Name != 'Size chart mismatch'", {1, 3, 4, 5, 7, 8, 10, 11}),
        ("IssueId__r.Name = null", {5, 11}),
        ("IssueId__r.Name = 'Delayed delivery' OR Priority = null", {3, 7, 8}),
        ("Account.ShippingState = 'NY' AND Owner.FirstName = 'Ana'", {5, 8}),
        ("CreatedDate = 2024-05-15T12:00:00+02:00", {0}),
        ("CreatedDate > 2024-05-14T23:59:59Z", {0, 11}),
        ("CreatedDate >= 2024-05-14T23:59:59Z", {0, 1, 11}),
        ("CreatedDate < 2024-01-01T00:00:00Z", {9, 10}),
        ("ClosedDate <= 2024-01-02T00:00:00.000Z", {9, 10}),
        ("CALENDAR_MONTH(CreatedDate) = 5", {0, 1, 2, 3, 4, 11}),
        ("CALENDAR_QUARTER(CreatedDate) = 1", {6, 7, 8}),
        ("CALENDAR_YEAR(CreatedDate) = 2023", {9, 10}),
        ("DAY_IN_WEEK(CreatedDate) = 1", {2, 9}),
        ("DAY_IN_MONTH(CreatedDate) = 1", {4, 6, 8}),
        ("HOUR_IN_DAY(CreatedDate) = 23", {1, 3, 7, 9}),
        ("WEEK_IN_YEAR(CreatedDate) = 20", {0, 1, 11}),
        ("DAY_ONLY(CreatedDate) = 2024-05-15", {0}),
        ("HOUR_IN_DAY(convertTimezone(CreatedDate)) = 10", {0}),
    ],
)
def test_case_filters(ids: Callable[[str], list[str]], where: str, expected: set[int]) -> None:
    assert cases(ids, where) == expected


def test_numeric_filters_cast(ids: Callable[[str], list[str]]) -> None:
    # '10.0' must compare as a number, not as text (where '10.0' < '2').
    assert set(ids("SELECT Id FROM OrderItem WHERE Quantity > 2")) == {OI[2], OI[6], OI[8]}
    assert set(ids("SELECT Id FROM OrderItem WHERE UnitPrice >= 100")) == {
        OI[0],
        OI[3],
        OI[4],
        OI[7],
        OI[9],
    }
    assert ids("SELECT Id FROM OrderItem WHERE Quantity = null") == [OI[9]]
    assert set(ids("SELECT Id FROM OrderItem WHERE Quantity IN (3, 4.0)")) == {OI[2], OI[8]}


def test_boolean_filters_accept_stored_variants(ids: Callable[[str], list[str]]) -> None:
    assert set(ids("SELECT Id FROM Product2 WHERE IsActive = true")) == {P[0], P[1]}
    assert set(ids("SELECT Id FROM Product2 WHERE IsActive = FALSE")) == {P[2], P[3]}
    assert set(ids("SELECT Id FROM Product2 WHERE IsActive != true")) == {P[2], P[3]}


def test_like_escapes(ids: Callable[[str], list[str]]) -> None:
    assert ids("SELECT Id FROM Product2 WHERE Name LIKE '%\\_%'") == [P[3]]
    assert ids("SELECT Id FROM Product2 WHERE Description LIKE '%100\\%%'") == [P[1]]
    assert set(ids("SELECT Id FROM Product2 WHERE Name LIKE '%_%'")) == set(P)


def test_semi_and_anti_joins(ids: Callable[[str], list[str]]) -> None:
    assert ids(
        "SELECT Id FROM Account WHERE Id IN (SELECT AccountId FROM Case WHERE Status = 'Escalated')"
    ) == [A[1]]
    assert ids(
        "SELECT Id FROM Account WHERE Id NOT IN (SELECT AccountId FROM Case WHERE "
        "Status = 'Closed')"
    ) == [A[5]]
    assert set(
        ids(
            "SELECT Id FROM User WHERE Id NOT IN (SELECT OwnerId FROM Case WHERE Status = 'Closed')"
        )
    ) == {U[0], U[3]}
    assert set(
        ids(
            "SELECT Id FROM Case WHERE AccountId IN (SELECT AccountId FROM Order WHERE "
            "Status = 'Draft') AND Status = 'Closed'"
        )
    ) == {C[3], C[9]}


def test_injection_attempts_are_just_values(q: Callable[[str], QueryResult]) -> None:
    assert q("SELECT Id FROM Case WHERE Subject = '\\' ; DROP TABLE Case; --'").records == []
    assert q("SELECT Id FROM Case WHERE Subject = '\\' OR 1=1 --'").records == []
    assert q("SELECT Id FROM Case WHERE Subject = 'x\\' OR Subject != \\'y'").records == []


# -- type rules ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "code", "fragment"),
    [
        (
            "SELECT Id FROM Case WHERE CreatedDate > 2020-01-01",
            "INVALID_FIELD",
            "must be of type dateTime and should not be enclosed in quotes: use e.g. "
            "CreatedDate = 2020-01-01T00:00:00Z",
        ),
        (
            "SELECT Id FROM Case WHERE CreatedDate > '2020-01-01T00:00:00Z'",
            "INVALID_FIELD",
            "value of filter criterion for field 'CreatedDate' must be of type dateTime",
        ),
        (
            "SELECT Id FROM Order WHERE EffectiveDate = 2024-05-01T00:00:00Z",
            "INVALID_FIELD",
            "must be of type date and should not be enclosed in quotes: use e.g. "
            "EffectiveDate = 2020-01-01",
        ),
        (
            "SELECT Id FROM Order WHERE EffectiveDate = '2024-05-01'",
            "INVALID_FIELD",
            "must be of type date",
        ),
        (
            "SELECT Id FROM Case WHERE Subject = 5",
            "INVALID_FIELD",
            "must be of type string and should be enclosed in quotes: use Subject = '5'",
        ),
        (
            "SELECT Id FROM OrderItem WHERE Quantity = '5'",
            "INVALID_FIELD",
            "must be of type double and should not be enclosed in quotes",
        ),
        (
            "SELECT Id FROM Product2 WHERE IsActive = 'true'",
            "INVALID_FIELD",
            "must be of type boolean",
        ),
        (
            "SELECT Id FROM Product2 WHERE IsActive > true",
            "INVALID_QUERY_FILTER_OPERATOR",
            "invalid operator > on boolean field IsActive",
        ),
        (
            "SELECT Id FROM OrderItem WHERE Quantity LIKE '5%'",
            "INVALID_QUERY_FILTER_OPERATOR",
            "LIKE can only be used with string fields",
        ),
        (
            "SELECT Id FROM Case WHERE CreatedDate LIKE '2024%'",
            "INVALID_QUERY_FILTER_OPERATOR",
            "invalid operator on field CreatedDate of type datetime",
        ),
        (
            "SELECT Id FROM Case WHERE Id = 'abc'",
            "INVALID_QUERY_FILTER_OPERATOR",
            "invalid ID field: abc",
        ),
        ("SELECT Id FROM Case WHERE OwnerId = 5", "INVALID_FIELD", "must be of type id"),
        (
            "SELECT Id FROM Case WHERE CreatedDate < null",
            "INVALID_QUERY_FILTER_OPERATOR",
            "null can only be compared with = or !=",
        ),
        (
            "SELECT Id FROM Case WHERE CALENDAR_YEAR(CreatedDate) = '2024'",
            "INVALID_FIELD",
            "must be of type int",
        ),
        (
            "SELECT Id FROM Case WHERE CALENDAR_YEAR(Subject) = 2024",
            "INVALID_FIELD",
            "CALENDAR_YEAR() needs a date or datetime field",
        ),
        (
            "SELECT Id FROM Order WHERE HOUR_IN_DAY(EffectiveDate) = 1",
            "INVALID_FIELD",
            "needs a datetime field",
        ),
        (
            "SELECT Id FROM Case WHERE COUNT(Id) > 1",
            "MALFORMED_QUERY",
            "Aggregate function COUNT() is not allowed here",
        ),
        (
            "SELECT Id FROM Case WHERE Status INCLUDES ('New')",
            "INVALID_QUERY_FILTER_OPERATOR",
            "multi-select picklist",
        ),
        (
            "SELECT Id FROM Account WHERE Name IN (SELECT AccountId FROM Case)",
            "INVALID_FIELD",
            "left operand of a semi join",
        ),
        (
            "SELECT Id FROM Account WHERE Id IN (SELECT Subject FROM Case)",
            "MALFORMED_QUERY",
            "must select an Id or lookup field",
        ),
        (
            "SELECT Id FROM Account WHERE Id IN (SELECT Id, AccountId FROM Case)",
            "MALFORMED_QUERY",
            "exactly one Id or lookup field",
        ),
    ],
)
def test_type_rule_errors(
    q: Callable[[str], QueryResult], text: str, code: str, fragment: str
) -> None:
    with pytest.raises(QueryError) as info:
        q(text)
    assert info.value.code == code
    assert fragment in info.value.message


def test_type_error_points_at_the_value(q: Callable[[str], QueryResult]) -> None:
    with pytest.raises(QueryError) as info:
        q("SELECT Id\nFROM Case\nWHERE Status = 'New' AND CreatedDate > 2020-01-01")
    assert (info.value.line, info.value.column) == (3, 40)


def test_fifteen_character_ids_match_eighteen_character_ones(
    ids: Callable[[str], list[str]],
) -> None:
    assert ids(f"SELECT Id FROM Case WHERE Id = '{C[4][:15]}'") == [C[4]]
    assert set(ids(f"SELECT Id FROM Case WHERE Id IN ('{C[4][:15]}', '{C[5]}')")) == {C[4], C[5]}
    assert len(ids(f"SELECT Id FROM Case WHERE Id != '{C[4][:15]}'")) == 11
    assert set(ids(f"SELECT Id FROM Case WHERE OwnerId = '{U[3][:15]}'")) == {C[11]}
