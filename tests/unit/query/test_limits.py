"""The engine's limits and error boundary: only Salesforce-voiced QueryErrors leave it."""

from __future__ import annotations

import re
from typing import Any

import pytest

from crmtui.query import QueryError, run
from crmtui.query.boundary import MAX_TEXT_LENGTH, translate

from .conftest import TODAY

INTERNALS = re.compile(
    r"sqlite|python|4300 digits|stack overflow|out of range for|int too large|Error\b"
    r"|please report",
    re.IGNORECASE,
)


def _error(org: Any, text: str) -> QueryError:
    with pytest.raises(QueryError) as info:
        run(org, text, today=TODAY)
    assert not INTERNALS.search(info.value.message), info.value.message
    return info.value


@pytest.mark.parametrize(
    ("text", "code", "needle"),
    [
        # The issue's own examples, each once a leak of Python or SQLite text.
        ("SELECT Id FROM Case LIMIT " + "9" * 5000, "NUMBER_OUTSIDE_VALID_RANGE", "LIMIT must"),
        ("SELECT Id FROM Case OFFSET " + "9" * 30, "NUMBER_OUTSIDE_VALID_RANGE", "offset"),
        (
            "SELECT Id FROM Case WHERE Subject = 'x' OR Id = '500Ws0000000000AAA' "
            "OR CreatedDate > " + "1" * 41,
            "NUMBER_OUTSIDE_VALID_RANGE",
            "Number outside valid range",
        ),
        (
            "SELECT Id FROM Case WHERE CreatedDate > 9999-12-31T23:59:59-14:00",
            "MALFORMED_QUERY",
            "invalid datetime literal",
        ),
        (
            "SELECT Id FROM Case WHERE CreatedDate > 0001-01-01T00:00:00Z",
            "MALFORMED_QUERY",
            "valid dates run from 1700-01-01 to 4000-12-31",
        ),
        (
            "SELECT Id FROM Case WHERE CreatedDate = LAST_N_DAYS:99999999999999",
            "MALFORMED_QUERY",
            "is out of range",
        ),
        (
            "SELECT Id FROM Case WHERE CreatedDate = NEXT_N_YEARS:5000",
            "MALFORMED_QUERY",
            "date literal NEXT_N_YEARS:5000 is out of range",
        ),
        ("SELECT Id FROM Case WHERE Subject = '\ud800'", "MALFORMED_QUERY", "unpaired surrogate"),
        ("x" * (MAX_TEXT_LENGTH + 1), "MALFORMED_QUERY", "longer than 100,000"),
        ("SELECT Id FROM Case WHERE " + "(" * 100_000, "MALFORMED_QUERY", ""),
    ],
)
def test_hostile_literals_are_salesforce_errors(
    org: Any, text: str, code: str, needle: str
) -> None:
    error = _error(org, text)
    assert error.code == code and needle in error.message


def test_a_number_beyond_sqlite_integers_compares_as_a_double(org: Any) -> None:
    result = run(org, "SELECT COUNT() FROM OrderItem WHERE Quantity < 99999999999999999999")
    everything = run(org, "SELECT COUNT() FROM OrderItem WHERE Quantity != null")
    assert result.total_size == everything.total_size > 0


@pytest.mark.parametrize("depth", [30, 63])
def test_documented_nesting_runs_for_every_operator(org: Any, depth: int) -> None:
    # 30 nested NOTs used to overflow SQLite's parser stack (NOT COALESCE(...) per level).
    inner = "Status = 'New'"
    for level in range(depth):
        inner = (
            f"NOT ({inner})"
            if level % 3 == 0
            else f"({inner} {'AND' if level % 3 == 1 else 'OR'} Account.Name != 'x')"
        )
    run(org, "SELECT Id FROM Case WHERE " + inner, today=TODAY)
    run(org, "SELECT Id FROM Case WHERE " + "NOT (" * depth + "Status = 'New'" + ")" * depth)


def test_not_keeps_soql_two_valued_semantics(org: Any) -> None:
    everything = run(org, "SELECT COUNT() FROM Case").total_size
    some = run(org, "SELECT COUNT() FROM Case WHERE ClosedDate = null").total_size
    negated = run(org, "SELECT COUNT() FROM Case WHERE NOT (ClosedDate = null)").total_size
    twice = run(org, "SELECT COUNT() FROM Case WHERE NOT (NOT (ClosedDate = null))").total_size
    assert negated == everything - some and twice == some


def test_nesting_past_the_limit_is_refused_before_sqlite(org: Any) -> None:
    error = _error(org, "SELECT Id FROM Case WHERE " + "(" * 65 + "Status = 'x'" + ")" * 65)
    assert "nested too deeply (more than 64 levels" in error.message


def test_too_many_terms_for_sqlite_is_too_complicated(org: Any) -> None:
    text = "SELECT Id FROM Case WHERE " + " OR ".join(f"Subject = 's{i}'" for i in range(1100))
    error = _error(org, text)
    assert error.code == "QUERY_TOO_COMPLICATED"
    assert error.message.startswith("Query is either selecting too many fields")


def test_having_on_an_ungrouped_field_is_refused(org: Any) -> None:
    base = "SELECT Status, COUNT(Id) FROM Case GROUP BY Status HAVING "
    error = _error(org, base + "Priority = 'High'")
    assert error.code == "MALFORMED_QUERY"
    assert error.message == "Field must be grouped or aggregated: Priority"
    assert run(org, base + "Status != 'New' AND COUNT(Id) > 0").total_size > 0
    error = _error(org, "SELECT Id FROM Case HAVING COUNT(Id) > 1")
    assert error.message == "HAVING can only be used with GROUP BY"
    error = _error(org, "SELECT COUNT() FROM Case GROUP BY Status HAVING Subject = 'x'")
    assert error.message == "Field must be grouped or aggregated: Subject"


def test_foreign_exceptions_become_salesforce_errors() -> None:
    import sqlite3

    cases = [
        (sqlite3.OperationalError("interrupted"), "QUERY_TIMEOUT"),
        (sqlite3.OperationalError("parser stack overflow"), "QUERY_TOO_COMPLICATED"),
        (sqlite3.OperationalError("no such column: t0.PublishStatus"), "INVALID_FIELD"),
        (sqlite3.OperationalError("no such table: Knowledge__kav"), "INVALID_TYPE"),
        (RecursionError(), "MALFORMED_QUERY"),
        (OverflowError("Python int too large to convert to SQLite INTEGER"), None),
        (ValueError("Exceeds the limit (4300 digits) for integer string conversion"), None),
        (UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed"), None),
    ]
    for exc, code in cases:
        error = translate(exc)
        assert code is None or error.code == code
        assert not INTERNALS.search(error.message), error.message
    assert translate(RecursionError(), search=True).code == "MALFORMED_SEARCH"


def test_a_bug_is_unknown_exception_with_an_error_id(crmtui_home: Any) -> None:
    error = translate(KeyError("planted"))
    assert error.code == "UNKNOWN_EXCEPTION"
    assert re.match(
        r"An unexpected error occurred\. Please include this ErrorId if you contact support: "
        r"\d{10} \(details: .*crash-.*\.txt\)$",
        error.message,
    )
    log = next((crmtui_home / "logs").glob("crash-*.txt"))
    assert "KeyError: 'planted'" in log.read_text(encoding="utf-8")


def test_control_characters_in_messages_are_escaped(org: Any) -> None:
    error = _error(org, "SELECT Id FROM Case WHERE \x1b[2J")
    assert "\x1b" not in error.message and "\\x1b" in error.message
