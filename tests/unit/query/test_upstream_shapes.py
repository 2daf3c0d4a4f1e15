"""Every query shape upstream's tools and prompts issue, on the fixture.

The shapes are those of upstream's crm_sandbox/env/functions.py and agents/prompts.py.

Expected rows are derived by hand from conftest.ROWS; observations are compared as the
agent would see them.
"""

from __future__ import annotations

from collections.abc import Callable

from crmtui.query import QueryResult, format_observation

from .conftest import CO, ISS, OI, A, C, P, U, rid

Q = Callable[[str], QueryResult]


def obs(q: Q, text: str) -> str:
    return format_observation(q(text))


def test_get_agent_handled_cases_by_period(q: Q) -> None:
    result = q(
        "SELECT NewValue__c, CreatedDate FROM CaseHistory__c WHERE CreatedDate >= "
        "2024-05-01T00:00:00Z AND CreatedDate <= 2024-05-15T23:59:59Z AND "
        "Field__c = 'Owner Assignment'"
    )
    assert [r["NewValue__c"] for r in result.records] == [U[0], U[0], U[1], U[0], U[2], U[1]]


def test_get_cases(q: Q) -> None:
    text = (
        "SELECT OwnerId, CreatedDate, ClosedDate, AccountId FROM Case WHERE CreatedDate >= "
        "2024-05-01T00:00:00Z AND CreatedDate < 2024-05-15T00:00:00Z AND OwnerId IN "
        f"('{U[0]}', '{U[1]}')"
    )
    assert obs(q, text) == repr(
        [
            {
                "OwnerId": U[1],
                "CreatedDate": "2024-05-14T23:59:59.000+0000",
                "ClosedDate": "2024-05-15T01:00:00.000+0000",
                "AccountId": A[1],
            },
            {
                "OwnerId": U[0],
                "CreatedDate": "2024-05-12T00:00:00.000+0000",
                "ClosedDate": None,
                "AccountId": A[2],
            },
            {
                "OwnerId": U[1],
                "CreatedDate": "2024-05-01T00:00:00.000+0000",
                "ClosedDate": "2024-05-02T00:00:00.000+0000",
                "AccountId": A[3],
            },
        ]
    )
    single = f"SELECT OwnerId FROM Case WHERE Id = '{C[1]}' AND Status = 'Closed'"
    assert obs(q, single) == f"[{{'OwnerId': '{U[1]}'}}]"


def test_get_non_transferred_case_ids(q: Q) -> None:
    text = (
        "SELECT CaseId__c FROM CaseHistory__c WHERE Field__c = 'Owner Assignment' AND "
        "CreatedDate >= 2024-03-01T00:00:00Z AND CreatedDate <= 2024-05-31T00:00:00Z "
        "GROUP BY CaseId__c HAVING COUNT(Id) = 1"
    )
    assert obs(q, text) == repr([{"CaseId__c": C[i]} for i in (0, 2, 3, 4)])


def test_get_agent_transferred_cases_by_period(q: Q) -> None:
    text = (
        "SELECT OldValue__c, CreatedDate FROM CaseHistory__c WHERE Field__c = "
        "'Owner Assignment' AND OldValue__c != NULL AND CreatedDate >= 2024-01-01T00:00:00Z "
        "AND CreatedDate <= 2024-12-31T23:59:59Z"
    )
    assert [r["OldValue__c"] for r in q(text).records] == [U[0], U[1]]


def test_get_shipping_state(q: Q) -> None:
    text = f"SELECT Id, ShippingState FROM Account WHERE Id IN ('{A[0]}', '{A[4]}')"
    assert obs(q, text) == repr(
        [
            {"Id": A[0], "ShippingState": "CA"},
            {"Id": A[4], "ShippingState": None},
        ]
    )


def test_get_order_item_ids_by_product(q: Q) -> None:
    text = f"SELECT Id FROM OrderItem WHERE Product2Id = '{P[2]}'"
    assert obs(q, text) == repr([{"Id": OI[2]}, {"Id": OI[6]}, {"Id": OI[8]}])


