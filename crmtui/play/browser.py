"""Data access for the record browser, through the query engine.

Everything a person sees in the browser is fetched by running the view's equivalent SOQL or
SOSL through :func:`crmtui.query.run`, so humans, agents and replays see the same data the
same way. Functions here are blocking: the UI calls them from worker threads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from crmtui.data.schema import Schema, SObject
from crmtui.play.related import related_columns, related_order
from crmtui.play.views import (
    RecordView,
    TableView,
    field_at,
    record_soql,
    search_sosl,
    sort_soql,
    table_columns,
    table_soql,
    view_columns,
)
from crmtui.record.equivalent import soql_string

RELATED_LIMIT = 20
SEARCH_LIMIT = 2000


@dataclass(frozen=True)
class Page:
    """One page of a table view.

    Attributes:
        columns: Column (field) names.
        rows: Cell values, one list per record, in column order.
        ids: Record Ids of the rows.
        offset: Index of the first row in the whole result.
        query: The SOQL/SOSL that produced the page.
    """

    columns: list[str]
    rows: list[list[Any]]
    ids: list[str]
    offset: int
    query: str
    last_key: tuple[Any, str] | None = None

    @property
    def cursor(self) -> PageCursor | None:
        """Where the next page starts (None when this page is empty)."""
        return PageCursor(*self.last_key) if self.last_key else None


@dataclass(frozen=True)
class PageCursor:
    """The sort value and Id of the last row shown: the next page starts after it.

    Pages are fetched with keyset conditions rather than OFFSET, because SOQL caps OFFSET at
    2,000 (as Salesforce does) and because deep OFFSETs rescan every skipped row.
    """

    value: Any
    record_id: str


@dataclass(frozen=True)
class FieldValue:
    """One field of a record view; ``link`` is ``(object, id)`` when it can be followed."""

    name: str
    type: str
    value: Any
    link: tuple[str, str] | None


@dataclass(frozen=True)
class RelatedList:
    """Child records of a record through one child relationship.

    Attributes:
        name: The relationship name (``Orders``).
        child: The child object.
        field: The child's lookup field pointing at the parent.
        total: How many child records there are (only the first :data:`RELATED_LIMIT` load).
        ids: The loaded records' Ids.
        labels: A short label per record.
        columns: The columns shown beside the Id (see :mod:`crmtui.play.related`).
        rows: Those columns' values, one list per record.
        fields: Every own field of the child object (what ``v`` on a related row shows).
        records: Those fields' values, one list per record.
    """

    name: str
    child: str
    field: str
    total: int
    ids: list[str]
    labels: list[str]
    columns: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    fields: list[str] = field(default_factory=list)
    records: list[list[Any]] = field(default_factory=list)


@dataclass(frozen=True)
class RecordDetail:
    """A record with all fields and its related lists."""

    object: str
    record_id: str
    fields: list[FieldValue]
    related: list[RelatedList]
    query: str

    @property
    def label(self) -> str:
        """A human label for the record."""
        values = {f.name: f.value for f in self.fields}
        return record_label(values, self.object) or self.record_id


def record_label(values: dict[str, Any], object_name: str = "") -> str:
    """A short human label from a record's values (Name, Subject, Title, person name...)."""
    for key in ("Name", "Subject", "Title"):
        if values.get(key):
            return str(values[key])
    first, last = values.get("FirstName"), values.get("LastName")
    if first or last:
        return " ".join(str(p) for p in (first, last) if p)
    if values.get("Field__c"):
        return str(values["Field__c"])
    return ""


def label_fields(obj: SObject) -> list[str]:
    """Fields needed to label records of ``obj``."""
    for key in ("Name", "Subject", "Title"):
        if obj.field(key):
            return [key]
    if obj.field("FirstName") and obj.field("LastName"):
        return ["FirstName", "LastName"]
    if obj.field("Field__c"):
        return ["Field__c"]
    return []


def _run(org: Any, text: str, today: date | None) -> Any:
    from crmtui.query import run

    return run(org, text, today=today)


def object_counts(org: Any) -> list[tuple[str, int]]:
    """Objects of the org in schema order with their row counts."""
    return [(obj.name, org.count(obj.name)) for obj in org.schema]


def count_rows(org: Any, view: TableView, today: date | None = None) -> int:
    """Number of rows the table view has (search results are capped at 2,000)."""
    schema: Schema = org.schema
    if view.search:
        result = _run(org, search_sosl(schema, view, ["Id"]) + f" LIMIT {SEARCH_LIMIT}", today)
        return len(result.records)
    return int(_run(org, table_soql(schema, view, count=True), today).total_size)


