"""Schema search for the tree filter and the command palette."""

from __future__ import annotations

from crmtui.data.schema import builtin_schema
from crmtui.play.schema_search import search_schema

SCHEMA = builtin_schema()


def test_names_rank_before_descriptions() -> None:
    hits = search_schema(SCHEMA, "case")
    assert hits[0].path == "Case" and hits[0].rank == 0
    paths = [h.path for h in hits]
    assert "CaseHistory__c" in paths
    ranks = [h.rank for h in hits]
    assert ranks == sorted(ranks)


def test_fields_by_name_type_and_reference_target() -> None:
    assert "Account.ShippingState" in [h.path for h in search_schema(SCHEMA, "shippingstate")]
    assert any(h.path == "Case.AccountId" for h in search_schema(SCHEMA, "account"))
    dotted = [h.path for h in search_schema(SCHEMA, "case.own")]
    assert dotted[0] == "Case.OwnerId" and all(p.startswith("Case") for p in dotted)


def test_empty_text_lists_the_objects() -> None:
    hits = search_schema(SCHEMA, "  ")
    assert [h.path for h in hits] == SCHEMA.object_names
    assert search_schema(SCHEMA, "zzzz") == []
    assert len(search_schema(SCHEMA, "id", limit=5)) == 5
