"""Fixture orgs for the SOSL tests, written with plain sqlite3 in upstream's raw layout.

``fts_org`` adds ``_fts_<Object>`` tables (external content, unicode61 remove_diacritics 2,
rowid = raw rowid) the way crmtui-built orgs have them; ``scan_org`` is the same data without
them, so every search there takes the scan fallback.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from crmtui.data.schema import builtin_schema

OBJECTS = ["User", "Account", "Contact", "Case", "Knowledge__kav", "Product2", "EmailMessage"]
SEARCHABLE = {"string", "textarea", "email", "phone", "picklist"}

ROWS: dict[str, list[dict[str, str | None]]] = {
    "User": [
        {
            "Id": "005000000000001AAA",
            "FirstName": "Maria",
            "LastName": "Lopez",
            "Email": "maria.lopez@example.com",
            "Phone": "(415) 555-0101",
            "Alias": "mlopez",
            "Username": "maria.lopez@crm.example",
        },
        {
            "Id": "005000000000002AAA",
            "FirstName": "John",
            "LastName": "Smith",
            "Email": "jsmith@example.com",
            "Phone": "212-555-0199",
            "Alias": "jsmith",
            "Username": "john.smith@crm.example",
        },
    ],
    "Account": [
        {
            "Id": "001000000000001AAA",
            "FirstName": "Ana",
            "LastName": "Müller",
            "PersonEmail": "ana@mueller.example",
            "Phone": "030 1234567",
            "ShippingCity": "Berlin",
            "ShippingState": "BE",
        },
        {
            "Id": "001000000000002AAA",
            "FirstName": "Johnny",
            "LastName": "Smithers",
            "PersonEmail": "johnny@smithers.example",
            "Phone": "415-555-0123",
            "ShippingCity": "San Francisco",
            "ShippingState": "CA",
        },
    ],
    "Contact": [
        {
            "Id": "003000000000001AAA",
            "AccountId": "001000000000001AAA",
            "FirstName": "Ana",
            "LastName": "Müller",
            "Email": "ana@mueller.example",
            "OwnerId": "005000000000001AAA",
        },
        {
            "Id": "003000000000002AAA",
            "AccountId": "001000000000002AAA",
            "FirstName": "Johnny",
            "LastName": "Smithers",
            "Email": "johnny@smithers.example",
            "OwnerId": "005000000000002AAA",
        },
        {
            "Id": "003000000000003AAA",
            "AccountId": None,
            "FirstName": "Lee",
            "LastName": "O'Brien",
            "Email": None,
            "OwnerId": None,
        },
    ],
    "Case": [
        {
            "Id": "500000000000001AAA",
            "AccountId": "001000000000002AAA",
            "Subject": "Blender motor overheating",
            "Description": "The blender smells burnt.",
            "Status": "New",
            "Priority": "High",
            "CreatedDate": "2024-03-01T10:00:00.000+0000",
            "ClosedDate": None,
            "OwnerId": "005000000000002AAA",
            "ContactId": None,
            "IssueId__c": None,
            "OrderItemId__c": None,
        },
        {
            "Id": "500000000000002AAA",
            "AccountId": "001000000000001AAA",
            "Subject": "Refund request",
            "Description": "Customer wants a refund for the toaster.",
            "Status": "Closed",
            "Priority": "Low",
            "CreatedDate": "2024-04-02T09:30:00.000+0000",
            "ClosedDate": "2024-04-05T12:00:00.000+0000",
            "OwnerId": "005000000000001AAA",
            "ContactId": "003000000000001AAA",
            "IssueId__c": None,
            "OrderItemId__c": None,
        },
    ],
    "Knowledge__kav": [
        {
            "Id": "ka0000000000001AAA",
            "Title": "How to clean a blender",
            "Summary": "Cleaning steps",
            "FAQ_Answer__c": "Rinse the blender jar with warm water.",
            "UrlName": "clean-blender",
            "PublishStatus": "Online",
            "Language": "en_US",
        },
        {
            "Id": "ka0000000000002AAA",
            "Title": "Blender warranty",
            "Summary": "Warranty terms",
            "FAQ_Answer__c": (
                "Blender motors carry a two year warranty. The blender blender blender."
            ),
            "UrlName": "blender-warranty",
            "PublishStatus": "Online",
            "Language": "en_US",
        },
        {
            "Id": "ka0000000000003AAA",
            "Title": "Garantía de la licuadora",
            "Summary": "Blender warranty in Spanish",
            "FAQ_Answer__c": "Dos años.",
            "UrlName": "garantia",
            "PublishStatus": "Online",
            "Language": "es",
        },
        {
            "Id": "ka0000000000004AAA",
            "Title": "Old blender recall",
            "Summary": "Archived",
            "FAQ_Answer__c": "This blender article is archived.",
            "UrlName": "recall",
            "PublishStatus": "Archived",
            "Language": "en_US",
        },
        {
            "Id": "ka0000000000005AAA",
            "Title": "Toaster crumbs",
            "Summary": "Crumb tray",
            "FAQ_Answer__c": "Empty the crumb tray weekly.",
            "UrlName": "toaster-crumbs",
            "PublishStatus": "Online",
            "Language": "en_US",
        },
    ],
    "Product2": [
        {
            "Id": "01t000000000001AAA",
            "Name": "PowerBlend 3000",
            "Description": "A high speed blender",
            "External_ID__c": "PB-3000",
            "IsActive": "1",
        },
        {
            "Id": "01t000000000002AAA",
            "Name": "ToastMaster",
            "Description": "Two slice toaster",
            "External_ID__c": "TM-2",
            "IsActive": "1",
        },
        {
            "Id": "01t000000000003AAA",
            "Name": "Blendinator",
            "Description": None,
            "External_ID__c": "BL-1",
            "IsActive": "0",
        },
    ],
    "EmailMessage": [
        {
            "Id": "02s000000000001AAA",
            "Subject": "Re: blender",
            "TextBody": "Please send photos",
            "FromAddress": "support@example.com",
            "ToAddress": "johnny@smithers.example",
            "MessageDate": "2024-03-02T08:00:00.000+0000",
            "ParentId": "500000000000001AAA",
            "ToIds": None,
        },
    ],
}


def _write(path: Path, *, fts: bool) -> Path:
    schema = builtin_schema()
    conn = sqlite3.connect(path)
    try:
        for name in OBJECTS:
            obj = schema.require(name)
            columns = obj.field_names
            conn.execute(
                f'CREATE TABLE "{name}" (' + ", ".join(f'"{c}" TEXT' for c in columns) + ")"
            )
            conn.executemany(
                f'INSERT INTO "{name}" VALUES ({", ".join("?" * len(columns))})',
                [tuple(row.get(c) for c in columns) for row in ROWS[name]],
            )
            searchable = [f.name for f in obj.fields if f.type in SEARCHABLE]
            if fts and searchable:
                cols = ", ".join(["Id UNINDEXED", *(f'"{c}"' for c in searchable)])
                conn.execute(
                    f"CREATE VIRTUAL TABLE \"_fts_{name}\" USING fts5({cols}, content='{name}', "
                    "content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')"
                )
                conn.execute(f'INSERT INTO "_fts_{name}"("_fts_{name}") VALUES (\'rebuild\')')
        conn.commit()
    finally:
        conn.close()
    return path


@pytest.fixture(scope="session")
def fts_org_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Path of the fixture org with FTS5 tables."""
    return _write(tmp_path_factory.mktemp("sosl") / "fts.db", fts=True)


