"""A hand-built fixture org (raw upstream layout: one all-TEXT table per object).

About a dozen rows per main object with values chosen so that every answer in the tests
can be checked by reading this file. Reference date for relative literals: TODAY.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from crmtui.data.schema import Schema, builtin_schema
from crmtui.query import QueryResult, execute_soql

#: The fixed "today" of the fixture (a Wednesday).
TODAY = dt.date(2024, 5, 15)


def rid(prefix: str, n: int) -> str:
    """An 18-character Salesforce-like Id: key prefix + 'Ws' + number + 'AAA'."""
    return f"{prefix}Ws{n:010d}AAA"


U = [rid("005", i) for i in range(4)]
A = [rid("001", i) for i in range(6)]
CO = [rid("003", i) for i in range(6)]
C = [rid("500", i) for i in range(12)]
ISS = [rid("a1M", i) for i in range(3)]
P = [rid("01t", i) for i in range(4)]
PB = [rid("01s", i) for i in range(2)]
PBE = [rid("01u", i) for i in range(4)]
ORD = [rid("801", i) for i in range(5)]
OI = [rid("802", i) for i in range(10)]
CH = [rid("a0H", i) for i in range(10)]


def _dt(text: str) -> str:
    return text + ".000+0000"


ROWS: dict[str, list[dict[str, str | None]]] = {
    "User": [
        {
            "Id": U[0],
            "FirstName": "Ana",
            "LastName": "Silva",
            "Alias": "asil",
            "Email": "ana@example.com",
            "Username": "ana@example.com",
        },
        {
            "Id": U[1],
            "FirstName": "Ben",
            "LastName": "Okafor",
            "Alias": "boka",
            "Email": "ben@example.com",
            "Username": "ben@example.com",
        },
        {
            "Id": U[2],
            "FirstName": "Chen",
            "LastName": "Wei",
            "Alias": "cwei",
            "Email": "chen@example.com",
            "Username": "chen@example.com",
        },
        {
            "Id": U[3],
            "FirstName": None,
            "LastName": "Solo",
            "Alias": "solo",
            "Email": None,
            "Username": "solo@example.com",
        },
    ],
    "Account": [
        {
            "Id": A[0],
            "FirstName": "Dora",
            "LastName": "Ng",
            "ShippingState": "CA",
            "ShippingCity": "Fresno",
            "PersonEmail": "dora@example.com",
        },
        {
            "Id": A[1],
            "FirstName": "Eli",
            "LastName": "Park",
            "ShippingState": "NY",
            "ShippingCity": "Albany",
            "PersonEmail": None,
        },
        {
            "Id": A[2],
            "FirstName": "Fay",
            "LastName": "Ruiz",
            "ShippingState": "CA",
            "ShippingCity": "Oakland",
            "PersonEmail": "fay@example.com",
        },
        {
            "Id": A[3],
            "FirstName": "Gus",
            "LastName": "O'Neil",
            "ShippingState": "TX",
            "ShippingCity": "Austin",
            "PersonEmail": None,
        },
        {
            "Id": A[4],
            "FirstName": "Hal",
            "LastName": "Berg",
            "ShippingState": None,
            "ShippingCity": None,
            "PersonEmail": None,
        },
        {
            "Id": A[5],
            "FirstName": "Ivy",
            "LastName": "Lund",
            "ShippingState": "NY",
            "ShippingCity": "Buffalo",
            "PersonEmail": "ivy@example.com",
        },
    ],
    "Contact": [
        {
            "Id": CO[i],
            "AccountId": A[i],
            "FirstName": f"C{i}",
            "LastName": f"Contact{i}",
            "Email": f"c{i}@example.com",
            "OwnerId": U[i % 3],
        }
        for i in range(6)
    ],
    "Issue__c": [
        {"Id": ISS[0], "Name": "Size chart mismatch"},
        {"Id": ISS[1], "Name": "Wrong item received"},
        {"Id": ISS[2], "Name": "Delayed delivery"},
    ],
    "Product2": [
        {
            "Id": P[0],
            "Name": "Trail Shoe",
            "Description": "Light trail running shoe",
            "IsActive": "1",
            "External_ID__c": "EXT-0",
        },
        {
            "Id": P[1],
            "Name": "Rain Jacket",
            "Description": "Waterproof 100% shell",
            "IsActive": "true",
            "External_ID__c": "EXT-1",
        },
        {
            "Id": P[2],
            "Name": "Wool Sock",
            "Description": None,
            "IsActive": "0",
            "External_ID__c": "EXT-2",
        },
        {
            "Id": P[3],
            "Name": "Tent_2P",
            "Description": "Two-person tent",
            "IsActive": "False",
            "External_ID__c": "EXT-3",
        },
    ],
    "Pricebook2": [
        {
            "Id": PB[0],
            "Name": "Standard",
            "IsActive": "1",
            "Description": None,
            "ValidFrom": _dt("2020-01-01T00:00:00"),
            "ValidTo": _dt("2030-01-01T00:00:00"),
        },
        {
            "Id": PB[1],
            "Name": "Outlet",
            "IsActive": "0",
            "Description": "Clearance",
            "ValidFrom": _dt("2023-01-01T00:00:00"),
            "ValidTo": None,
        },
    ],
    "PricebookEntry": [
        {
            "Id": PBE[i],
            "Pricebook2Id": PB[0],
            "Product2Id": P[i],
            "UnitPrice": ["120.0", "89.99", "9.5", "240.0"][i],
        }
        for i in range(4)
    ],
    "Order": [
        {
            "Id": ORD[0],
            "AccountId": A[0],
            "EffectiveDate": "2024-05-01",
            "Status": "Activated",
            "Pricebook2Id": PB[0],
        },
        {
            "Id": ORD[1],
            "AccountId": A[0],
            "EffectiveDate": "2024-04-20",
            "Status": "Draft",
            "Pricebook2Id": PB[0],
        },
        {
            "Id": ORD[2],
            "AccountId": A[1],
            "EffectiveDate": "2024-05-01",
            "Status": "Activated",
            "Pricebook2Id": PB[0],
        },
        {
            "Id": ORD[3],
            "AccountId": A[2],
            "EffectiveDate": "2023-11-11",
            "Status": "Activated",
            "Pricebook2Id": PB[0],
        },
        {
            "Id": ORD[4],
            "AccountId": A[3],
            "EffectiveDate": "2024-05-15",
            "Status": "Activated",
            "Pricebook2Id": PB[0],
        },
    ],
    # (Order, Product, Quantity, UnitPrice)
    "OrderItem": [
        {
            "Id": OI[i],
            "OrderId": ORD[o],
            "Product2Id": P[p],
            "PriceBookEntryId": PBE[p],
            "Quantity": q,
            "UnitPrice": up,
        }
        for i, (o, p, q, up) in enumerate(
            [
                (0, 0, "1.0", "120.0"),
                (0, 1, "2.0", "89.99"),
                (1, 2, "3.0", "9.5"),
                (2, 0, "1.0", "120.0"),
                (2, 3, "1.0", "240.0"),
                (3, 1, "1.0", "89.99"),
                (3, 2, "10.0", "9.5"),
                (4, 0, "2.0", "120.0"),
                (4, 2, "4.0", "9.5"),
                (4, 3, None, "240.0"),
            ]
        )
    ],
    # (created, closed, status, priority, owner, account, contact, issue, order item)
    "Case": [
        {
            "Id": C[i],
            "CreatedDate": _dt(cr),
            "ClosedDate": _dt(cl) if cl else None,
            "Status": st,
            "Priority": pr,
            "OwnerId": U[ow],
            "AccountId": A[ac],
            "ContactId": CO[ac],
            "IssueId__c": ISS[iss] if iss is not None else None,
            "OrderItemId__c": OI[oi],
            "Subject": f"Case {i}",
            "Description": f"Problem number {i}",
        }
        for i, (cr, cl, st, pr, ow, ac, iss, oi) in enumerate(
            [
                ("2024-05-15T10:00:00", None, "New", "High", 0, 0, 0, 0),
                ("2024-05-14T23:59:59", "2024-05-15T01:00:00", "Closed", "Low", 1, 1, 1, 3),
                ("2024-05-12T00:00:00", None, "Working", "Medium", 0, 2, 0, 5),
                ("2024-05-11T23:59:59", "2024-05-13T12:00:00", "Closed", "High", 2, 0, 2, 1),
                ("2024-05-01T00:00:00", "2024-05-02T00:00:00", "Closed", "Low", 1, 3, 1, 7),
                ("2024-04-30T12:00:00", None, "Escalated", "High", 0, 1, None, 3),
                ("2024-03-01T00:00:00", "2024-03-05T06:30:00", "Closed", "Medium", 2, 2, 0, 5),
                ("2024-02-29T23:00:00", "2024-03-01T01:00:00", "Closed", "Low", 1, 4, 2, 9),
                ("2024-01-01T00:00:00", None, "New", None, 0, 5, 1, 0),
                ("2023-12-31T23:59:59", "2024-01-02T00:00:00", "Closed", "High", 2, 0, 0, 4),
                ("2023-06-15T08:30:00", "2023-06-16T08:30:00", "Closed", "Medium", 1, 3, 1, 8),
                ("2024-05-16T00:00:00", None, "New", "Low", 3, 5, None, 2),
            ]
        )
    ],
    # (case, created, field, new value, old value)
    "CaseHistory__c": [
        {
            "Id": CH[i],
            "CaseId__c": C[c],
            "CreatedDate": _dt(cr),
            "Field__c": f,
            "NewValue__c": U[nv] if nv is not None else None,
            "OldValue__c": U[ov] if ov is not None else None,
        }
        for i, (c, cr, f, nv, ov) in enumerate(
            [
                (0, "2024-05-15T10:00:00", "Case Creation", None, None),
                (0, "2024-05-15T10:05:00", "Owner Assignment", 0, None),
                (1, "2024-05-14T23:59:59", "Owner Assignment", 0, None),
                (1, "2024-05-15T00:30:00", "Owner Assignment", 1, 0),
                (2, "2024-05-12T00:00:00", "Owner Assignment", 0, None),
                (3, "2024-05-11T23:59:59", "Owner Assignment", 2, None),
                (3, "2024-05-13T12:00:00", "Case Closed", None, None),
                (4, "2024-05-01T00:00:00", "Owner Assignment", 1, None),
                (6, "2024-03-01T00:00:00", "Owner Assignment", 1, None),
                (6, "2024-03-02T00:00:00", "Owner Assignment", 2, 1),
            ]
        )
    ],
    "EmailMessage": [
        {
            "Id": rid("02s", 0),
            "ParentId": C[0],
            "Subject": "Re: Case 0",
            "TextBody": "Hello",
            "FromAddress": "dora@example.com",
            "ToAddress": "ana@example.com",
            "ToIds": U[0],
            "MessageDate": _dt("2024-05-15T11:00:00"),
        },
        {
            "Id": rid("02s", 1),
            "ParentId": C[0],
            "Subject": "Re: Re: Case 0",
            "TextBody": "Thanks",
            "FromAddress": "ana@example.com",
            "ToAddress": "dora@example.com",
            "ToIds": None,
            "MessageDate": _dt("2024-05-15T12:00:00"),
        },
        {
            "Id": rid("02s", 2),
            "ParentId": C[3],
            "Subject": "Case 3",
            "TextBody": "Broken",
            "FromAddress": "dora@example.com",
            "ToAddress": "chen@example.com",
            "ToIds": U[2],
            "MessageDate": _dt("2024-05-12T09:00:00"),
        },
    ],
    "LiveChatTranscript": [
        {
            "Id": rid("570", 0),
            "CaseId": C[2],
            "AccountId": A[2],
            "ContactId": CO[2],
            "OwnerId": U[0],
            "Body": "Chat about tent",
            "EndTime": _dt("2024-05-12T01:00:00"),
            "LiveChatVisitorId": "v0",
        },
        {
            "Id": rid("570", 1),
            "CaseId": C[5],
            "AccountId": A[1],
            "ContactId": CO[1],
            "OwnerId": U[0],
            "Body": "Chat about jacket",
            "EndTime": _dt("2024-04-30T13:00:00"),
            "LiveChatVisitorId": "v1",
        },
    ],
    "Knowledge__kav": [
        {
            "Id": rid("ka0", 0),
            "Title": "Returns policy",
            "Summary": "How to return",
            "FAQ_Answer__c": "Within 30 days",
            "UrlName": "returns",
            "PublishStatus": "Online",
            "Language": "en_US",
        },
        {
            "Id": rid("ka0", 1),
            "Title": "Sizing",
            "Summary": "Size charts",
            "FAQ_Answer__c": "See chart",
            "UrlName": "sizing",
            "PublishStatus": "Draft",
            "Language": "en_US",
        },
    ],
    "ProductCategory": [
        {"Id": rid("0ZG", 0), "Name": "Footwear", "CatalogId": "cat0"},
        {"Id": rid("0ZG", 1), "Name": "Outerwear", "CatalogId": "cat0"},
    ],
    "ProductCategoryProduct": [
        {"Id": rid("0ZH", 0), "ProductCategoryId": rid("0ZG", 0), "ProductId": P[0]},
        {"Id": rid("0ZH", 1), "ProductCategoryId": rid("0ZG", 1), "ProductId": P[1]},
    ],
}


def build_org_file(path: Path, schema: Schema) -> Path:
    """Write ROWS into ``path`` in the raw layout (all TEXT, no indexes, no meta)."""
    conn = sqlite3.connect(path)
    for obj in schema:
        cols = ", ".join(f'"{f.name}" TEXT' for f in obj.fields)
        conn.execute(f'CREATE TABLE "{obj.name}" ({cols})')
        names = [f.name for f in obj.fields]
        marks = ", ".join("?" * len(names))
        quoted = ", ".join(f'"{n}"' for n in names)
        conn.executemany(
            f'INSERT INTO "{obj.name}" ({quoted}) VALUES ({marks})',
            [[row.get(n) for n in names] for row in ROWS.get(obj.name, [])],
        )
    conn.commit()
    conn.close()
    return path


class FixtureOrg:
    """Stand-in for ``crmtui.org.store.Org``: schema + read-only connections."""

    def __init__(self, path: Path, schema: Schema) -> None:
        self.path = path
        self.schema = schema
        self.has_fts = False
        self.connections = 0

    def connect(self) -> sqlite3.Connection:
        """A new read-only connection."""
        self.connections += 1
        return sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)

    def fts_table(self, obj: str) -> str | None:
        """No FTS tables in the raw layout."""
        return None


@pytest.fixture(scope="session")
def org_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture org file (built once per session; tests only read it)."""
    return build_org_file(tmp_path_factory.mktemp("org") / "fixture.db", builtin_schema())


@pytest.fixture(scope="session")
def org(org_file: Path) -> FixtureOrg:
    """The fixture org."""
    return FixtureOrg(org_file, builtin_schema())


@pytest.fixture
def q(org: FixtureOrg) -> Callable[[str], QueryResult]:
    """Run SOQL on the fixture org with the fixed TODAY."""

    def run(text: str) -> QueryResult:
        return execute_soql(org, text, today=TODAY)

    return run


@pytest.fixture
def rows(q: Callable[[str], QueryResult]) -> Callable[[str], list[dict[str, Any]]]:
    """Run SOQL and return records without their top-level attributes."""

    def run(text: str) -> list[dict[str, Any]]:
        return [{k: v for k, v in r.items() if k != "attributes"} for r in q(text).records]

    return run


@pytest.fixture
def ids(q: Callable[[str], QueryResult]) -> Callable[[str], list[str]]:
    """Run SOQL and return the records' Ids (the query must select Id)."""

    def run(text: str) -> list[str]:
        return [r["Id"] for r in q(text).records]

    return run
