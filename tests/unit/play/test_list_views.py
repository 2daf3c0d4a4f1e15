"""List views over related records: what a person sees is what the view's SOQL returns.

A CRM professional filters Cases by the product of their order item, Opportunities by their
contract's signature date, and summarises them by a related field or a month, without SOQL.
Each such view and summary compiles to SOQL and runs through the engine; these tests hold
the view, its pages and its summary to that SOQL.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crmtui.data.schema import builtin_schema
from crmtui.org.build import build_org
from crmtui.org.store import Org
from crmtui.play import browser
from crmtui.play.compute import ComputeSpec, aggregate, bucket_value, group_column, run_compute
from crmtui.play.compute import view_query as compute_query
from crmtui.play.paths import PathError, chooser_paths, resolve
from crmtui.play.summary import summary_soql
from crmtui.play.views import (
    Condition,
    FilterError,
    RecordView,
    TableView,
    equivalent_query,
    table_columns,
    table_soql,
)
from crmtui.query import run


@pytest.fixture(scope="module")
def b2b(tmp_path_factory: pytest.TempPathFactory) -> Org:
    out: Path = tmp_path_factory.mktemp("b2b") / "sample-b2b.db"
    build_org(out, seed=7, scale="small", name="sample-b2b", org_type="b2b")
    return Org.open(out)


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Org:
    out: Path = tmp_path_factory.mktemp("sample") / "sample.db"
    build_org(out, seed=7, scale="small", name="sample")
    return Org.open(out)


# -- paths ---------------------------------------------------------------------------------


def test_paths_resolve_through_lookups_case_insensitively() -> None:
    schema = builtin_schema()
    found = resolve(schema, "Case", "orderitemid__r.product2id")
    assert found.path == "OrderItemId__r.Product2Id"
    assert found.field.reference_to == "Product2"
    assert found.objects == ("Case", "OrderItem")
    assert resolve(schema, "Case", "Account.ShippingState").field.type == "string"
    assert resolve(schema, "Case", "Owner.Name").path == "Owner.Name"  # compound name
    assert resolve(schema, "Case", "Status").related is False


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("Nope.Name", "Case has no lookup 'Nope'"),
        ("Account.Nope", "Account has no field 'Nope'"),
        ("Account..Name", "not a field path"),
        ("", "not a field path"),
        (".".join(["Account"] * 6 + ["Name"]), "more than 5 lookups"),
    ],
)
def test_a_path_that_does_not_resolve_is_refused_with_its_reason(path: str, message: str) -> None:
    with pytest.raises(PathError, match=message):
        resolve(builtin_schema(), "Case", path)


def test_the_chooser_offers_the_paths_the_join_types_need(b2b: Org) -> None:
    def offered(obj: str) -> set[str]:
        return {p.path for p in chooser_paths(b2b.schema, obj)}

    assert "OrderItemId__r.Product2Id" in offered("Case")
    assert "Account.ShippingState" in offered("Case")
    assert "ContractID__r.CompanySignedDate" in offered("Opportunity")
    assert "Opportunity.ContractID__r.CompanySignedDate" in offered("OpportunityLineItem")
    assert "Territory2.Description" in offered("UserTerritory2Association")
    assert "Opportunity.OwnerId" in offered("Quote")


@pytest.mark.parametrize("which", ["sample", "b2b"])
def test_every_offered_path_runs_through_the_engine(which: str, request: pytest.FixtureRequest):
    org: Org = request.getfixturevalue(which)
    for obj in org.schema:
        paths = chooser_paths(org.schema, obj.name)
        assert len({p.path.lower() for p in paths}) == len(paths), obj.name  # no repeats
        for path in paths:
            assert resolve(org.schema, obj.name, path.path).path == path.path
        columns = ", ".join(p.path for p in paths)
        run(org, f"SELECT {columns} FROM {obj.name} LIMIT 2")  # raises on a bad path


# -- views ---------------------------------------------------------------------------------


def _views() -> list[TableView]:
    signed = "ContractID__r.CompanySignedDate"
    return [
        TableView(
            "Case",
            conditions=(Condition("Account.ShippingState", "!=", "null"),),
            columns=("Subject", "OrderItemId__r.Product2Id", "Account.ShippingState"),
            sort_field="Account.ShippingState",
        ),
        TableView(
            "Opportunity",
            conditions=(Condition(signed, ">=", "2023-01-01"),),
            columns=("Name", signed, "Owner.Name"),
            sort_field=signed,
            sort_desc=True,
        ),
        TableView(
            "OpportunityLineItem",
            conditions=(Condition("Opportunity.ContractID__r.CompanySignedDate", "!=", "null"),),
            columns=("Opportunity.OwnerId", "TotalPrice"),
            sort_field="TotalPrice",
        ),
        TableView(
            "UserTerritory2Association",
            conditions=(Condition("Territory2.Description", "contains", "A"),),
            columns=("User.Name", "Territory2.Name"),
            sort_field="User.Name",
        ),
    ]


def _walk(record: dict, path: str) -> object:
    value: object = record
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


@pytest.mark.parametrize("index", range(4))
def test_paging_a_view_shows_exactly_the_rows_of_its_soql(b2b: Org, index: int) -> None:
    """Pages (keyset on a related sort path) put together are the SOQL's rows, in order."""
    view = _views()[index]
    text = table_soql(b2b.schema, view)
    assert text == equivalent_query(b2b.schema, view)
    expected = run(b2b, text + " LIMIT 50000").records
    assert expected, "the view should have rows on the sample org"
    columns = ["Id", *view.columns]
    want = [[_walk(r, c) for c in columns] for r in expected]
    got, cursor, offset = [], None, 0
    while True:
        page = browser.fetch_page(b2b, view, offset, 7, after=cursor)
        assert page.columns == columns
        got.extend(page.rows)
        offset += len(page.rows)
        if len(page.rows) < 7:
            break
        cursor = page.cursor
    assert got == want
    assert browser.count_rows(b2b, view) == len(want)