def test_get_issue_counts(q: Q) -> None:
    text = (
        "SELECT IssueId__c, COUNT(Id) IssueCount FROM Case WHERE OrderItemId__c IN "
        f"('{OI[0]}', '{OI[3]}','{OI[5]}') AND CreatedDate >= 2024-01-01T00:00:00Z AND "
        "CreatedDate <= 2024-12-31T23:59:59Z GROUP BY IssueId__c ORDER BY COUNT(Id) DESC"
    )
    assert obs(q, text) == repr(
        [
            {"IssueId__c": ISS[0], "IssueCount": 3},
            {"IssueId__c": ISS[1], "IssueCount": 2},
            {"IssueId__c": None, "IssueCount": 1},
        ]
    )


def test_get_account_id_by_contact_id(q: Q) -> None:
    text = f"SELECT AccountId FROM Contact WHERE Id = '{CO[2]}' LIMIT 1"
    assert obs(q, text) == f"[{{'AccountId': '{A[2]}'}}]"


def test_get_purchase_history(q: Q) -> None:
    text = (
        f"SELECT Product2Id FROM OrderItem WHERE OrderItem.Order.AccountId = '{A[0]}' AND "
        "OrderItem.Order.EffectiveDate = 2024-05-01 AND Product2Id IN "
        f"('{P[0]}', '{P[1]}', '{P[2]}') AND OrderItem.Order.Status = 'Activated'"
    )
    assert obs(q, text) == repr([{"Product2Id": P[0]}, {"Product2Id": P[1]}])


def test_get_issues(q: Q) -> None:
    assert obs(q, "SELECT Id, Name FROM Issue__c") == repr(
        [
            {"Id": ISS[0], "Name": "Size chart mismatch"},
            {"Id": ISS[1], "Name": "Wrong item received"},
            {"Id": ISS[2], "Name": "Delayed delivery"},
        ]
    )


def test_get_livechat_transcript_by_case_id(q: Q) -> None:
    text = f"SELECT Body, EndTime FROM LiveChatTranscript WHERE CaseId = '{C[2]}'"
    assert obs(q, text) == (
        "[{'Body': 'Chat about tent', 'EndTime': '2024-05-12T01:00:00.000+0000'}]"
    )


def test_get_email_messages_by_case_id(q: Q) -> None:
    text = (
        "SELECT Subject, TextBody, FromAddress, ToAddress, MessageDate FROM EmailMessage "
        f"WHERE ParentId = '{C[0]}'"
    )
    assert obs(q, text) == repr(
        [
            {
                "Subject": "Re: Case 0",
                "TextBody": "Hello",
                "FromAddress": "dora@example.com",
                "ToAddress": "ana@example.com",
                "MessageDate": "2024-05-15T11:00:00.000+0000",
            },
            {
                "Subject": "Re: Re: Case 0",
                "TextBody": "Thanks",
                "FromAddress": "ana@example.com",
                "ToAddress": "dora@example.com",
                "MessageDate": "2024-05-15T12:00:00.000+0000",
            },
        ]
    )


def test_section7_constructs(q: Q) -> None:
    assert obs(q, "SELECT COUNT() FROM Case") == "[]"
    assert obs(q, "SELECT COUNT(Id) FROM Case WHERE Status = 'New'") == "[{'expr0': 3}]"
    text = f"SELECT Owner.FirstName FROM Case\n  WHERE Id = '{C[3]}'"
    assert q(text).records[0]["Owner"]["FirstName"] == "Chen"
    text = "SELECT Id FROM Case WHERE (Status = 'New' OR Status = 'Working') AND Priority != 'Low'"
    assert {r["Id"] for r in q(text).records} == {C[0], C[2], C[8]}
    text = (
        "SELECT Title FROM Knowledge__kav WHERE PublishStatus = 'Online' AND "
        f"Id != '{rid('ka0', 1)}'"
    )
    assert obs(q, text) == "[{'Title': 'Returns policy'}]"
