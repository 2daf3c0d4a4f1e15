"""Equivalent-query builders: exact strings, identifier checks, literal escaping round-trips."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crmtui.errors import CrmtuiError
from crmtui.record.equivalent import (
    QueryBuildError,
    like_pattern,
    soql_condition,
    soql_for_filter,
    soql_for_open_object,
    soql_for_record,
    soql_literal,
    soql_string,
    sosl_escape,
    sosl_for_search,
    unescape_soql_string,
    unescape_sosl_text,
)

# A SOQL string token: quote, then escapes or anything but quote/backslash/line breaks.
SOQL_STRING_TOKEN = re.compile(r"'(?:[^'\\\n\r]|\\.)*'", re.DOTALL)
SOSL_RESERVED = "?&|!{}[]()^~*:\\\"'+-"
SOSL_SAFE = re.compile(r"(?:[^" + re.escape(SOSL_RESERVED) + r"]|\\.)*", re.DOTALL)


def test_open_object_with_order_where_and_limit() -> None:
    assert soql_for_open_object("Case", ["Id", "Subject", "Account.Name"]) == (
        "SELECT Id, Subject, Account.Name FROM Case"
    )
    assert (
        soql_for_open_object(
            "Case",
            ["Id"],
            order_by=[("CreatedDate", True), "Subject"],
            where=soql_condition("Status", "=", "New"),
            limit=25,
        )
        == "SELECT Id FROM Case WHERE Status = 'New' ORDER BY CreatedDate DESC, Subject LIMIT 25"
    )
    assert soql_for_open_object("Case", [], order_by=("Subject", False)) == (
        "SELECT Id FROM Case ORDER BY Subject ASC"
    )


def test_record_query_escapes_the_id() -> None:
    assert soql_for_record("User", "005'x", ["Id", "Name"]) == (
        "SELECT Id, Name FROM User WHERE Id = '005\\'x'"
    )


@pytest.mark.parametrize(
    ("field", "op", "value", "field_type", "expected"),
    [
        ("Status", "=", "New", None, "Status = 'New'"),
        ("Status", "<>", "New", None, "Status != 'New'"),
        ("Status", "in", ["New", "Closed"], None, "Status IN ('New', 'Closed')"),
        ("Status", "not in", ("New",), None, "Status NOT IN ('New')"),
        ("Subject", "contains", "50%_off", None, "Subject LIKE '%50\\%\\_off%'"),
        ("Subject", "starts_with", "O'B", None, "Subject LIKE 'O\\'B%'"),
        ("Subject", "ends_with", "x", None, "Subject LIKE '%x'"),
        ("Subject", "LIKE", "a%", None, "Subject LIKE 'a%'"),
        ("ClosedDate", "is_null", None, None, "ClosedDate = NULL"),
        ("ClosedDate", "not_null", None, None, "ClosedDate != NULL"),
        ("TotalAmount", ">", " 15.5 ", "currency", "TotalAmount > 15.5"),
        ("Quantity", "<=", 3, None, "Quantity <= 3"),
        ("UnitPrice", ">=", 2.5, None, "UnitPrice >= 2.5"),
        ("IsEscalated", "=", "1", "boolean", "IsEscalated = TRUE"),
        ("IsEscalated", "=", False, None, "IsEscalated = FALSE"),
        ("EffectiveDate", "<", "2024-05-26", "date", "EffectiveDate < 2024-05-26"),
        ("EffectiveDate", "=", "LAST_N_DAYS:30", "date", "EffectiveDate = LAST_N_DAYS:30"),
        ("CreatedDate", ">=", "2024-05-26", "datetime", "CreatedDate >= 2024-05-26T00:00:00Z"),
        (
            "CreatedDate",
            "<",
            "2024-05-26T06:58:00.000+0200",
            "datetime",
            "CreatedDate < 2024-05-26T04:58:00Z",
        ),
        (
            "CreatedDate",
            "<",
            dt.datetime(2024, 5, 26, 6, 58, tzinfo=dt.UTC),
            None,
            "CreatedDate < 2024-05-26T06:58:00Z",
        ),
        ("EffectiveDate", "=", dt.date(2024, 5, 26), None, "EffectiveDate = 2024-05-26"),
    ],
)
def test_conditions(
    field: str, op: str, value: object, field_type: str | None, expected: str
) -> None:
    assert soql_condition(field, op, value, field_type) == expected


def test_filter_adds_to_existing_conditions() -> None:
    assert (
        soql_for_filter("Case", ["Id"], "Priority", "=", "High", where="Status = 'New'", limit=10)
        == "SELECT Id FROM Case WHERE Status = 'New' AND Priority = 'High' LIMIT 10"
    )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: soql_for_open_object("Case; DROP", ["Id"]), "not a valid object or field name"),
        (lambda: soql_for_open_object("Case", ["Id, Name"]), "not a valid object or field name"),
        (lambda: soql_condition("Status", "~", "x"), "unknown filter operator"),
        (lambda: soql_condition("Status", "in", "x"), "needs a list"),
        (lambda: soql_condition("Status", "in", []), "at least one value"),
        (lambda: soql_literal("abc", "int"), "not a number"),
        (lambda: soql_literal("maybe", "boolean"), "not a boolean"),
        (lambda: soql_literal("26/05/2024", "date"), "not a date"),
        (lambda: soql_literal("yesterday-ish", "datetime"), "not a datetime"),
        (lambda: soql_literal(float("inf")), "not a finite number"),
        (lambda: soql_literal(object()), "cannot use a object"),
        (lambda: soql_for_open_object("Case", ["Id"], limit=-1), "LIMIT"),
        (lambda: sosl_for_search("   "), "search text is empty"),
        (lambda: sosl_for_search("x", scope="BODY"), "unknown search scope"),
        (lambda: unescape_soql_string("'a'b'"), "unescaped quote"),
        (lambda: unescape_soql_string("'a\\q'"), "unknown escape"),
        (lambda: unescape_soql_string("abc"), "not a quoted SOQL string"),
    ],
)
def test_bad_parts_raise_typed_errors(call: object, message: str) -> None:
    with pytest.raises(QueryBuildError, match=message) as info:
        call()  # type: ignore[operator]
    assert isinstance(info.value, CrmtuiError)


def test_sosl_search() -> None:
    assert sosl_for_search("Acme") == "FIND {Acme} IN ALL FIELDS"
    assert (
        sosl_for_search("a-b {c}", {"Case": ["Id", "Subject"], "Account": []}, scope="name")
        == "FIND {a\\-b \\{c\\}} IN NAME FIELDS RETURNING Case(Id, Subject), Account"
    )
    assert sosl_for_search("x", ["Case", "Contact"]).endswith("RETURNING Case, Contact")


@given(st.text())
def test_any_soql_string_round_trips_and_stays_one_token(text: str) -> None:
    literal = soql_string(text)
    assert SOQL_STRING_TOKEN.fullmatch(literal)
    assert unescape_soql_string(literal) == text


_LIKE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f"}


def _decode_like(literal: str) -> list[str | None]:
    """Decode a LIKE literal into characters, None standing for an unescaped wildcard."""
    out: list[str | None] = []
    body = literal[1:-1]
    i = 0
    while i < len(body):
        if body[i] == "\\":
            out.append(_LIKE_ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(None if body[i] in "%_" else body[i])
            i += 1
    return out


@given(st.text())
def test_like_patterns_match_the_text_literally(text: str) -> None:
    literal = like_pattern(text)
    assert SOQL_STRING_TOKEN.fullmatch(literal)
    decoded = _decode_like(literal)
    # Wildcards only at the two ends; everything between is the text, character for character.
    assert decoded[0] is None and decoded[-1] is None
    assert decoded[1:-1] == list(text)


@given(st.text())
def test_any_sosl_text_round_trips_with_no_bare_reserved_character(text: str) -> None:
    escaped = sosl_escape(text)
    assert SOSL_SAFE.fullmatch(escaped)
    assert unescape_sosl_text(escaped) == text


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_soql_literals_are_decoded_identically_by_our_soql_parser(text: str) -> None:
    parser = pytest.importorskip("crmtui.query.soql.parser")
    query = parser.parse(soql_for_record("Case", text, ["Id"]))
    assert query.where.value.value == text
