"""SOSL syntax: statement clauses, the search term, and MALFORMED_SEARCH positions."""

from __future__ import annotations

import pytest

from crmtui.query import QueryError
from crmtui.query.sosl.parser import And, AndNot, Or, Term, parse_sosl, terms


def words(expr: object) -> list[list[tuple[str, ...]]]:
    return [[tok.parts for tok in t.tokens] for t in terms(expr)]  # type: ignore[arg-type]


def test_upstream_knowledge_tool_shape() -> None:
    q = parse_sosl(
        "FIND {reset password} IN ALL FIELDS RETURNING Knowledge__kav(Id, Title, "
        "FAQ_Answer__c WHERE PublishStatus='Online' AND Language='en_US')"
    )
    assert q.scope == "ALL"
    assert isinstance(q.term, And)
    assert words(q.term) == [[("reset",)], [("password",)]]
    [spec] = q.returning or []
    assert spec.object == "Knowledge__kav"
    assert spec.fields == ["Id", "Title", "FAQ_Answer__c"]
    assert spec.where == "PublishStatus='Online' AND Language='en_US'"
    assert q.limit == 2000


def test_clauses_keywords_any_case_and_defaults() -> None:
    q = parse_sosl(
        "find 'Acme' in name fields returning Account, Contact(Name, Email "
        "where Id in (select ContactId from Case where Status = 'New' order by Id limit 3) "
        "order by Name desc nulls last limit 5 offset 2) limit 10"
    )
    assert q.scope == "NAME"
    assert q.limit == 10
    account, contact = q.returning or []
    assert account.fields == [] and account.where is None
    assert contact.where is not None and contact.where.startswith("Id in (select")
    assert contact.where.endswith("limit 3)")
    assert contact.order_by == "Name desc nulls last"
    assert (contact.limit, contact.offset) == (5, 2)


@pytest.mark.parametrize("group", ["ALL", "NAME", "EMAIL", "PHONE"])
def test_field_groups(group: str) -> None:
    assert parse_sosl(f"FIND {{acme}} IN {group} FIELDS").scope == group


def test_field_named_like_keywords_and_relationship_paths() -> None:
    q = parse_sosl(
        "FIND {x1} RETURNING Order(Id, Order.Status WHERE Order.Status = 'Activated'"
        " AND EffectiveDate = LAST_N_DAYS:30)"
    )
    [spec] = q.returning or []
    assert spec.fields == ["Id", "Order.Status"]
    assert spec.where == "Order.Status = 'Activated' AND EffectiveDate = LAST_N_DAYS:30"


def test_term_operators_and_precedence() -> None:
    q = parse_sosl('FIND {alpha OR beta gamma AND NOT "delta epsilon"}')
    assert isinstance(q.term, Or)
    right = q.term.right
    assert isinstance(right, AndNot)
    assert isinstance(right.left, And)
    assert words(right.right) == [[("delta",), ("epsilon",)]]


def test_parentheses_group_terms() -> None:
    q = parse_sosl("FIND {(alpha OR beta) AND gamma}")
    assert isinstance(q.term, And) and isinstance(q.term.left, Or)


def test_wildcards_and_punctuation_split_into_tokens() -> None:
    q = parse_sosl("FIND {Jo*n o'brien ab?d smi*}")
    assert words(q.term) == [
        [("jo", "*", "n")],
        [("o",), ("brien",)],
        [("ab", "?", "d")],
        [("smi", "*")],
    ]


def test_escaped_brace_and_accents_fold() -> None:
    q = parse_sosl(r"FIND {Café\}bar}")
    assert words(q.term) == [[("cafe",), ("bar",)]]


@pytest.mark.parametrize(
    ("text", "fragment", "column"),
    [
        ("FIND {a}", "longer than one character", 7),
        ("FIND {x*}", "longer than one character", 7),
        ("FIND {  }", "longer than one character", 7),
        ("FIND {--}", "longer than one character", 7),
        ("FIND {*}", "wildcard", 7),
        ("FIND {abc", "not closed", 6),
        ("FIND {abc} RETURNING", "unexpected end", 21),
        ("FIND {abc} IN BODY FIELDS", "unexpected", 12),
        ("FIND {abc} LIMIT 0", "LIMIT must be between", 18),
        ("FIND {abc} LIMIT 5000", "LIMIT must be between", 18),
        ("FIND {abc AND}", "unexpected end", 14),
        ("FIND {abc} RETURNING Case(", "unexpected end", 27),
        ("FIND {abc}\nRETURNING Case(Id,)", "unexpected token", 19),
    ],
)
def test_malformed_search(text: str, fragment: str, column: int) -> None:
    with pytest.raises(QueryError) as info:
        parse_sosl(text)
    err = info.value
    assert err.code == "MALFORMED_SEARCH"
    assert fragment in err.message
    assert err.column == column
    assert str(err).startswith("MALFORMED_SEARCH: ")


def test_error_line_is_counted() -> None:
    with pytest.raises(QueryError) as info:
        parse_sosl("FIND {abc}\nRETURNING Case(Id,)")
    assert info.value.line == 2


def test_single_term_kept_as_term() -> None:
    assert isinstance(parse_sosl("FIND {blender}").term, Term)
