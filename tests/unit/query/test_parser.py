"""Parser: constructs become the right AST; syntax errors carry code, token and position."""

from __future__ import annotations

import datetime as dt

import pytest

from crmtui.data.schema import builtin_schema
from crmtui.query import QueryError, compile_soql
from crmtui.query.soql import ast
from crmtui.query.soql.parser import parse, unwrap_fence


def test_select_list_where_order_limit_offset() -> None:
    query = parse(
        "select Id, Account.Name, COUNT(Id) n from Case c where Status = 'New' "
        "order by CreatedDate desc nulls first limit 5 offset 2"
    )
    assert query.object == "Case" and query.alias == "c"
    assert query.select[0] == ast.SelectField(ast.FieldPath(("Id",), 1, 8))
    assert query.select[1].path.parts == ("Account", "Name")  # type: ignore[union-attr]
    func = query.select[2]
    assert isinstance(func, ast.SelectFunc) and func.alias == "n" and func.call.upper == "COUNT"
    assert query.order_by == (ast.OrderItem(ast.FieldPath(("CreatedDate",), 1, 80), True, True),)
    assert (query.limit, query.offset) == (5, 2)


def test_keywords_are_case_insensitive_and_names_may_look_like_keywords() -> None:
    query = parse("SeLeCt Id, Description FrOm Order oRdEr By Order")
    assert query.object == "Order"
    assert [i.path.text for i in query.select] == ["Id", "Description"]  # type: ignore[union-attr]
    assert query.order_by[0].expr.text == "Order"  # type: ignore[union-attr]


def test_literals_decode() -> None:
    query = parse(
        "SELECT Id FROM Case WHERE a = 'it\\'s\\n' AND b = -1.5 AND c = 3 AND d = true "
        "AND e = NULL AND f = 2024-05-01 AND g = 2024-05-01T12:00:00+02:00 AND h = TODAY "
        "AND i = LAST_N_DAYS:7 AND j = 2024-05-01T00:00:00.123Z"
    )
    assert isinstance(query.where, ast.And)
    values = [c.value for c in query.where.items]  # type: ignore[union-attr]
    assert [v.kind for v in values] == [
        "string",
        "number",
        "number",
        "boolean",
        "null",
        "date",
        "datetime",
        "date_literal",
        "date_literal",
        "datetime",
    ]
    assert values[0].value == "it's\n"
    assert values[1].value == -1.5 and values[2].value == 3
    assert values[5].value == dt.date(2024, 5, 1)
    assert values[6].value == dt.datetime(2024, 5, 1, 10, 0, tzinfo=dt.UTC)
    assert values[7].value == ("TODAY", None)
    assert values[8].value == ("LAST_N_DAYS", 7)
    assert values[9].value == dt.datetime(2024, 5, 1, 0, 0, 0, 123000, tzinfo=dt.UTC)


def test_like_pattern_keeps_escaped_wildcards() -> None:
    query = parse(r"SELECT Id FROM Product2 WHERE Name LIKE 'Tent\_%\\x'")
    value = query.where.value  # type: ignore[union-attr]
    assert value.value == "Tent_%\\x"
    assert value.like_pattern == "Tent\\_%\\\\x"


def test_in_not_in_semi_join_and_not() -> None:
    query = parse(
        "SELECT Id FROM Account WHERE Id IN (SELECT AccountId FROM Case) AND "
        "Id NOT IN ('a', 'b') AND NOT (Name = 'x' OR Name = 'y')"
    )
    first, second, third = query.where.items  # type: ignore[union-attr]
    assert isinstance(first, ast.InQuery) and not first.negated
    assert first.query.object == "Case"
    assert isinstance(second, ast.InList) and second.negated and len(second.values) == 2
    assert isinstance(third, ast.Not) and isinstance(third.item, ast.Or)


def test_child_subquery_group_by_having() -> None:
    query = parse(
        "SELECT Id, (SELECT Id FROM Cases WHERE Status = 'New') FROM Account "
        "GROUP BY CALENDAR_YEAR(CreatedDate), Name HAVING COUNT(Id) > 1"
    )
    assert isinstance(query.select[1], ast.SelectSubquery)
    assert query.select[1].query.object == "Cases"
    assert isinstance(query.group_by[0], ast.FuncCall)
    assert isinstance(query.having, ast.Compare)


@pytest.mark.parametrize(
    ("text", "message", "line", "column"),
    [
        ("SELECT Id FORM Case", "unexpected token: 'FORM'", 1, 11),
        ("SELECT * FROM Case", "unexpected token: '*'", 1, 8),
        ("SELECT Id FROM Case WHERE a = 1 AND b = 2 OR c = 3", "unexpected token: 'OR'", 1, 43),
        ("SELECT Id\nFROM Case\nWHERE ", "unexpected token: <EOF>", 3, 6),
        ("DROP TABLE Case", "unexpected token: 'DROP'", 1, 1),
        ("SELECT Id FROM Case\n  WHERE Status = = 'x'", "unexpected token: '='", 2, 18),
    ],
)
def test_syntax_errors(text: str, message: str, line: int | None, column: int | None) -> None:
    with pytest.raises(QueryError) as info:
        parse(text)
    err = info.value
    assert err.code == "MALFORMED_QUERY"
    assert err.message == message
    if line is not None:
        assert (err.line, err.column) == (line, column)
        assert str(err) == f"MALFORMED_QUERY: {message} at line {line}, column {column}"


