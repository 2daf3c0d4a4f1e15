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
from crmtui.query.wire import with_api_version
from crmtui.rest import RestServer

from .conftest import SESSION_ID, local_session


def plain(value: Any) -> Any:
    """simple-salesforce's OrderedDicts as plain JSON values."""
    return json.loads(json.dumps(value))


def engine(org: Org, text: str) -> list[dict[str, Any]]:
    """The engine's records as the API sends them to simple-salesforce 1.12.6 (v59.0 URLs)."""
    return with_api_version(run(org, text).records, "v59.0")


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
    assert plain(got["records"]) == with_api_version(want.records, "v59.0")
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
    assert plain(records) == engine(small_org, text)
    assert len(pages) == -(-total // 500)


def test_query_more_with_an_unknown_locator_is_refused(sf: Salesforce) -> None:
    with pytest.raises(SalesforceMalformedRequest) as caught:
        sf.query_more("01gNOSUCHLOCATOR00-2000")
    assert caught.value.content[0]["errorCode"] == "INVALID_QUERY_LOCATOR"


def test_search_equals_the_engine(sf: Salesforce, small_org: Org) -> None:
    text = "FIND {refund} IN ALL FIELDS RETURNING Knowledge__kav(Id, Title)"
    got = sf.search(text)
    assert plain(got) == {"searchRecords": engine(small_org, text)}
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
    assert "level of access" in caught.value.content[0]["message"]
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


def test_records_carry_the_api_version_the_client_asked_for(
    https_server: tuple[RestServer, Path],
) -> None:
    server, ca_path = https_server
    text = "SELECT Id, Account.Name, (SELECT Id FROM Cases) FROM Contact LIMIT 3"
    for version in ("52.0", "59.0", "62.0"):
        sf = Salesforce(
            instance_url=server.instance_url,
            session_id=SESSION_ID,
            session=local_session(ca_path),
            version=version,
        )
        urls = _urls(plain(sf.query_all(text)["records"]))
        urls += _urls(plain(sf.search("FIND {refund} RETURNING Knowledge__kav(Id)")))
        assert urls and all(u.startswith(f"/services/data/v{version}/sobjects/") for u in urls)


def _urls(value: Any) -> list[str]:
    if isinstance(value, dict):
        found = [value["url"]] if isinstance(value.get("url"), str) else []
        return found + [u for v in value.values() for u in _urls(v)]
    if isinstance(value, list):
        return [u for v in value for u in _urls(v)]
    return []


def test_fenced_query_is_malformed_as_on_salesforce(sf: Salesforce) -> None:
    with pytest.raises(SalesforceMalformedRequest) as caught:
        sf.query_all("```sql\nSELECT Id FROM Case\n```")
    error = caught.value.content[0]
    assert error["errorCode"] == "MALFORMED_QUERY"
    assert error["message"].endswith("ERROR at Row:1:Column:1\nunexpected token: '`'")


def test_error_messages_carry_no_crmtui_hints(sf: Salesforce, small_org: Org) -> None:
    text = "SELECT Id FROM Case WHERE CreatedDate > 2020-01-01"
    with pytest.raises(SalesforceMalformedRequest) as caught:
        sf.query_all(text)
    message = caught.value.content[0]["message"]
    assert message.endswith("must be of type dateTime and should not be enclosed in quotes")
    with pytest.raises(QueryError) as local:  # crmtui's own CLI and UI keep the hint
        run(small_org, text)
    assert local.value.hint and local.value.message.endswith(local.value.hint)
