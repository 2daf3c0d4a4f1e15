"""SOSL end to end on the fixture orgs: FTS5 and scan paths must agree on what matches."""

from __future__ import annotations

from typing import Any

import pytest

from crmtui.query import QueryError, format_observation, run
from crmtui.query.sosl.parser import parse_sosl
from crmtui.query.sosl.search import fts_expression, search_object

KNOWLEDGE = (
    "FIND {blender} IN ALL FIELDS RETURNING Knowledge__kav(Id, Title, FAQ_Answer__c "
    "WHERE PublishStatus='Online' AND Language='en_US')"
)


def ids(result: Any) -> list[str]:
    return [r["Id"] for r in result.records]


def by_type(result: Any) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for record in result.records:
        found.setdefault(record["attributes"]["type"], set()).add(record["Id"])
    return found


def test_upstream_knowledge_tool(org: Any) -> None:
    result = run(org, KNOWLEDGE)
    assert result.kind == "sosl"
    # Archived (ka4) and Spanish (ka3) articles mention blender but fail the WHERE.
    assert set(ids(result)) == {"ka0000000000001AAA", "ka0000000000002AAA"}
    assert all(set(r) == {"attributes", "Id", "Title", "FAQ_Answer__c"} for r in result.records)
    body = result.to_salesforce()
    assert list(body) == ["searchRecords"]
    assert body["searchRecords"][0]["attributes"]["type"] == "Knowledge__kav"
    assert "FAQ_Answer__c" in format_observation(result)


def test_fts_ranks_by_relevance(fts_org: Any) -> None:
    # ka2 says "blender" six times; bm25 puts it first.
    assert ids(run(fts_org, KNOWLEDGE))[0] == "ka0000000000002AAA"


def test_upstream_product_tool(org: Any) -> None:
    result = run(org, "FIND {blender} IN ALL FIELDS RETURNING Product2(Id, Name, Description)")
    assert ids(result) == ["01t000000000001AAA"]  # whole words: "Blendinator" is not a match


@pytest.mark.parametrize(
    ("term", "expected"),
    [
        ("blend*", {"01t000000000001AAA", "01t000000000003AAA"}),
        ("bl?nder", {"01t000000000001AAA"}),
        ("*inator", {"01t000000000003AAA"}),
        ("b*r", {"01t000000000001AAA", "01t000000000003AAA"}),
        ("toast*", {"01t000000000002AAA"}),
        ("powerblend OR toastmaster", {"01t000000000001AAA", "01t000000000002AAA"}),
        ("blend* AND NOT speed", {"01t000000000003AAA"}),
        ('"high speed"', {"01t000000000001AAA"}),
        ('"speed high"', set()),
        ("pb-3000", {"01t000000000001AAA"}),
        ("POWERBLEND", {"01t000000000001AAA"}),
    ],
)
def test_wildcards_phrases_operators(org: Any, term: str, expected: set[str]) -> None:
    result = run(org, f"FIND {{{term}}} RETURNING Product2(Id)")
    assert set(ids(result)) == expected


def test_accents_fold(org: Any) -> None:
    result = run(org, "FIND {muller} RETURNING Contact(Id, LastName)")
    assert [r["LastName"] for r in result.records] == ["Müller"]


@pytest.mark.parametrize(
    ("scope", "expected"),
    [
        (
            "NAME",
            {
                "User": {"005000000000002AAA"},
                "Account": {"001000000000002AAA"},
                "Contact": {"003000000000002AAA"},
            },
        ),
        (
            "EMAIL",
            {
                "User": {"005000000000002AAA"},
                "Account": {"001000000000002AAA"},
                "Contact": {"003000000000002AAA"},
                "EmailMessage": {"02s000000000001AAA"},
            },
        ),
        ("PHONE", {}),
        (
            "ALL",
            {
                "User": {"005000000000002AAA"},
                "Account": {"001000000000002AAA"},
                "Contact": {"003000000000002AAA"},
                "EmailMessage": {"02s000000000001AAA"},
            },
        ),
    ],
)
def test_field_groups(org: Any, scope: str, expected: dict[str, set[str]]) -> None:
    # "jsmith" is in User.Email/Alias; "smith*" in last names and "@smithers" addresses.
    term = "smith* OR jsmith"
    assert by_type(run(org, f"FIND {{{term}}} IN {scope} FIELDS")) == expected


def test_phone_fields(org: Any) -> None:
    result = run(org, "FIND {555-0123} IN PHONE FIELDS RETURNING Account(Phone), User(Phone)")
    assert [r["Phone"] for r in result.records] == ["415-555-0123"]


def test_no_returning_searches_every_object_ids_only(org: Any) -> None:
    result = run(org, "FIND {blender}")
    assert set(by_type(result)) == {"Case", "Knowledge__kav", "Product2", "EmailMessage"}
    assert all(set(r) == {"attributes", "Id"} for r in result.records)
    # Objects come in schema order.
    order = [r["attributes"]["type"] for r in result.records]
    assert order == sorted(order, key=["Case", "Knowledge__kav", "Product2", "EmailMessage"].index)


