"""SELECT lists: fields, compound Name, parent paths, child subqueries, typed values, SQL."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from crmtui.query import QueryError, QueryResult

from .conftest import CH, CO, OI, ORD, A, C, P, U, rid

URL = "/services/data/v60.0/sobjects/"


def test_record_shape_and_attributes(q: Callable[[str], QueryResult]) -> None:
    result = q(f"SELECT Id, Subject FROM Case WHERE Id = '{C[0]}'")
    assert result.to_salesforce() == {
        "totalSize": 1,
        "done": True,
        "records": [
            {
                "attributes": {"type": "Case", "url": f"{URL}Case/{C[0]}"},
                "Id": C[0],
                "Subject": "Case 0",
            }
        ],
    }
    assert result.object == "Case" and result.kind == "soql"
    assert result.columns == ["Id", "Subject"]
    assert result.flat_rows() == [[C[0], "Case 0"]]


def test_field_names_are_case_insensitive_keys_canonical(
    rows: Callable[[str], list[dict[str, Any]]],
) -> None:
    got = rows(f"select id, SUBJECT, account.shippingstate from case where id = '{C[0]}'")
    assert list(got[0]) == ["Id", "Subject", "Account"]
    assert got[0]["Account"]["ShippingState"] == "CA"


def test_typed_values(rows: Callable[[str], list[dict[str, Any]]]) -> None:
    items = rows(f"SELECT Quantity, UnitPrice FROM OrderItem WHERE Id = '{OI[1]}'")
    assert items == [{"Quantity": 2.0, "UnitPrice": 89.99}]
    assert isinstance(items[0]["Quantity"], float)
    products = rows("SELECT Name, IsActive FROM Product2 ORDER BY Name")
    assert products == [
        {"Name": "Rain Jacket", "IsActive": True},
        {"Name": "Tent_2P", "IsActive": False},
        {"Name": "Trail Shoe", "IsActive": True},
        {"Name": "Wool Sock", "IsActive": False},
    ]
    order = rows(f"SELECT EffectiveDate FROM Order WHERE Id = '{ORD[0]}'")
    assert order == [{"EffectiveDate": "2024-05-01"}]
    case = rows(f"SELECT CreatedDate, ClosedDate FROM Case WHERE Id = '{C[1]}'")
    assert case == [
        {
            "CreatedDate": "2024-05-14T23:59:59.000+0000",
            "ClosedDate": "2024-05-15T01:00:00.000+0000",
        }
    ]


def test_compound_name(rows: Callable[[str], list[dict[str, Any]]]) -> None:
    assert rows("SELECT Name FROM User ORDER BY LastName") == [
        {"Name": "Ben Okafor"},
        {"Name": "Ana Silva"},
        {"Name": "Solo"},
        {"Name": "Chen Wei"},
    ]
    assert rows(f"SELECT Name FROM Contact WHERE Id = '{CO[2]}'") == [{"Name": "C2 Contact2"}]
    assert rows("SELECT Id FROM Account WHERE Name = 'gus o\\'neil'") == [{"Id": A[3]}]
    assert rows(f"SELECT Owner.Name FROM Case WHERE Id = '{C[11]}'")[0]["Owner"]["Name"] == "Solo"


def test_parent_paths_nest_with_attributes(rows: Callable[[str], list[dict[str, Any]]]) -> None:
    got = rows(
        f"SELECT Id, Account.Name, Owner.FirstName, Account.ShippingState, "
        f"Contact.Account.ShippingCity FROM Case WHERE Id = '{C[2]}'"
    )
    assert got == [
        {
            "Id": C[2],
            "Account": {
                "attributes": {"type": "Account", "url": f"{URL}Account/{A[2]}"},
                "Name": "Fay Ruiz",
                "ShippingState": "CA",
            },
            "Owner": {
                "attributes": {"type": "User", "url": f"{URL}User/{U[0]}"},
                "FirstName": "Ana",
            },
            "Contact": {
                "attributes": {"type": "Contact", "url": f"{URL}Contact/{CO[2]}"},
                "Account": {
                    "attributes": {"type": "Account", "url": f"{URL}Account/{A[2]}"},
                    "ShippingCity": "Oakland",
                },
            },
        }
    ]


def test_custom_lookup_relationship_and_absent_parent(
    rows: Callable[[str], list[dict[str, Any]]],
) -> None:
    assert rows(f"SELECT CaseId__r.Subject FROM CaseHistory__c WHERE Id = '{CH[6]}'") == [
        {
            "CaseId__r": {
                "attributes": {"type": "Case", "url": f"{URL}Case/{C[3]}"},
                "Subject": "Case 3",
            }
        }
    ]
    assert rows(f"SELECT Id, IssueId__r.Name FROM Case WHERE Id = '{C[5]}'") == [
        {"Id": C[5], "IssueId__r": None}
    ]


def test_four_level_path_and_object_prefix(rows: Callable[[str], list[dict[str, Any]]]) -> None:
    got = rows(
        "SELECT Parent.OrderItemId__r.Order.Account.ShippingState FROM EmailMessage "
        f"WHERE Id = '{rid('02s', 2)}'"
    )
    # Email 2 -> Case 3 -> OrderItem 1 -> Order 0 -> Account 0 (CA)
    leaf = got[0]["Parent"]["OrderItemId__r"]["Order"]["Account"]
    assert leaf["ShippingState"] == "CA"
    assert rows(f"SELECT OrderItem.Order.Status FROM OrderItem WHERE Id = '{OI[2]}'") == [
        {
            "Order": {
                "attributes": {"type": "Order", "url": f"{URL}Order/{ORD[1]}"},
                "Status": "Draft",
            }
        }
    ]
    assert rows(f"SELECT c.Subject FROM Case c WHERE c.Id = '{C[4]}'") == [{"Subject": "Case 4"}]


def test_flat_rows_walk_dotted_columns(q: Callable[[str], QueryResult]) -> None:
    result = q(
        f"SELECT Id, Account.ShippingState, IssueId__r.Name FROM Case WHERE Id IN "
        f"('{C[0]}', '{C[5]}') ORDER BY Subject"
    )
    assert result.columns == ["Id", "Account.ShippingState", "IssueId__r.Name"]
    assert result.flat_rows() == [[C[0], "CA", "Size chart mismatch"], [C[5], "NY", None]]


def test_child_subquery_one_query_per_relationship(
    rows: Callable[[str], list[dict[str, Any]]],
) -> None:
    got = rows(
        "SELECT Id, (SELECT Id, Subject FROM Cases ORDER BY CreatedDate DESC LIMIT 2), "
        f"(SELECT Id FROM Orders) FROM Account WHERE Id IN ('{A[0]}', '{A[4]}') ORDER BY Name"
    )
    assert [r["Id"] for r in got] == [A[0], A[4]]  # Dora Ng, Hal Berg
    dora, hal = got
    assert hal["Orders"] is None
    assert hal["Cases"]["totalSize"] == 1 and hal["Cases"]["records"][0]["Id"] == C[7]
    assert dora["Cases"] == {
        "totalSize": 2,
        "done": True,
        "records": [
            {
                "attributes": {"type": "Case", "url": f"{URL}Case/{C[0]}"},
                "Id": C[0],
                "Subject": "Case 0",
            },
            {
                "attributes": {"type": "Case", "url": f"{URL}Case/{C[3]}"},
                "Id": C[3],
                "Subject": "Case 3",
            },
        ],
    }
    assert [o["Id"] for o in dora["Orders"]["records"]] == [ORD[0], ORD[1]]


def test_child_subquery_with_where_and_custom_relationship(
    rows: Callable[[str], list[dict[str, Any]]],
) -> None:
    got = rows(
        "SELECT Id, (SELECT Field__c FROM CaseHistories__r WHERE Field__c = 'Case Closed') "
        f"FROM Case WHERE Id IN ('{C[3]}', '{C[0]}') ORDER BY Subject"
    )
    assert got[0]["CaseHistories__r"] is None
    assert [r["Field__c"] for r in got[1]["CaseHistories__r"]["records"]] == ["Case Closed"]


def test_fields_function(rows: Callable[[str], list[dict[str, Any]]]) -> None:
    got = rows("SELECT FIELDS(ALL) FROM Issue__c ORDER BY Name LIMIT 1")
    assert got == [{"Id": rid("a1M", 2), "Name": "Delayed delivery"}]
    got = rows(f"SELECT FIELDS(CUSTOM) FROM Product2 WHERE Id = '{P[0]}' LIMIT 5")
    assert got == [{"External_ID__c": "EXT-0"}]
    with pytest.raises(QueryError, match="LIMIT of at most 200"):
        rows("SELECT FIELDS(ALL) FROM Case")


def test_fenced_query_is_unwrapped(rows: Callable[[str], list[dict[str, Any]]]) -> None:
    text = f"```sql\nSELECT Subject\nFROM Case\nWHERE Id = '{C[0]}'\n```"
    assert rows(text) == [{"Subject": "Case 0"}]


# -- golden SQL -------------------------------------------------------------------------

GOLDEN = [
    (
        f"SELECT Id, Account.ShippingState FROM Case WHERE OwnerId = '{U[0]}' "
        "AND Status != 'Closed' ORDER BY CreatedDate DESC LIMIT 5",
        'SELECT t0."Id", t1."ShippingState", t1."Id" FROM "Case" AS t0 LEFT JOIN '
        '"Account" '
        'AS t1 ON t1."Id" = t0."AccountId" WHERE (t0."OwnerId" = ? AND (t0."Status" IS NULL '
        'OR t0."Status" != ? COLLATE NOCASE)) ORDER BY t0."CreatedDate" DESC NULLS LAST '
        "LIMIT ?",
        (U[0], "Closed", 5),
    ),
    (
        "SELECT IssueId__c, COUNT(Id) IssueCount FROM Case WHERE CreatedDate >= "
        "2024-01-01T00:00:00Z GROUP BY IssueId__c HAVING COUNT(Id) > 1 ORDER BY COUNT(Id) DESC",
        'SELECT t0."IssueId__c", COUNT(t0."Id") FROM "Case" AS t0 WHERE t0."CreatedDate" >= ? '
        'GROUP BY +t0."IssueId__c" HAVING COUNT(t0."Id") > ? ORDER BY COUNT(t0."Id") DESC '
        "NULLS LAST",
        ("2024-01-01T00:00:00.000+0000", 1),
    ),
    (
        "SELECT Id, Quantity, Product2.IsActive FROM OrderItem",
        'SELECT t0."Id", CAST(t0."Quantity" AS REAL), (CASE WHEN t1."IsActive" IS NULL '
        "THEN NULL WHEN lower(t1.\"IsActive\") IN ('1', 'true') THEN 1 ELSE 0 END), t1.\"Id\" "
        'FROM "OrderItem" AS t0 LEFT JOIN "Product2" AS t1 ON t1."Id" = t0."Product2Id"',
        (),
    ),
    (
        "SELECT Id FROM OrderItem WHERE Order.Account.ShippingState = 'CA' AND "
        "Product2.Name != 'x'",
        'SELECT t0."Id" FROM "OrderItem" AS t0 JOIN "Order" AS t1 ON t1."Id" = '
        't0."OrderId" JOIN "Account" AS t2 ON t2."Id" = t1."AccountId" LEFT JOIN "Product2" '
        'AS t3 ON t3."Id" = t0."Product2Id" WHERE (t2."ShippingState" = ? COLLATE NOCASE AND '
        '(t3."Name" IS NULL OR t3."Name" != ? COLLATE NOCASE))',
        ("CA", "x"),
    ),
    (
        "SELECT COUNT() FROM OrderItem WHERE Quantity >= 2",
        'SELECT COUNT(*) FROM "OrderItem" AS t0 WHERE CAST(t0."Quantity" AS REAL) >= ?',
        (2,),
    ),
    (
        "SELECT Id FROM Account WHERE Id IN (SELECT AccountId FROM Case WHERE Priority = 'High')",
        'SELECT t0."Id" FROM "Account" AS t0 WHERE t0."Id" IN (SELECT t1."AccountId" '
        "FROM "
        '"Case" AS t1 WHERE t1."AccountId" IS NOT NULL AND t1."Priority" = ? COLLATE NOCASE)',
        ("High",),
    ),
]


@pytest.mark.parametrize(("text", "sql", "params"), GOLDEN)
def test_golden_sql(org: Any, text: str, sql: str, params: tuple[Any, ...]) -> None:
    from crmtui.query import compile_soql

    from .conftest import TODAY

    plan = compile_soql(org.schema, text, today=TODAY)
    assert plan.sql == sql
    assert plan.params == params