def test_a_filter_on_a_related_field_keeps_the_fields_type_rules(b2b: Org) -> None:
    bad = TableView("Opportunity", conditions=(Condition("ContractID__r.StartDate", ">", "x"),))
    with pytest.raises(FilterError, match="StartDate is a date"):
        table_soql(b2b.schema, bad)
    unknown = TableView("Case", columns=("OrderItemId__r.Nope",))
    with pytest.raises(FilterError, match="OrderItem has no field 'Nope'"):
        table_soql(b2b.schema, unknown)


# -- summaries -----------------------------------------------------------------------------


def test_group_columns_and_date_buckets() -> None:
    assert group_column("month(CreatedDate)") == ("CreatedDate", "month")
    assert group_column("Account.ShippingState") == ("Account.ShippingState", None)
    assert group_column("sum(x)") == ("sum(x)", None)
    assert bucket_value("2023-04-17T09:00:00.000+0000", "month") == "2023-04"
    assert bucket_value("2023-04-17", "year") == "2023"
    assert bucket_value(None, "month") is None
    assert group_column("month_in_year(CreatedDate)") == ("CreatedDate", "month_in_year")
    assert bucket_value("2021-04-30T23:59:00.000+0000", "month_in_year") == "04 April"
    assert bucket_value("2022-12-01", "month_in_year") == "12 December"


def test_a_month_in_year_group_adds_up_that_month_of_every_year(b2b: Org) -> None:
    """The class: grouping by month in year equals grouping by month and adding the same
    month of different years (months told apart by name), whatever the view."""
    for view in (
        TableView("Case"),
        TableView("Case", conditions=(Condition("Status", "=", "Closed"),)),
    ):
        by_month = ComputeSpec("count", group_by="month(CreatedDate)")
        by_name = ComputeSpec("count", group_by="month_in_year(CreatedDate)")
        months = run_compute(b2b, compute_query(b2b.schema, view, by_month), by_month).result.rows
        names = run_compute(b2b, compute_query(b2b.schema, view, by_name), by_name).result.rows
        added: dict[str, int] = {}
        for key, count in months:
            name = bucket_value(key + "-01", "month_in_year")
            added[name] = added.get(name, 0) + count
        assert dict((k, c) for k, c in names) == added
        assert [k for k, _ in names] == sorted(added)  # January first, in month order


def test_two_level_groups_are_pure_and_ordered() -> None:
    columns = ["Owner", "CreatedDate", "Amount"]
    rows = [
        ["b", "2023-02-03", 5],
        ["a", "2023-01-09", 1],
        ["a", "2023-01-20", 2],
        ["a", "2023-02-01", None],
        ["b", "2023-02-28", 7],
    ]
    spec = ComputeSpec("sum", group_by="Owner", group_by2="month(CreatedDate)", field="Amount")
    result = aggregate(columns, rows, spec)
    assert result.columns == ["Owner", "month(CreatedDate)", "n", "sum(Amount)"]
    assert result.rows == [
        ["a", "2023-01", 2, 3],
        ["a", "2023-02", 0, None],
        ["b", "2023-02", 2, 12],
    ]
    assert result.skipped == 1
    assert ComputeSpec.from_dict(spec.to_dict()) == spec
    assert "group_by2" not in ComputeSpec("count").to_dict()  # old recordings keep their shape