def test_object_without_field_list_returns_id_only(org: Any) -> None:
    result = run(org, "FIND {blender} RETURNING Case, Product2(Name)")
    assert result.records[0] == {
        "attributes": {
            "type": "Case",
            "url": "/services/data/v60.0/sobjects/Case/500000000000001AAA",
        },
        "Id": "500000000000001AAA",
    }
    assert set(result.records[1]) == {"attributes", "Name"}


def test_returning_order_limit_offset(org: Any) -> None:
    result = run(
        org, "FIND {blender} RETURNING Knowledge__kav(Title ORDER BY Title DESC LIMIT 2 OFFSET 1)"
    )
    assert [r["Title"] for r in result.records] == [
        "How to clean a blender",
        "Garantía de la licuadora",
    ]


def test_returning_limit_without_order_keeps_rank(fts_org: Any) -> None:
    result = run(fts_org, "FIND {blender} RETURNING Knowledge__kav(Id LIMIT 1)")
    assert ids(result) == ["ka0000000000002AAA"]


def test_overall_limit_fills_in_returning_order(org: Any) -> None:
    result = run(org, "FIND {blender} RETURNING Knowledge__kav(Id), Product2(Id) LIMIT 5")
    types = [r["attributes"]["type"] for r in result.records]
    assert types == ["Knowledge__kav"] * 4 + ["Product2"]


def test_where_shares_soql_semantics(org: Any) -> None:
    result = run(
        org,
        "FIND {blender OR refund} RETURNING Case(Subject, Account.ShippingState "
        "WHERE CreatedDate >= 2024-04-01T00:00:00Z AND Status != 'new')",
    )
    assert result.records[0]["Subject"] == "Refund request"
    assert result.records[0]["Account"]["ShippingState"] == "BE"
    assert len(result.records) == 1


def test_where_with_semi_join(org: Any) -> None:
    result = run(
        org,
        "FIND {johnny OR ana} RETURNING Contact(LastName WHERE AccountId IN "
        "(SELECT AccountId FROM Case WHERE Status = 'New'))",
    )
    assert [r["LastName"] for r in result.records] == ["Smithers"]


def test_relative_dates_use_today(org: Any) -> None:
    import datetime as dt

    text = "FIND {blender OR refund} RETURNING Case(Id WHERE CreatedDate = LAST_N_DAYS:10)"
    assert ids(run(org, text, today=dt.date(2024, 3, 5))) == ["500000000000001AAA"]
    assert ids(run(org, text, today=dt.date(2025, 1, 1))) == []


@pytest.mark.parametrize(
    ("text", "code", "column"),
    [
        ("FIND {blender} RETURNING Widget(Id)", "INVALID_TYPE", 26),
        ("FIND {blender} RETURNING Product2(Id, Nmae)", "INVALID_FIELD", 39),
        ("FIND {zzzz} RETURNING Product2(Id, Nmae)", "INVALID_FIELD", 36),
        ("FIND {blender} RETURNING Product2(Id WHERE Nmae = 'x')", "INVALID_FIELD", 44),
        ("FIND {blender} RETURNING Product2(Id WHERE Name = )", "MALFORMED_SEARCH", None),
        ("FIND {blender} RETURNING Product2(Id), product2(Name)", "MALFORMED_SEARCH", 40),
        ("FIND {b}", "MALFORMED_SEARCH", 7),
    ],
)
def test_errors_have_codes_and_positions(
    org: Any, text: str, code: str, column: int | None
) -> None:
    with pytest.raises(QueryError) as info:
        run(org, text)
    assert info.value.code == code
    assert info.value.line == 1
    if column is not None:
        assert info.value.column == column


def test_fts_expression_exactness() -> None:
    exact = parse_sosl('FIND {alpha* AND NOT "b c"}').term
    assert fts_expression(exact) == ('("alpha" *) NOT ("b" + "c")', True)
    loose = parse_sosl("FIND {al?ha OR beta}").term
    assert fts_expression(loose) == ('("al" *) OR ("beta")', False)
    leading = parse_sosl("FIND {*pha OR beta}").term
    assert fts_expression(leading) == (None, False)


def test_search_paths_agree_on_every_object(fts_org: Any, scan_org: Any) -> None:
    for term in [
        "blender",
        "smith*",
        "b*r",
        "ex?mple",
        "*ample",
        "o'brien",
        "blender AND NOT warranty",
        '"two year"',
        "refund OR toaster",
    ]:
        expr = parse_sosl(f"FIND {{{term}}}").term
        fts_conn, scan_conn = fts_org.connect(), scan_org.connect()
        try:
            for obj in fts_org.schema:
                a = search_object(fts_conn, fts_org.fts_table, obj, expr, "ALL")
                b = search_object(scan_conn, scan_org.fts_table, obj, expr, "ALL")
                assert sorted(a) == sorted(b), (term, obj.name)
        finally:
            fts_conn.close()
            scan_conn.close()


def test_org_file_is_not_modified(fts_org_path: Any, fts_org: Any) -> None:
    before = fts_org_path.read_bytes()
    run(fts_org, KNOWLEDGE)
    assert fts_org_path.read_bytes() == before


def test_connection_schema_pair_is_accepted(fts_org: Any) -> None:
    conn = fts_org.connect()
    try:
        result = run((conn, fts_org.schema), KNOWLEDGE)
    finally:
        conn.close()
    assert len(result.records) == 2
