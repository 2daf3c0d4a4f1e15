"""Go to a record: the Id's key prefix names the object; bad input gets a clear message."""

from __future__ import annotations

import pytest

from crmtui.data.schema import builtin_schema
from crmtui.org.generator.ids import to18
from crmtui.play.goto import GotoError, looks_like_id, parse_record_id, restore_case

SCHEMA = builtin_schema()
CASE_ID = "500Ws000006ua8JIAQ"


def test_the_prefix_names_the_object() -> None:
    assert parse_record_id(SCHEMA, CASE_ID) == ("Case", CASE_ID)
    assert parse_record_id(SCHEMA, f"  '{CASE_ID}' ") == ("Case", CASE_ID)
    assert parse_record_id(SCHEMA, "005Ws000003aBcD") == ("User", to18("005Ws000003aBcD"))
    article = to18("ka0Ws00000AbCdE")
    assert parse_record_id(SCHEMA, article.lower()) == ("Knowledge__kav", article)


def test_an_id_in_the_wrong_case_is_repaired_from_its_suffix() -> None:
    assert restore_case(CASE_ID.lower()) == CASE_ID
    assert restore_case(CASE_ID.upper()) == CASE_ID
    assert parse_record_id(SCHEMA, CASE_ID.lower()) == ("Case", CASE_ID)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Type a record Id"),
        ("500Ws00", "is not a record Id"),
        ("SELECT Id FROM Case", "is not a record Id"),
        ("zzzWs000006ua8JIAQ", "No object of this org has the key prefix 'zzz'"),
    ],
)
def test_bad_input_says_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(GotoError, match=message):
        parse_record_id(SCHEMA, text)


def test_looks_like_id() -> None:
    assert looks_like_id(CASE_ID) and looks_like_id(f'"{CASE_ID}"')
    assert not looks_like_id("Case") and not looks_like_id("500 Ws")
