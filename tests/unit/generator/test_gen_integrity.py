"""Table shape, value formats and referential integrity of the generated org."""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import datetime

import pytest

from crmtui.data.schema import builtin_schema
from crmtui.org.generator import GeneratedOrg
from crmtui.org.generator.ids import is_valid_id

DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000\+0000$")
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
NUMBER = re.compile(r"^\d+\.\d{1,2}$")


def _dt(text: str) -> datetime:
    return datetime.strptime(text[:19], "%Y-%m-%dT%H:%M:%S")


def test_every_object_has_rows_with_exact_columns(small_org: GeneratedOrg) -> None:
    schema = builtin_schema()
    assert list(small_org.tables) == schema.object_names
    for obj in schema:
        rows = small_org.tables[obj.name]
        assert rows, obj.name
        expected = set(obj.field_names)
        for row in rows:
            assert set(row) == expected, obj.name


def test_ids_are_unique_valid_and_prefixed(small_org: GeneratedOrg) -> None:
    seen: set[str] = set()
    for obj in builtin_schema():
        for row in small_org.tables[obj.name]:
            assert is_valid_id(row["Id"], prefix=obj.key_prefix), row["Id"]
            assert row["Id"].lower() not in seen
            seen.add(row["Id"].lower())


def test_values_use_the_org_text_layout(small_org: GeneratedOrg) -> None:
    for obj in builtin_schema():
        for row in small_org.tables[obj.name]:
            for f in obj.fields:
                value = row[f.name]
                assert value is None or isinstance(value, str), (obj.name, f.name)
                if value is None:
                    continue
                if f.type == "datetime":
                    assert DATETIME.match(value), (obj.name, f.name, value)
                elif f.type == "date":
                    assert DATE.match(value), (obj.name, f.name, value)
                elif f.type == "boolean":
                    assert value in ("0", "1")
                elif f.type in ("double", "currency", "int"):
                    assert NUMBER.match(value), (obj.name, f.name, value)


def test_every_reference_points_at_an_existing_row(small_org: GeneratedOrg) -> None:
    ids = {name: {r["Id"] for r in rows} for name, rows in small_org.tables.items()}
    checked = 0
    for obj in builtin_schema():
        for f in obj.references:
            for row in small_org.tables[obj.name]:
                value = row[f.name]
                assert value is not None, (obj.name, f.name)
                assert value in ids[f.reference_to], (obj.name, f.name, value)
                checked += 1
    assert checked > 5_000


def test_owner_assignment_values_are_users(small_org: GeneratedOrg) -> None:
    users = {u["Id"] for u in small_org.tables["User"]}
    for row in small_org.tables["CaseHistory__c"]:
        if row["Field__c"] == "Owner Assignment":
            assert row["NewValue__c"] in users
            assert row["OldValue__c"] is None or row["OldValue__c"] in users
        else:
            assert row["NewValue__c"] is None and row["OldValue__c"] is None


def test_case_points_at_an_earlier_purchase_of_its_own_account(small_org: GeneratedOrg) -> None:
    items = {i["Id"]: i for i in small_org.tables["OrderItem"]}
    orders = {o["Id"]: o for o in small_org.tables["Order"]}
    contacts = {c["Id"]: c for c in small_org.tables["Contact"]}
    for case in small_org.tables["Case"]:
        order = orders[items[case["OrderItemId__c"]]["OrderId"]]
        assert order["AccountId"] == case["AccountId"]
        assert order["Status"] == "Activated"
        assert order["EffectiveDate"] < case["CreatedDate"][:10]
        assert contacts[case["ContactId"]]["AccountId"] == case["AccountId"]


def test_prices_come_from_the_orders_price_book(small_org: GeneratedOrg) -> None:
    entries = {e["Id"]: e for e in small_org.tables["PricebookEntry"]}
    orders = {o["Id"]: o for o in small_org.tables["Order"]}
    books = {b["Id"]: b for b in small_org.tables["Pricebook2"]}
    for item in small_org.tables["OrderItem"]:
        entry = entries[item["PriceBookEntryId"]]
        order = orders[item["OrderId"]]
        assert entry["Product2Id"] == item["Product2Id"]
        assert entry["UnitPrice"] == item["UnitPrice"]
        assert entry["Pricebook2Id"] == order["Pricebook2Id"]
        book = books[order["Pricebook2Id"]]
        if book["ValidFrom"] is not None:
            assert book["ValidFrom"][:10] <= order["EffectiveDate"] <= book["ValidTo"][:10]


def test_no_product_twice_in_one_order(small_org: GeneratedOrg) -> None:
    lines: dict[str, list[str]] = defaultdict(list)
    for item in small_org.tables["OrderItem"]:
        lines[item["OrderId"]].append(item["Product2Id"])
    assert all(len(p) == len(set(p)) for p in lines.values())


def test_person_accounts_have_state_and_one_contact(small_org: GeneratedOrg) -> None:
    by_account = defaultdict(list)
    for contact in small_org.tables["Contact"]:
        by_account[contact["AccountId"]].append(contact)
    for account in small_org.tables["Account"]:
        assert re.fullmatch(r"[A-Z]{2}", account["ShippingState"])
        assert account["ShippingCity"]
        (contact,) = by_account[account["Id"]]
        assert contact["Email"] == account["PersonEmail"]


def test_conversations_happen_within_the_case(small_org: GeneratedOrg) -> None:
    cases = {c["Id"]: c for c in small_org.tables["Case"]}
    for email in small_org.tables["EmailMessage"]:
        case = cases[email["ParentId"]]
        assert _dt(case["CreatedDate"]) <= _dt(email["MessageDate"])
        if case["ClosedDate"]:
            assert _dt(email["MessageDate"]) <= _dt(case["ClosedDate"])
    for chat in small_org.tables["LiveChatTranscript"]:
        case = cases[chat["CaseId"]]
        assert chat["AccountId"] == case["AccountId"]
        assert chat["ContactId"] == case["ContactId"]
        assert _dt(case["CreatedDate"]) < _dt(chat["EndTime"])


def test_knowledge_is_published_english(small_org: GeneratedOrg) -> None:
    urls = [k["UrlName"] for k in small_org.tables["Knowledge__kav"]]
    assert len(urls) == len(set(urls))
    for article in small_org.tables["Knowledge__kav"]:
        assert article["PublishStatus"] == "Online"
        assert article["Language"] == "en_US"
        assert article["Title"] and article["Summary"] and article["FAQ_Answer__c"]


@pytest.mark.parametrize("obj", ["Issue__c", "ProductCategory", "Product2"])
def test_names_are_unique(small_org: GeneratedOrg, obj: str) -> None:
    names = [r["Name"] for r in small_org.tables[obj]]
    assert len(names) == len(set(names))