@pytest.mark.parametrize("bucket", ["month", "year", "day", "month_in_year"])
def test_a_date_bucket_holds_in_either_place_of_two_groups(bucket: str) -> None:
    """The class: a date bucket groups by its bucket whether it is the first group or the
    second, beside a plain group (the first place lost it: the raw moments were grouped)."""
    columns = ["Owner", "CreatedDate"]
    rows = [["a", "2023-01-09T10:00:00Z"], ["a", "2023-01-20T11:00:00Z"], ["b", "2024-01-02"]]
    grouped = f"{bucket}(CreatedDate)"
    first = aggregate(columns, rows, ComputeSpec("count", group_by=grouped, group_by2="Owner"))
    second = aggregate(columns, rows, ComputeSpec("count", group_by="Owner", group_by2=grouped))
    want = sorted(
        {(bucket_value(d, bucket), o): 0 for o, d in rows}.keys(), key=lambda k: (k[0], k[1])
    )
    counts = {k: sum(1 for o, d in rows if (bucket_value(d, bucket), o) == k) for k in want}
    assert {(r[0], r[1]): r[2] for r in first.rows} == counts
    assert {(r[1], r[0]): r[2] for r in second.rows} == counts


SPECS = [
    ("Case", ComputeSpec("count", group_by="OrderItemId__r.Product2Id")),
    ("Case", ComputeSpec("count", group_by="IssueId__c", group_by2="month(CreatedDate)")),
    ("OpportunityLineItem", ComputeSpec("sum", group_by="Opportunity.OwnerId", field="TotalPrice")),
    (
        "OpportunityLineItem",
        ComputeSpec(
            "max",
            group_by="Opportunity.OwnerId",
            group_by2="year(Opportunity.ContractID__r.CompanySignedDate)",
            field="Quantity",
        ),
    ),
    ("Quote", ComputeSpec("count", group_by="Opportunity.OwnerId")),
    ("Case", ComputeSpec("count", group_by="month_in_year(CreatedDate)", group_by2="Status")),
]


@pytest.mark.parametrize("index", range(len(SPECS)))
def test_a_summary_equals_its_soql_aggregate_through_the_engine(b2b: Org, index: int) -> None:
    obj, spec = SPECS[index]
    view = TableView(obj)
    run_ = run_compute(b2b, compute_query(b2b.schema, view, spec), spec)
    soql = summary_soql(b2b.schema, view, spec)
    assert soql is not None and "GROUP BY" in soql
    records = run(b2b, soql).records
    width = len(spec.groups)
    # The aggregate query's columns: group values (a month is two: year, month), then the
    # measure; the tool's month key is the same pair as YYYY-MM.
    got = {}
    for rec in records:
        values = [v for k, v in rec.items() if k != "attributes"]
        if any("month(" in g for g in spec.groups):
            at = next(i for i, g in enumerate(spec.groups) if "month(" in g)
            year, month = values[at], values[at + 1]
            values[at : at + 2] = [f"{year:04d}-{month:02d}" if year else None]
        if any("month_in_year(" in g for g in spec.groups):
            at = next(i for i, g in enumerate(spec.groups) if "month_in_year(" in g)
            values[at] = bucket_value(f"2000-{values[at]:02d}", "month_in_year")
        elif any("year(" in g for g in spec.groups):
            at = next(i for i, g in enumerate(spec.groups) if "year(" in g)
            values[at] = str(values[at]) if values[at] is not None else None
        got[tuple(values[:width])] = values[width]
    want = {tuple(row[:width]): row[-1] for row in run_.result.rows}
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert got[key] == pytest.approx(value), key


def test_summaries_soql_cannot_say_have_none(b2b: Org) -> None:
    view = TableView("Case")
    assert summary_soql(b2b.schema, view, ComputeSpec("median", field="Priority")) is None
    duration = ComputeSpec("avg", start="CreatedDate", end="ClosedDate")
    assert summary_soql(b2b.schema, view, duration) is None
    by_moment = ComputeSpec("count", group_by="CreatedDate")
    assert summary_soql(b2b.schema, view, by_moment) is None
    searched = TableView("Case", search="tent")
    assert summary_soql(b2b.schema, searched, ComputeSpec("count")) is None


# -- record pages --------------------------------------------------------------------------


