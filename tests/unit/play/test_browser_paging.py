"""Keyset paging of browser tables: pages concatenate to exactly the full ordered result."""

from __future__ import annotations

import pytest

from crmtui.org.build import build_org
from crmtui.org.store import Org
from crmtui.play import browser
from crmtui.play.views import Condition, RecordView, TableView, table_soql
from crmtui.query import run


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Org:
    out = tmp_path_factory.mktemp("paging") / "sample.db"
    build_org(out, seed=7, scale="small", name="sample")
    return Org.open(out)


def _all_pages(org: Org, view: TableView, size: int) -> list[str]:
    ids: list[str] = []
    cursor = None
    while True:
        page = browser.fetch_page(org, view, len(ids), size, None, cursor)
        ids += page.ids
        if len(page.ids) < size:
            return ids
        cursor = page.cursor


@pytest.mark.parametrize(
    ("obj", "field"),
    [
        ("Case", None),
        ("Case", "ClosedDate"),  # datetime with nulls
        ("Case", "Status"),  # picklist with many ties
        ("OrderItem", "UnitPrice"),  # number
        ("Order", "EffectiveDate"),  # date
        ("Product2", "IsActive"),  # boolean
        ("Contact", "LastName"),  # text
    ],
)
@pytest.mark.parametrize("desc", [False, True])
def test_pages_concatenate_to_the_full_order(
    org: Org, obj: str, field: str | None, desc: bool
) -> None:
    view = TableView(obj, sort_field=field, sort_desc=desc)
    full = run(
        org,
        table_soql(org.schema, view, ["Id"]) + ("" if field else " ORDER BY Id") + " LIMIT 50000",
    ).records
    expected = [r["Id"] for r in full]
    assert _all_pages(org, view, 37) == expected
    assert len(expected) == org.count(obj)


def test_paging_past_the_soql_offset_cap(org: Org) -> None:
    # 2,000 is Salesforce's OFFSET cap; keyset paging goes past it.
    view = TableView("CaseHistory__c")
    ids = _all_pages(org, view, 500)
    assert len(ids) == org.count("CaseHistory__c") > 1500
    assert len(set(ids)) == len(ids)


def test_filtered_count_and_pages(org: Org) -> None:
    view = TableView(
        "Case", conditions=(Condition("Status", "=", "Closed"),), sort_field="Priority"
    )
    total = browser.count_rows(org, view)
    assert total == len(_all_pages(org, view, 50)) > 0


def test_search_and_record_detail(org: Org) -> None:
    view = TableView("Case", search="delivery")
    total = browser.count_rows(org, view)
    page = browser.fetch_page(org, view, 0, 10)
    assert 0 < len(page.ids) <= 10 and total >= len(page.ids)
    detail = browser.load_record(org, RecordView("Case", page.ids[0]))
    assert detail is not None and detail.label
    links = {f.name: f.link for f in detail.fields if f.link}
    assert links["AccountId"][0] == "Account" and links["OwnerId"][0] == "User"
    names = [r.name for r in detail.related]
    assert names == ["EmailMessages", "LiveChatTranscripts", "CaseHistories__r"]
    history = detail.related[2]
    assert history.total >= 2 and len(history.ids) == min(history.total, browser.RELATED_LIMIT)
    assert browser.load_record(org, RecordView("Case", "500Ws000000000000A")) is None


def test_count_is_built_from_the_view_not_cut_from_its_text(org: Org) -> None:
    # A filter value that looks like a clause must not change what is counted.
    view = TableView(
        "Case", conditions=(Condition("Subject", "contains", " ORDER BY "),), sort_field="Status"
    )
    assert table_soql(org.schema, view, count=True) == (
        "SELECT COUNT() FROM Case WHERE Subject LIKE '% ORDER BY %'"
    )
    assert browser.count_rows(org, view) == 0
    assert browser.count_rows(org, TableView("Case", sort_field="Status")) == org.count("Case")
