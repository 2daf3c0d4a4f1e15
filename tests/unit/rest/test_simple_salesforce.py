"""The real simple-salesforce client against ``serve-rest``: results equal the engine's."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from simple_salesforce import (
    Salesforce,
    SalesforceExpiredSession,
    SalesforceMalformedRequest,
    SalesforceRefusedRequest,
    SalesforceResourceNotFound,
)

from crmtui.org import Org
from crmtui.query import QueryError, run
from crmtui.rest import RestServer

from .conftest import local_session


def plain(value: Any) -> Any:
    """simple-salesforce's OrderedDicts as plain JSON values."""
    return json.loads(json.dumps(value))


QUERIES = [
    "SELECT Id, Subject, Status FROM Case WHERE Status = 'Closed' ORDER BY CreatedDate LIMIT 20",
    "SELECT Id, Account.ShippingState, Owner.FirstName FROM Case ORDER BY Id LIMIT 15",
    "SELECT IssueId__c, COUNT(Id) IssueCount FROM Case GROUP BY IssueId__c ORDER BY COUNT(Id) DESC",
    "SELECT Id, (SELECT Id FROM Cases) FROM Account ORDER BY Id LIMIT 5",
    "SELECT COUNT() FROM OrderItem",
]


@pytest.mark.parametrize("text", QUERIES)
def test_query_all_equals_the_engine(sf: Salesforce, small_org: Org, text: str) -> None:
    got = sf.query_all(text)
    want = run(small_org, text)
    assert plain(got["records"]) == want.records
    # query_all recounts totalSize from the records it gathered, as upstream relies on.
    assert got["totalSize"] == len(want.records)


def test_query_keeps_the_count_of_select_count(sf: Salesforce, small_org: Org) -> None:
    got = sf.query("SELECT COUNT() FROM Case")
    assert got["records"] == [] and got["totalSize"] == small_org.count("Case")


def test_query_more_pages_through_a_large_result(sf: Salesforce, small_org: Org) -> None:
    text = "SELECT Id, Quantity FROM OrderItem ORDER BY Id"
    first = sf.query(text, headers={"Sforce-Query-Options": "batchSize=500"})
    total = small_org.count("OrderItem")
    assert first["done"] is False and first["totalSize"] == total
    assert len(first["records"]) == 500
    assert first["nextRecordsUrl"].startswith("/services/data/v59.0/query/01g")
    pages = [first]
    while not pages[-1]["done"]:
        pages.append(sf.query_more(pages[-1]["nextRecordsUrl"], identifier_is_url=True))
    records = [r for page in pages for r in page["records"]]
    assert plain(records) == run(small_org, text).records
    assert len(pages) == -(-total // 500)


def test_query_more_with_an_unknown_locator_is_refused(sf: Salesforce) -> None:
    with pytest.raises(SalesforceMalformedRequest) as caught:
        sf.query_more("01gNOSUCHLOCATOR00-2000")
    assert caught.value.content[0]["errorCode"] == "INVALID_QUERY_LOCATOR"


def test_search_equals_the_engine(sf: Salesforce, small_org: Org) -> None:
    text = "FIND {refund} IN ALL FIELDS RETURNING Knowledge__kav(Id, Title)"
    got = sf.search(text)
    assert plain(got) == {"searchRecords": run(small_org, text).records}
    assert got["searchRecords"]


def test_get_and_describe_a_case(sf: Salesforce, small_org: Org) -> None:
    case = run(small_org, "SELECT Id, Subject, OwnerId FROM Case ORDER BY Id LIMIT 1").records[0]
    record = sf.Case.get(case["Id"])
    assert record["Id"] == case["Id"] and record["Subject"] == case["Subject"]
    assert record["attributes"]["type"] == "Case"
    assert set(record) - {"attributes"} == set(small_org.schema.require("Case").field_names)

    described = sf.Case.describe()
    fields = {f["name"]: f for f in described["fields"]}
    assert described["name"] == "Case" and described["keyPrefix"] == "500"
    assert fields["OwnerId"]["type"] == "reference"
    assert fields["OwnerId"]["referenceTo"] == ["User"]
    assert fields["OwnerId"]["relationshipName"] == "Owner"
    children = {r["relationshipName"]: r["childSObject"] for r in described["childRelationships"]}
    assert children["EmailMessages"] == "EmailMessage"
    assert described["createable"] is False

    assert sf.Case.metadata()["objectDescribe"]["name"] == "Case"
    names = [o["name"] for o in sf.describe()["sobjects"]]
    assert names == small_org.schema.object_names


def test_unknown_record_and_object_are_not_found(sf: Salesforce) -> None:
    with pytest.raises(SalesforceResourceNotFound) as caught:
        sf.Case.get("500000000000000AAA")
    assert caught.value.content == [
        {"errorCode": "NOT_FOUND", "message": "The requested resource does not exist"}
    ]
    with pytest.raises(SalesforceResourceNotFound):
        sf.Opportunity.describe()


def test_malformed_query_text_parses_as_upstream_reads_it(sf: Salesforce, small_org: Org) -> None:
    text = "SELECT Idd FROM Case"
    with pytest.raises(SalesforceMalformedRequest) as caught:
        sf.query_all(text)
    # Upstream's connector: the text after "Response content:" through ast.literal_eval.
    error = ast.literal_eval(str(caught.value).split("Response content:")[1].strip())[0]
    with pytest.raises(QueryError) as engine:
        run(small_org, text)
    assert error["errorCode"] == engine.value.code == "INVALID_FIELD"
    assert error["message"] == (
        "\nSELECT Idd FROM Case\n       ^\nERROR at Row:1:Column:8\n" + engine.value.message
    )


def test_malformed_search_is_a_400(sf: Salesforce) -> None:
    with pytest.raises(SalesforceMalformedRequest) as caught:
        sf.search("FIND {a} RETURNING")
    assert caught.value.content[0]["errorCode"] == "MALFORMED_SEARCH"


def test_writes_are_refused_as_read_only(sf: Salesforce) -> None:
    with pytest.raises(SalesforceRefusedRequest) as caught:
        sf.Case.create({"Subject": "new"})
    assert caught.value.content[0]["errorCode"] == "INSUFFICIENT_ACCESS_OR_READONLY"
    assert "read-only" in caught.value.content[0]["message"]
    with pytest.raises(SalesforceRefusedRequest):
        sf.Case.delete("500000000000000AAA")


def test_a_wrong_session_is_invalid(https_server: tuple[RestServer, Path]) -> None:
    server, ca_path = https_server
    other = Salesforce(
        instance_url=server.instance_url, session_id="wrong", session=local_session(ca_path)
    )
    with pytest.raises(SalesforceExpiredSession) as caught:
        other.query("SELECT Id FROM Case")
    assert caught.value.content == [
        {"errorCode": "INVALID_SESSION_ID", "message": "Session expired or invalid"}
    ]


def test_limits_count_requests(sf: Salesforce) -> None:
    first = sf.limits()["DailyApiRequests"]["Remaining"]
    second = sf.limits()["DailyApiRequests"]["Remaining"]
    assert second == first - 1
