"""Fixtures for the org store tests: a hand-made 16-object org, raw and crmtui-written."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from crmtui.data.schema import Schema, builtin_schema
from crmtui.org.store import Org, write_org

Rows = dict[str, list[dict[str, str | None]]]

FIXED_META = {"created_at": "2024-06-01T00:00:00Z", "source": "tests"}


def hand_rows() -> Rows:
    """A few hand-written records per builtin object, with working references."""
    return {
        "User": [
            {
                "Id": "005Ws000001AgT1IAK",
                "Alias": "jsmit",
                "Email": "jane.smith@example.com",
                "EmailEncodingKey": "UTF-8",
                "FirstName": "Jane",
                "LanguageLocaleKey": "en_US",
                "LastName": "Smith",
                "LocaleSidKey": "en_US",
                "Phone": "555-0100",
                "TimeZoneSidKey": "America/New_York",
                "Username": "jane.smith@crm.example",
            },
            {
                "Id": "005Ws000001AgT2IAK",
                "Alias": "rchen",
                "Email": "raj.chen@example.com",
                "FirstName": "Raj",
                "LastName": "Chen",
                "Username": "raj.chen@crm.example",
            },
        ],
        "Account": [
            {
                "Id": "001Ws000003Bq1aIAC",
                "FirstName": "Ana",
                "LastName": "Müller",
                "PersonEmail": "ana@example.org",
                "ShippingCity": "Austin",
                "ShippingState": "TX",
            },
            {
                "Id": "001Ws000003Bq1bIAC",
                "FirstName": "Bo",
                "LastName": "Park",
                "ShippingState": "CA",
            },
        ],
        "Contact": [
            {
                "Id": "003Ws000004Cr1aIAC",
                "AccountId": "001Ws000003Bq1aIAC",
                "Email": "ana@example.org",
                "FirstName": "Ana",
                "LastName": "Müller",
                "OwnerId": "005Ws000001AgT1IAK",
            }
        ],
        "Case": [
            {
                "Id": "500Ws000005Ds1aIAC",
                "AccountId": "001Ws000003Bq1aIAC",
                "ContactId": "003Ws000004Cr1aIAC",
                "CreatedDate": "2024-03-02T10:15:00.000+0000",
                "ClosedDate": "2024-03-05T09:00:00.000+0000",
                "Description": "The zipper on my trail jacket broke after one hike.",
                "IssueId__c": "a1MWs0000012u0jMAA",
                "OrderItemId__c": "802Ws000007Fs1aIAC",
                "OwnerId": "005Ws000001AgT1IAK",
                "Priority": "High",
                "Status": "Closed",
                "Subject": "Broken zipper",
            },
            {
                "Id": "500Ws000005Ds1bIAC",
                "AccountId": "001Ws000003Bq1bIAC",
                "CreatedDate": "2024-05-26T06:58:00.000+0000",
                "Description": "Résumé of a delayed délivery",
                "OwnerId": "005Ws000001AgT2IAK",
                "Priority": "Low",
                "Status": "New",
                "Subject": "Where is my order?",
            },
        ],
        "Knowledge__kav": [
            {
                "Id": "ka0Ws000000Kn1aIAC",
                "FAQ_Answer__c": "Returns are accepted within 30 days of delivery.",
                "Summary": "Return window",
                "Title": "Return policy",
                "UrlName": "return-policy",
                "PublishStatus": "Online",
                "Language": "en_US",
            }
        ],
        "ProductCategory": [
            {"Id": "0ZGWs000000Pc1aIAC", "CatalogId": "0ZSWs01", "Name": "Jackets"}
        ],
        "Product2": [
            {
                "Id": "01tWs000000Pr1aIAC",
                "Description": "Waterproof trail jacket",
                "External_ID__c": "OUT-001",
                "IsActive": "1",
                "Name": "Trail Jacket",
            }
        ],
        "ProductCategoryProduct": [
            {
                "Id": "0ZHWs000000Pp1aIAC",
                "ProductCategoryId": "0ZGWs000000Pc1aIAC",
                "ProductId": "01tWs000000Pr1aIAC",
            }
        ],
        "Pricebook2": [
            {
                "Id": "01sWs000000Pb1aIAC",
                "Description": "Standard prices",
                "IsActive": "1",
                "Name": "Standard",
                "ValidFrom": "2023-01-01T00:00:00.000+0000",
                "ValidTo": "2025-01-01T00:00:00.000+0000",
            }
        ],
        "PricebookEntry": [
            {
                "Id": "01uWs000000Pe1aIAC",
                "Pricebook2Id": "01sWs000000Pb1aIAC",
                "Product2Id": "01tWs000000Pr1aIAC",
                "UnitPrice": "129.99",
            }
        ],
        "Order": [
            {
                "Id": "801Ws000006Or1aIAC",
                "AccountId": "001Ws000003Bq1aIAC",
                "EffectiveDate": "2024-02-20",
                "Pricebook2Id": "01sWs000000Pb1aIAC",
                "Status": "Activated",
            }
        ],
        "OrderItem": [
            {
                "Id": "802Ws000007Fs1aIAC",
                "OrderId": "801Ws000006Or1aIAC",
                "PriceBookEntryId": "01uWs000000Pe1aIAC",
                "Product2Id": "01tWs000000Pr1aIAC",
                "Quantity": "1.0",
                "UnitPrice": "129.99",
            }
        ],
        "EmailMessage": [
            {
                "Id": "02sWs000008Em1aIAC",
                "FromAddress": "ana@example.org",
                "MessageDate": "2024-03-02T10:20:00.000+0000",
                "ParentId": "500Ws000005Ds1aIAC",
                "Subject": "Re: Broken zipper",
                "TextBody": "Photos of the broken zipper attached.",
                "ToIds": "005Ws000001AgT1IAK",
                "ToAddress": "support@example.com",
            }
        ],
        "LiveChatTranscript": [
            {
                "Id": "570Ws000009Lc1aIAC",
                "AccountId": "001Ws000003Bq1aIAC",
                "Body": "Agent: Hello! Customer: my zipper broke.",
                "CaseId": "500Ws000005Ds1aIAC",
                "ContactId": "003Ws000004Cr1aIAC",
                "EndTime": "2024-03-02T10:40:00.000+0000",
                "LiveChatVisitorId": "5717000000abcde",
                "OwnerId": "005Ws000001AgT1IAK",
            }
        ],
        "Issue__c": [{"Id": "a1MWs0000012u0jMAA", "Name": "Size chart mismatch"}],
        "CaseHistory__c": [
            {
                "Id": "a0HWs000000Ch1aIAC",
                "CaseId__c": "500Ws000005Ds1aIAC",
                "CreatedDate": "2024-03-02T10:15:00.000+0000",
                "Field__c": "Case Creation",
                "NewValue__c": None,
                "OldValue__c": None,
            },
            {
                "Id": "a0HWs000000Ch1bIAC",
                "CaseId__c": "500Ws000005Ds1aIAC",
                "CreatedDate": "2024-03-02T10:16:00.000+0000",
                "Field__c": "Owner Assignment",
                "NewValue__c": "005Ws000001AgT1IAK",
                "OldValue__c": None,
            },
        ],
    }


def _column_defs(columns: list[str]) -> str:
    return ", ".join('"' + c + '" TEXT' for c in columns)


def write_raw(
    path: Path,
    schema: Schema,
    rows: Rows,
    *,
    drop: dict[str, list[str]] | None = None,
    extra_tables: dict[str, list[str]] | None = None,
) -> Path:
    """Write ``rows`` in upstream's raw layout with plain sqlite3 (no meta, index or FTS).

    Args:
        path: The file to create.
        schema: Objects (tables) and their fields (columns).
        rows: Records per object.
        drop: Columns to leave out per table; a value of ``["*"]`` leaves the table out.
        extra_tables: Additional tables (name -> columns), left empty.
    """
    drop = drop or {}
    conn = sqlite3.connect(path)
    with conn:
        for obj in schema:
            if drop.get(obj.name) == ["*"]:
                continue
            columns = [f.name for f in obj.fields if f.name not in drop.get(obj.name, [])]
            # Columns deliberately in a different order from crmtui's layout.
            columns = sorted(columns)
            conn.execute(f'CREATE TABLE "{obj.name}" ({_column_defs(columns)})')
            for row in rows.get(obj.name, []):
                conn.execute(
                    f'INSERT INTO "{obj.name}" VALUES ({", ".join("?" * len(columns))})',
                    [row.get(c) for c in columns],
                )
        for name, columns in (extra_tables or {}).items():
            conn.execute(f'CREATE TABLE "{name}" ({_column_defs(columns)})')
    conn.close()
    return path


@pytest.fixture
def rows() -> Rows:
    """Fresh copies of the hand-made records."""
    return hand_rows()


@pytest.fixture
def small_org(tmp_path: Path) -> Org:
    """The hand-made records written as a crmtui org."""
    return write_org(tmp_path / "small.db", builtin_schema(), hand_rows(), FIXED_META)


@pytest.fixture
def raw_db(tmp_path: Path) -> Path:
    """The hand-made records as a raw upstream-layout file (like crmarena_data.db)."""
    return write_raw(tmp_path / "crmarena_data.db", builtin_schema(), hand_rows())


@pytest.fixture
def raw_writer(tmp_path: Path) -> Callable[..., Path]:
    """Write a raw-layout file under tmp_path; keyword arguments as :func:`write_raw`."""

    def make(
        name: str, schema: Schema | None = None, rows: Rows | None = None, **kw: object
    ) -> Path:
        return write_raw(
            tmp_path / name,
            schema or builtin_schema(),
            hand_rows() if rows is None else rows,
            **kw,  # type: ignore[arg-type]
        )

    return make
