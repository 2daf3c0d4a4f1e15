"""The console's help for failed queries: caret under the column, "did you mean" names."""

from __future__ import annotations

import pytest

from crmtui.data.schema import builtin_schema
from crmtui.play.query_hints import caret_lines, did_you_mean
from crmtui.query import QueryError

SCHEMA = builtin_schema()


def _error(code: str, message: str, line: int = 1, column: int = 8) -> QueryError:
    return QueryError(code, message, line=line, column=column)


def test_caret_sits_under_the_reported_column() -> None:
    query = "SELECT Id,\n  Subjct FROM Case"
    assert caret_lines(query, 2, 3) == ["  Subjct FROM Case", "  ^"]
    assert caret_lines(query, None, None) == [] and caret_lines(query, 9, 1) == []


def test_a_long_line_is_cut_around_the_column() -> None:
    query = "SELECT Id FROM Case WHERE " + "Status = 'x' AND " * 10 + "Nope = 1"
    column = query.index("Nope") + 1
    source, caret = caret_lines(query, 1, column, width=40)
    assert len(source) == 40 and source.startswith("…")
    assert source[caret.index("^") :].startswith("Nope")


@pytest.mark.parametrize(
    ("query", "message", "expected"),
    [
        (
            "SELECT Subjct FROM Case",
            "No such column 'Subjct' on entity 'Case'. If you are...",
            "Did you mean Subject?",
        ),
        ("SELECT Id FROM Issue", "sObject type 'Issue' is not supported.", "Issue__c"),
        (
            "SELECT Acount.ShippingState FROM Case",
            "Didn't understand relationship 'Acount' in field path. If...",
            "Account",
        ),
        (
            "SELECT Account.ShippingStat FROM Case",
            "No such column 'ShippingStat' on entity 'Account'. If...",
            "ShippingState",
        ),
        (
            "SELECT Id, (SELECT Id FROM Case) FROM Account",
            "Didn't understand relationship 'Case' in FROM part of query call.",
            "Cases",
        ),
    ],
)
def test_did_you_mean_names_the_closest_schema_names(query, message, expected) -> None:
    hint = did_you_mean(SCHEMA, query, _error("INVALID_FIELD", message))
    assert hint is not None and expected in hint


def test_no_hint_for_other_errors_or_nothing_close() -> None:
    assert did_you_mean(SCHEMA, "SELECT Id FRM Case", _error("MALFORMED_QUERY", "x")) is None
    nothing = _error("INVALID_FIELD", "No such column 'Zzzzqq' on entity 'Case'.")
    assert did_you_mean(SCHEMA, "SELECT Zzzzqq FROM Case", nothing) is None
