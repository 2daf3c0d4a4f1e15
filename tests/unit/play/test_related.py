"""Related lists show the columns a person needs to pick a record, defined in the play core."""

from __future__ import annotations

import pytest

from crmtui.data.schema import builtin_schema
from crmtui.org.build import build_org
from crmtui.org.store import Org
from crmtui.play import browser
from crmtui.play.cells import ValueRef, row_text, row_view_text, value_text
from crmtui.play.related import related_columns, related_order
from crmtui.play.views import RecordView
from crmtui.query import run

SCHEMA = builtin_schema()


@pytest.mark.parametrize(
    ("child", "via", "columns"),
    [
        ("Order", "AccountId", ["EffectiveDate", "Status"]),  # no Account.Name: it is the parent
        ("Order", "Pricebook2Id", ["EffectiveDate", "Status", "Account.Name"]),
        ("OrderItem", "OrderId", ["Product2.Name", "Quantity", "UnitPrice"]),
        ("OrderItem", "Product2Id", ["Quantity", "UnitPrice", "Order.EffectiveDate"]),
        ("EmailMessage", "ParentId", ["Subject", "MessageDate", "FromAddress"]),
        ("Case", "OwnerId", ["Subject", "Status", "CreatedDate", "ClosedDate"]),
        ("CaseHistory__c", "CaseId__c", ["CreatedDate", "Field__c", "OldValue__c", "NewValue__c"]),
        ("Contact", "AccountId", ["Name", "Email"]),
    ],
)
def test_columns_per_child_leave_out_the_parent(child: str, via: str, columns: list[str]) -> None:
    assert related_columns(SCHEMA, child, via) == columns


def test_columns_the_schema_lacks_are_dropped_and_unknown_objects_get_a_label() -> None:
    from crmtui.data.schema import Field, Schema, SObject

    bare = Schema(
        [
            SObject("Account", (Field("Id", "id"),), key_prefix="001"),
            SObject(
                "Order",
                (Field("Id", "id"), Field("AccountId", "reference", reference_to="Account")),
                key_prefix="801",
            ),
            SObject(
                "Widget__c",
                (
                    Field("Id", "id"),
                    Field("Title", "string"),
                    Field("AccountId", "reference", reference_to="Account"),
                ),
                key_prefix="a09",
            ),
        ]
    )
    assert related_columns(bare, "Order", "AccountId") == []
    assert related_order(bare, "Order", []) == "Id"
    assert related_columns(bare, "Widget__c", "AccountId") == ["Title"]


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Org:
    out = tmp_path_factory.mktemp("related") / "sample.db"
    build_org(out, seed=7, scale="small", name="sample")
    return Org.open(out)


def test_an_accounts_orders_show_dates_newest_first(org: Org) -> None:
    account = run(org, "SELECT AccountId FROM Order LIMIT 1").records[0]["AccountId"]
    detail = browser.load_record(org, RecordView("Account", account))
    assert detail is not None
    orders = next(rel for rel in detail.related if rel.name == "Orders")
    expected = run(
        org,
        f"SELECT Id, EffectiveDate, Status FROM Order WHERE AccountId = '{account}' "
        "ORDER BY EffectiveDate DESC, Id",
    ).records
    assert orders.columns == ["EffectiveDate", "Status"]
    assert orders.ids == [r["Id"] for r in expected][: browser.RELATED_LIMIT]
    assert (
        orders.rows
        == [[r["EffectiveDate"], r["Status"]] for r in expected][: browser.RELATED_LIMIT]
    )


def test_an_orders_items_show_product_names_through_the_reference(org: Org) -> None:
    order = run(org, "SELECT OrderId FROM OrderItem LIMIT 1").records[0]["OrderId"]
    detail = browser.load_record(org, RecordView("Order", order))
    assert detail is not None
    items = next(rel for rel in detail.related if rel.name == "OrderItems")
    assert items.columns[0] == "Product2.Name"
    names = {
        r["Id"]: r["Product2"]["Name"]
        for r in run(
            org, f"SELECT Id, Product2.Name FROM OrderItem WHERE OrderId = '{order}'"
        ).records
    }
    assert {i: row[0] for i, row in zip(items.ids, items.rows, strict=True)} == names


def test_value_text_and_rows() -> None:
    assert value_text(None) == "" and value_text(True) == "true" and value_text(1.5) == "1.5"
    assert value_text("a\nb") == "a\nb"
    assert value_text([{"Id": "1"}]).startswith("[")
    assert row_text(["a", None, "x\ny", False]) == "a\t\tx y\tfalse"
    assert row_view_text(["Id", "Body"], ["1", "l1\nl2"]) == "Id: 1\nBody:\nl1\nl2"
    assert ValueRef("record", "Body", "LiveChatTranscript", "570x").label == (
        "LiveChatTranscript.Body · 570x"
    )
    assert ValueRef("console").label == "console"