def _soql_value(f: Any, value: Any) -> str:
    """A SOQL literal for a value as the engine returned it (typed)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return repr(value)
    if f.type == "datetime" and isinstance(value, str):
        return value[:23] + "Z" if value.endswith("+0000") else value
    if f.type == "date":
        return str(value)
    return soql_string(str(value))


def _after(schema: Schema, view: TableView, cursor: PageCursor) -> str:
    """The keyset condition selecting the rows after ``cursor`` in the view's order."""
    last_id = soql_string(cursor.record_id)
    if not view.sort_field:
        return f"Id > {last_id}"
    name, f = field_at(schema, schema.require(view.object), view.sort_field)
    if cursor.value is None:  # nulls come last: only later nulls remain
        return f"({name} = null AND Id > {last_id})"
    literal = _soql_value(f, cursor.value)
    if f.type == "boolean":
        # SOQL allows only = and != on checkboxes: spell out "beyond" (false < true).
        later = "TRUE" if not view.sort_desc else "FALSE"
        more = f"{name} = {later} OR " if literal != later else ""
        return f"({more}({name} = {literal} AND Id > {last_id}) OR {name} = null)"
    beyond = "<" if view.sort_desc else ">"
    return (
        f"({name} {beyond} {literal} OR ({name} = {literal} AND Id > {last_id}) OR {name} = null)"
    )


def fetch_page(
    org: Any,
    view: TableView,
    offset: int,
    limit: int,
    today: date | None = None,
    after: PageCursor | None = None,
) -> Page:
    """Fetch ``limit`` rows of a table view, starting after ``after`` (or at the top).

    ``offset`` only labels the page (the index of its first row). Searched views (SOSL,
    capped at 2,000 hits as Salesforce caps them) are sliced instead.
    """
    schema: Schema = org.schema
    columns = view_columns(schema, view)
    if view.search:
        query = search_sosl(schema, view, columns)
        result = _run(org, query + f" LIMIT {SEARCH_LIMIT}", today)
        records = result.records[offset : offset + limit]
    else:
        query = table_soql(schema, view, columns)
        keyset = _after(schema, view, after) if after is not None else None
        text = table_soql(schema, view, columns, extra_condition=keyset)
        if not view.sort_field:
            text += " ORDER BY Id"
        result = _run(org, f"{text} LIMIT {limit}", today)
        records = result.records
    rows = [[_walk(rec, c) for c in columns] for rec in records]
    last_key = None
    if records:
        last = records[-1]
        sort_key = sort_soql(schema, view)
        last_key = (_walk(last, sort_key) if sort_key else None, str(last.get("Id")))
    return Page(columns, rows, [str(rec.get("Id")) for rec in records], offset, query, last_key)


def _link(schema: Schema, obj: SObject, name: str, value: Any) -> tuple[str, str] | None:
    if not isinstance(value, str) or not value:
        return None
    f = obj.field(name)
    if f is not None and f.type == "reference" and f.reference_to and f.reference_to in schema:
        return (schema.require(f.reference_to).name, value)
    if f is not None and f.type in {"string", "id"} and len(value) in (15, 18) and name != "Id":
        # Values like CaseHistory__c.NewValue__c hold User Ids without being lookups.
        target = schema.object_for_id(value)
        if target is not None:
            return (target.name, value)
    return None


def load_record(org: Any, view: RecordView, today: date | None = None) -> RecordDetail | None:
    """Load one record with its fields and related lists; None when it does not exist."""
    schema: Schema = org.schema
    obj = schema.require(view.object)
    query = record_soql(schema, view)
    result = _run(org, query, today)
    if not result.records:
        return None
    record = result.records[0]
    fields = [
        FieldValue(
            f.name, f.type, record.get(f.name), _link(schema, obj, f.name, record.get(f.name))
        )
        for f in obj.fields
    ]
    related = [_related_list(org, rel, view.record_id, today) for rel in schema.children(obj.name)]
    return RecordDetail(obj.name, view.record_id, fields, related, query)


def _related_list(org: Any, rel: Any, parent_id: str, today: date | None) -> RelatedList:
    """The first :data:`RELATED_LIMIT` child records through ``rel``, with their columns."""
    schema: Schema = org.schema
    child = schema.require(rel.child)
    columns = related_columns(schema, child.name, rel.field)
    own = table_columns(child)
    # Every own field too: the record a related row stands for is shown whole with ``v``.
    wanted = list(dict.fromkeys(["Id", *label_fields(child), *columns, *own]))
    where = f"WHERE {rel.field} = {soql_string(parent_id)}"
    total = int(_run(org, f"SELECT COUNT() FROM {child.name} {where}", today).total_size)
    records: list[dict[str, Any]] = []
    if total:
        order = related_order(schema, child.name, columns)
        records = _run(
            org,
            f"SELECT {', '.join(wanted)} FROM {child.name} {where} "
            f"ORDER BY {order} LIMIT {RELATED_LIMIT}",
            today,
        ).records
    return RelatedList(
        name=rel.name,
        child=child.name,
        field=rel.field,
        total=total,
        ids=[str(r["Id"]) for r in records],
        labels=[record_label(r, child.name) for r in records],
        columns=columns,
        rows=[[_walk(r, c) for c in columns] for r in records],
        fields=own,
        records=[[r.get(c) for c in own] for r in records],
    )


def _walk(record: dict[str, Any], path: str) -> Any:
    value: Any = record
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value
