"""Console completion from the schema: the context comes from the text before the cursor."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crmtui.data.schema import builtin_schema
from crmtui.play.completion import complete

SCHEMA = builtin_schema()


def _texts(before: str, after: str = "") -> list[str] | None:
    result = complete(SCHEMA, before, after)
    return None if result is None else [item.text for item in result.items]


@pytest.mark.parametrize(
    ("before", "after", "first"),
    [
        ("SELECT Id FROM Ca", "", "Case"),
        ("SELECT Sub", " FROM Case", "Subject"),
        ("SELECT Id FROM Case WHERE Sta", "", "Status"),
        ("SELECT Id FROM Case GROUP BY Own", "", "OwnerId"),
        ("SELECT Id FROM Case ORDER BY Created", "", "CreatedDate"),
        ("SELECT Id FROM Case GROUP BY OwnerId HAVING COUNT(I", "", "Id"),
        ("SELECT Account.Ship", " FROM Case", "ShippingCity"),
        ("SELECT Case.Account.Ship", " FROM Case", "ShippingCity"),
        ("SELECT Owner.Na", " FROM Case", "Name"),  # User's compound Name
        ("SELECT Id, (SELECT Id FROM ", ") FROM Account", "Contacts"),
        ("SELECT Id, (SELECT Id FROM Cases WHERE Sta", ") FROM Account", "Status"),
        ("SELECT Id FROM Account WHERE Id IN (SELECT AccountId FROM Ca", "", "Case"),
        ("SELECT COUNT(Ow", " FROM Case", "OwnerId"),
        ("SELECT CALENDAR_MONTH(Clo", ") FROM Case", "ClosedDate"),
        ("FIND {shoe} RETURNING Ca", "", "Case"),
        ("FIND {shoe} RETURNING Case(Sub", "", "Subject"),
        ("FIND {shoe} RETURNING Case(Id), Iss", "", "Issue__c"),
    ],
)
def test_what_fits_at_the_cursor(before: str, after: str, first: str) -> None:
    texts = _texts(before, after)
    assert texts and texts[0] == first, texts


def test_fields_start_with_the_word_first_then_contain_it() -> None:
    texts = _texts("SELECT Id FROM Account WHERE state", "")
    assert texts is not None and texts[0] == "ShippingState"
    relationship = complete(SCHEMA, "SELECT Acc", " FROM Case")
    assert relationship is not None and relationship.word == "Acc"
    kinds = {item.text: item.kind for item in relationship.items}
    assert kinds["Account"] == "relationship" and kinds["AccountId"] == "field"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("SELECT Id FROM Case WHERE Status = 'Clo", "'"),  # inside a string
        ("SELECT Id FROM Case LIMIT 1", ""),
        ("SELECT Id FROM Case WHERE CreatedDate > 2020", ""),
        ("SELECT Nope.Na", " FROM Case"),  # not a relationship
        ("SELECT Sub", ""),  # no FROM anywhere
        ("SELECT Id FROM Case ", ""),  # the object is already there
        ("SELECT Id FROM Case WHERE Status", ""),  # already complete, nothing else fits
    ],
)
def test_nothing_where_nothing_fits(before: str, after: str) -> None:
    result = complete(SCHEMA, before, after)
    assert result is None or result.items == ()


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="SELECTFROMWHRID(),.' \n_abcx{}", max_size=60), st.text(max_size=20))
def test_any_text_completes_without_error(before: str, after: str) -> None:
    result = complete(SCHEMA, before, after)
    if result is not None:
        assert before.endswith(result.word)


def test_a_whole_keyword_opens_no_list() -> None:
    assert complete(SCHEMA, "SELECT Id FROM Case ORDER BY CreatedDate DESC") is None
    assert complete(SCHEMA, "SELECT Id FROM Case WHERE Status = null AND") is None
    descr = complete(SCHEMA, "SELECT Id FROM Case ORDER BY Descr")
    assert descr is not None and descr.items[0].text == "Description"