def test_unquoted_string_value_explains_quotes() -> None:
    with pytest.raises(QueryError) as info:
        parse("SELECT Id FROM Case WHERE Status = New")
    assert "must be enclosed in single quotes: 'New'" in info.value.message
    assert (info.value.line, info.value.column) == (1, 36)


def test_bad_escape_and_bad_dates() -> None:
    with pytest.raises(QueryError, match="Illegal character sequence"):
        parse(r"SELECT Id FROM Case WHERE Subject = 'a\qb'")
    with pytest.raises(QueryError, match="invalid date literal"):
        parse("SELECT Id FROM Order WHERE EffectiveDate = 2024-02-30")
    with pytest.raises(QueryError, match="unexpected token: 'LAST_N_FOO:3'"):
        parse("SELECT Id FROM Case WHERE CreatedDate = LAST_N_FOO:3")
    with pytest.raises(QueryError, match="LAST_N_DAYS:n"):
        parse("SELECT Id FROM Case WHERE CreatedDate = LAST_N_DAYS")


def test_typeof_is_explained() -> None:
    with pytest.raises(QueryError) as info:
        parse("SELECT TYPEOF What WHEN Account THEN Name END FROM Event")
    assert info.value.code == "MALFORMED_QUERY"
    assert "TYPEOF is not supported" in info.value.message


def test_unwrap_fence_like_upstream() -> None:
    text = "Here:\n```sql\nSELECT Id\n   FROM Case\n```\nthanks ```SELECT x```"
    assert unwrap_fence(text) == "SELECT Id FROM Case"
    assert unwrap_fence("SELECT Id FROM Case") == "SELECT Id FROM Case"


def test_for_view_is_accepted_and_other_for_words_are_not() -> None:
    assert parse("SELECT Id FROM Case LIMIT 1 FOR VIEW").limit == 1
    assert parse("SELECT Id FROM Case FOR REFERENCE, VIEW").object == "Case"
    with pytest.raises(QueryError, match="unexpected token: 'BAR'"):
        parse("SELECT Id FROM Case FOR BAR")


def _values(text: str) -> list[tuple[str, object, str, int, int]]:
    where = parse(text).where
    assert isinstance(where, ast.InList)
    return [(v.kind, v.value, v.raw, v.line, v.column) for v in where.values]


def test_plain_string_lists_parse_like_general_value_lists() -> None:
    # Plain lists are lexed as one token (fast path); a list with an escape or a non-string
    # literal takes the general path. Both must give the same values and positions.
    fast = _values("SELECT Id FROM Case WHERE Status IN ('New',\n  'Closed' , '')")
    assert fast == [
        ("string", "New", "'New'", 1, 38),
        ("string", "Closed", "'Closed'", 2, 3),
        ("string", "", "''", 2, 14),
    ]
    general = _values("SELECT Id FROM Case WHERE Status IN ('New',\n  'Closed' , '', null)")
    assert [v[:5] for v in general[:3]] == fast
    escaped = _values("SELECT Id FROM Case WHERE Status IN ('it\\'s', 'a%_')")
    assert [v[1] for v in escaped] == ["it's", "a%_"]
    negated = parse("SELECT Id FROM Case WHERE Status NOT IN ('New')").where
    assert isinstance(negated, ast.InList) and negated.negated
    assert [v.value for v in negated.values] == ["New"]


def test_long_id_lists_report_the_bad_id_position() -> None:
    ids = ", ".join(f"'500Ws000006ua{i:02d}IAQ'" for i in range(40))
    text = f"SELECT Id FROM Case WHERE Id IN ({ids}, 'nope')"
    with pytest.raises(QueryError, match="invalid ID field: nope") as err:
        compile_soql(builtin_schema(), text, today=dt.date(2024, 1, 1))
    assert (err.value.line, err.value.column) == (1, text.index("'nope'") + 1)


def test_string_list_token_is_only_used_after_in() -> None:
    # INCLUDES still parses its list (and is then refused for a non-multi-select field).
    with pytest.raises(QueryError, match="^INVALID_QUERY_FILTER_OPERATOR: INCLUDES"):
        compile_soql(
            builtin_schema(), "SELECT Id FROM Case WHERE Status INCLUDES ('a', 'b')", today=None
        )
    with pytest.raises(QueryError, match="unexpected token"):
        parse("SELECT Id FROM Case WHERE ('a', 'b') = Status")