def _first(org: Org, soql: str, field: str) -> str:
    return str(run(org, soql).records[0][field])


def test_related_lists_show_the_fields_the_task_needs_and_carry_the_whole_record(b2b: Org):
    opp = _first(b2b, "SELECT WhatId FROM Task WHERE WhatId != null LIMIT 1", "WhatId")
    detail = browser.load_record(b2b, RecordView("Opportunity", opp))
    assert detail is not None
    tasks = next(rel for rel in detail.related if rel.child == "Task")
    assert "Status" in tasks.columns and "Priority" in tasks.columns
    task_fields = table_columns(b2b.schema.require("Task"))
    assert tasks.fields == task_fields
    for i, record_id in enumerate(tasks.ids):
        whole = run(b2b, f"SELECT {', '.join(task_fields)} FROM Task WHERE Id = '{record_id}'")
        assert tasks.records[i] == [whole.records[0][f] for f in task_fields]

    quote = _first(b2b, "SELECT QuoteId FROM QuoteLineItem LIMIT 1", "QuoteId")
    detail = browser.load_record(b2b, RecordView("Quote", quote))
    assert detail is not None
    items = next(rel for rel in detail.related if rel.child == "QuoteLineItem")
    assert items.columns[:4] == ["Product2.Name", "Quantity", "UnitPrice", "Discount"]
    names = run(b2b, f"SELECT Id, Product2.Name FROM QuoteLineItem WHERE QuoteId = '{quote}'")
    by_id = {r["Id"]: r["Product2"]["Name"] for r in names.records}
    assert {i: row[0] for i, row in zip(items.ids, items.rows, strict=True)} == by_id


# -- several values: "equals a, b" is any of them, "not equal to a, b" none --------------------

_LISTS = [
    ("Case", "Status", ["Closed", "New"]),
    ("Case", "IssueId__r.Name", ["Delayed delivery", "Damaged in transit", "Cancel order"]),
    ("Case", "Id", None),  # three real case Ids, taken from the org
    ("Case", "CreatedDate", ["2023-09-16", "2021-09-23"]),  # days on a date/time field
    ("Opportunity", "ContractID__r.StartDate", None),  # dates of real contracts
]


def _ids(org: Org, view: TableView) -> set[str]:
    return {r["Id"] for r in run(org, table_soql(org.schema, view) + " LIMIT 50000").records}


def _values(org: Org, obj: str, path: str) -> list[str]:
    rows = run(org, f"SELECT {path} FROM {obj} WHERE {path} != null LIMIT 3").records
    return [str(_walk(r, path))[:10] if "Date" in path else str(_walk(r, path)) for r in rows]


@pytest.mark.parametrize("index", range(len(_LISTS)))
def test_a_list_of_values_is_any_of_them_and_not_equal_is_none_of_them(b2b: Org, index: int):
    """The class: for any field (own, related, Id, a day on a date/time), `= a, b` holds the
    union of `= a` and `= b`, `!= a, b` their intersection, and the page the browser shows is
    the list's SOQL (IN / NOT IN) through the engine."""
    obj, path, values = _LISTS[index]
    values = values or _values(b2b, obj, path)
    assert len(values) >= 2

    def view(op: str, value: str) -> TableView:
        return TableView(obj, conditions=(Condition(path, op, value),))

    listed = ", ".join(values)
    union = set().union(*(_ids(b2b, view("=", v)) for v in values))
    common = set.intersection(*(_ids(b2b, view("!=", v)) for v in values))
    assert union, "the values should match rows on the sample org"
    assert _ids(b2b, view("=", listed)) == union
    assert _ids(b2b, view("!=", listed)) == common
    assert browser.count_rows(b2b, view("=", listed)) == len(union)
    assert browser.count_rows(b2b, view("!=", listed)) == len(common)


def test_a_quoted_value_keeps_its_comma_and_a_list_refuses_null_and_gaps(b2b: Org) -> None:
    quoted = table_soql(
        b2b.schema, TableView("Case", conditions=(Condition("Subject", "=", '"Hi, there"'),))
    )
    assert "Subject = 'Hi, there'" in quoted
    single = table_soql(
        b2b.schema, TableView("Case", conditions=(Condition("Status", "=", '"Closed"'),))
    )
    assert "Status = 'Closed'" in single
    for bad, message in (
        ("Closed, null", "null cannot be one of several"),
        ("Closed,,New", "empty value"),
    ):
        with pytest.raises(FilterError, match=message):
            table_soql(b2b.schema, TableView("Case", conditions=(Condition("Status", "!=", bad),)))