@pytest.fixture(scope="session")
def scan_org_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Path of the same org without FTS5 tables (the raw upstream shape)."""
    return _write(tmp_path_factory.mktemp("sosl") / "raw.db", fts=False)


@pytest.fixture
def fts_org(fts_org_path: Path) -> Any:
    """The FTS fixture org, opened read-only."""
    from crmtui.org.store import Org

    org = Org.open(fts_org_path)
    assert org.has_fts
    return org


@pytest.fixture
def scan_org(scan_org_path: Path) -> Any:
    """The fixture org without FTS, opened read-only."""
    from crmtui.org.store import Org

    org = Org.open(scan_org_path)
    assert not org.has_fts
    return org


@pytest.fixture(params=["fts", "scan"])
def org(request: pytest.FixtureRequest, fts_org_path: Path, scan_org_path: Path) -> Any:
    """Each fixture org in turn: every search behaves the same on both paths."""
    from crmtui.org.store import Org

    return Org.open(fts_org_path if request.param == "fts" else scan_org_path)


@pytest.fixture(scope="session")
def built_org_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A crmtui-built org (the small sample's generator, seed 7): its schema is stored in the
    file, so ``crmtui query`` keeps its plans (tests copy it before changing it)."""
    from crmtui.org.build import build_org

    out = tmp_path_factory.mktemp("built-org") / "built.db"
    build_org(out, seed=7, scale="small", name="built")
    return out
