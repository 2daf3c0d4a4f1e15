"""format_observation: upstream's run_query post-processing, as exact strings."""

from __future__ import annotations

from collections.abc import Callable

from crmtui.query import QueryError, QueryResult, format_observation

from .conftest import A, C

Q = Callable[[str], QueryResult]


def test_drops_attributes(q: Q) -> None:
    result = q(f"SELECT Id, Subject FROM Case WHERE Id = '{C[0]}'")
    assert format_observation(result) == f"[{{'Id': '{C[0]}', 'Subject': 'Case 0'}}]"


def test_drops_columns_null_in_every_row(q: Q) -> None:
    result = q("SELECT Id, ClosedDate FROM Case WHERE Status = 'New' ORDER BY Subject")
    assert (
        format_observation(result) == f"[{{'Id': '{C[0]}'}}, {{'Id': '{C[11]}'}}, "
        f"{{'Id': '{C[8]}'}}]"
    )


def test_keeps_columns_null_in_some_rows(q: Q) -> None:
    result = q(f"SELECT Id, ClosedDate FROM Case WHERE Id IN ('{C[0]}', '{C[1]}') ORDER BY Subject")
    assert format_observation(result) == (
        f"[{{'Id': '{C[0]}', 'ClosedDate': None}}, "
        f"{{'Id': '{C[1]}', 'ClosedDate': '2024-05-15T01:00:00.000+0000'}}]"
    )


def test_nested_parent_keeps_its_attributes(q: Q) -> None:
    result = q(f"SELECT Id, Account.ShippingState FROM Case WHERE Id = '{C[0]}'")
    assert format_observation(result) == (
        f"[{{'Id': '{C[0]}', 'Account': {{'attributes': {{'type': 'Account', "
        f"'url': '/services/data/v60.0/sobjects/Account/{A[0]}'}}, 'ShippingState': 'CA'}}}}]"
    )


def test_empty_result(q: Q) -> None:
    assert format_observation(q("SELECT Id FROM Case WHERE Subject = 'none'")) == "[]"


def test_count_styles(q: Q) -> None:
    result = q("SELECT COUNT() FROM Case WHERE Status = 'Closed'")
    assert format_observation(result) == "[]"
    assert format_observation(result, count_style="helpful") == "[{'expr0': 7}]"
    zero = q("SELECT COUNT() FROM Case WHERE Status = 'Nope'")
    assert format_observation(zero, count_style="helpful") == "[{'expr0': 0}]"


def test_error_observation(q: Q) -> None:
    try:
        q("SELECT Foo FROM Case")
    except QueryError as err:
        assert format_observation(err) == (
            "INVALID_FIELD: No such column 'Foo' on entity 'Case'. If you are attempting to "
            "use a custom field, be sure to append the '__c' after the custom field name. "
            "Please reference your WSDL or the describe call for the appropriate names."
        )
        assert err.salesforce_text("SELECT Foo FROM Case") == (
            "INVALID_FIELD: \nSELECT Foo FROM Case\n       ^\nERROR at Row:1:Column:8\n"
            + err.message
        )
    else:
        raise AssertionError("expected a QueryError")
