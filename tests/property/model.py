"""A small generated org and query structures for the differential tests.

The org: four of the builtin objects (Product2, Order, OrderItem, Case) with seeded random
rows written with plain sqlite3 in upstream's raw layout: every value is text or NULL,
numbers like '15.0' / '3' / '-2.5', booleans '1' / '0' / 'true' / 'False', Salesforce
datetimes, text in mixed case.

Query structures are plain dataclasses rendered to SOQL text by :func:`render`; the naive
evaluator in :mod:`.naive` computes their expected result over the same rows.
"""

from __future__ import annotations

import datetime as dt
import random
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from crmtui.data.schema import builtin_schema

Kind = Literal["text", "id", "num", "date", "datetime", "bool"]

#: object -> field -> kind, for the fields the generated queries use.
FIELDS: dict[str, dict[str, Kind]] = {
    "Product2": {"Id": "id", "Name": "text", "Description": "text", "IsActive": "bool"},
    "Order": {"Id": "id", "Status": "text", "EffectiveDate": "date", "Pricebook2Id": "id"},
    "OrderItem": {
        "Id": "id",
        "OrderId": "id",
        "Product2Id": "id",
        "Quantity": "num",
        "UnitPrice": "num",
    },
    "Case": {
        "Id": "id",
        "Subject": "text",
        "Status": "text",
        "Priority": "text",
        "CreatedDate": "datetime",
        "ClosedDate": "datetime",
        "OwnerId": "id",
    },
}
#: Fields whose values never differ only by case, so grouping by them is unambiguous.
#: (Product2.IsActive is left out: see test_mixed_boolean_spellings_order_and_group.)
GROUPABLE: dict[str, list[str]] = {
    "Product2": ["Description"],
    "Order": ["Status", "EffectiveDate"],
    "OrderItem": ["OrderId", "Product2Id"],
    "Case": ["Status", "Priority", "OwnerId"],
}
SEARCHABLE = frozenset({"string", "textarea", "email", "phone", "picklist"})
PREFIX = {"Product2": "01t", "Order": "801", "OrderItem": "802", "Case": "500", "User": "005"}


def make_id(obj: str, n: int) -> str:
    """A Salesforce-looking 18-character Id."""
    return f"{PREFIX[obj]}{n:012d}AAA"


def generate_rows(seed: int = 20241115) -> dict[str, list[dict[str, str | None]]]:
    """Seeded rows for the four objects."""
    rng = random.Random(seed)

    def maybe(value: str, p_null: float = 0.2) -> str | None:
        return None if rng.random() < p_null else value

    names = [
        "Blender",
        "blender",
        "BLENDER Pro",
        "Toaster",
        "Kettle 2",
        "Mixer_X",
        "100% Juice",
        "O'Brien Grill",
        "toaster oven",
        "Juicer",
    ]
    products = [
        {
            "Id": make_id("Product2", i),
            "Name": maybe(rng.choice(names), 0.1),
            "Description": maybe(rng.choice(["fast", "Fast blender", "quiet", "a_b", "50% off"])),
            "IsActive": maybe(rng.choice(["1", "0", "true", "False"])),
        }
        for i in range(1, 11)
    ]
    start = dt.date(2023, 12, 25)
    orders = [
        {
            "Id": make_id("Order", i),
            "Status": maybe(rng.choice(["Activated", "Draft"])),
            "EffectiveDate": maybe((start + dt.timedelta(days=rng.randrange(80))).isoformat()),
            "Pricebook2Id": maybe(rng.choice(["01s000000000001AAA", "01s000000000002AAA"])),
        }
        for i in range(1, 16)
    ]
    numbers = ["1.0", "15.0", "3", "-2.5", "0", "476.99", "10", "0.5", "2.0", "100"]
    items = [
        {
            "Id": make_id("OrderItem", i),
            "OrderId": maybe(rng.choice(orders)["Id"] or "", 0.1),
            "Product2Id": maybe(rng.choice(products)["Id"] or "", 0.1),
            "Quantity": maybe(rng.choice(numbers)),
            "UnitPrice": maybe(rng.choice(numbers)),
        }
        for i in range(1, 61)
    ]
    base = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
    cases = []
    for i in range(1, 41):
        created = base + dt.timedelta(hours=rng.randrange(24 * 90))
        closed = created + dt.timedelta(hours=rng.randrange(1, 24 * 20))
        cases.append(
            {
                "Id": make_id("Case", i),
                "Subject": maybe(
                    rng.choice(
                        [
                            "Refund",
                            "refund request",
                            "Broken lid",
                            "REFUND",
                            "Late delivery",
                            "lid_broken",
                        ]
                    )
                ),
                "Status": maybe(rng.choice(["New", "Closed", "Escalated"])),
                "Priority": maybe(rng.choice(["High", "Medium", "Low"])),
                "CreatedDate": created.strftime("%Y-%m-%dT%H:%M:%S.000+0000"),
                "ClosedDate": maybe(closed.strftime("%Y-%m-%dT%H:%M:%S.000+0000"), 0.4),
                "OwnerId": maybe(make_id("User", rng.randrange(1, 5))),
            }
        )
    return {"Product2": products, "Order": orders, "OrderItem": items, "Case": cases}


def write_org(
    path: Path, rows: dict[str, list[dict[str, str | None]]], *, fts: bool = False
) -> Path:
    """Write the rows in upstream's raw layout (every column TEXT, no crmtui metadata).

    With ``fts`` each object also gets its ``_fts_<Object>`` table, as crmtui orgs have.
    """
    schema = builtin_schema()
    conn = sqlite3.connect(path)
    try:
        for name, records in rows.items():
            columns = schema.require(name).field_names
            conn.execute(
                f'CREATE TABLE "{name}" (' + ", ".join(f'"{c}" TEXT' for c in columns) + ")"
            )
            conn.executemany(
                f'INSERT INTO "{name}" VALUES ({", ".join("?" * len(columns))})',
                [tuple(r.get(c) for c in columns) for r in records],
            )
            searchable = [f.name for f in schema.require(name).fields if f.type in SEARCHABLE]
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


# ------------------------------------------------------------------------ query structures --


@dataclass(frozen=True)
class Cmp:
    """``field op literal`` (literal already rendered as SOQL text)."""

    field: str
    op: str
    literal: str


@dataclass(frozen=True)
class LikeC:
    """``field LIKE 'pattern'``."""

    field: str
    pattern: str


@dataclass(frozen=True)
class InC:
    """``field [NOT] IN (literals)``."""

    field: str
    literals: tuple[str, ...]
    negated: bool


@dataclass(frozen=True)
class NullC:
    """``field = null`` / ``field != null``."""

    field: str
    is_null: bool


@dataclass(frozen=True)
class BoolC:
    """``(a AND b ...)`` / ``(a OR b ...)``."""

    op: Literal["AND", "OR"]
    items: tuple[Cond, ...]


@dataclass(frozen=True)
class NotC:
    """``NOT (item)``."""

    item: Cond


Cond = Cmp | LikeC | InC | NullC | BoolC | NotC


@dataclass(frozen=True)
class Order:
    """One ORDER BY key."""

    field: str
    descending: bool = False
    nulls: Literal["FIRST", "LAST"] | None = None


@dataclass(frozen=True)
class Agg:
    """An aggregate call in the select list; ``arg`` None means ``COUNT()``."""

    func: str
    arg: str | None
    alias: str | None = None


@dataclass(frozen=True)
class Query:
    """A generated SOQL query over one object."""

    object: str
    fields: tuple[str, ...] = ("Id",)
    aggregates: tuple[Agg, ...] = ()
    group_by: tuple[str, ...] = ()
    where: Cond | None = None
    order_by: tuple[Order, ...] = ()
    limit: int | None = None
    offset: int | None = None
    style: dict[str, bool] = field(default_factory=dict, compare=False, hash=False)


def render_cond(cond: Cond, style: dict[str, bool] | None = None) -> str:
    """SOQL text of a condition (fully parenthesised, so AND/OR never mix unbracketed)."""
    kw = (lambda s: s.lower()) if (style or {}).get("lower") else (lambda s: s)
    if isinstance(cond, Cmp):
        return f"{cond.field} {cond.op} {cond.literal}"
    if isinstance(cond, LikeC):
        return f"{cond.field} {kw('LIKE')} {cond.pattern}"
    if isinstance(cond, InC):
        op = kw("NOT IN") if cond.negated else kw("IN")
        return f"{cond.field} {op} ({', '.join(cond.literals)})"
    if isinstance(cond, NullC):
        return f"{cond.field} {'=' if cond.is_null else '!='} {kw('null')}"
    if isinstance(cond, NotC):
        return f"{kw('NOT')} ({render_cond(cond.item, style)})"
    joiner = f" {kw(cond.op)} "
    return "(" + joiner.join(render_cond(c, style) for c in cond.items) + ")"


def render(query: Query, style: dict[str, bool] | None = None) -> str:
    """SOQL text of a generated query; ``style`` varies keyword case and whitespace only."""
    style = style if style is not None else query.style
    kw = (lambda s: s.lower()) if style.get("lower") else (lambda s: s)
    sep = "\n  " if style.get("newlines") else " "
    items = list(query.group_by) if query.aggregates else list(query.fields)
    for agg in query.aggregates:
        call = f"{kw(agg.func)}({agg.arg or ''})"
        items.append(f"{call} {agg.alias}" if agg.alias else call)
    parts = [f"{kw('SELECT')} {', '.join(items)}", f"{kw('FROM')} {query.object}"]
    if query.where is not None:
        parts.append(f"{kw('WHERE')} {render_cond(query.where, style)}")
    if query.group_by:
        parts.append(f"{kw('GROUP BY')} {', '.join(query.group_by)}")
    if query.order_by:
        keys = []
        for item in query.order_by:
            key = item.field + (f" {kw('DESC')}" if item.descending else "")
            if item.nulls:
                key += f" {kw('NULLS')} {kw(item.nulls)}"
            keys.append(key)
        parts.append(f"{kw('ORDER BY')} {', '.join(keys)}")
    if query.limit is not None:
        parts.append(f"{kw('LIMIT')} {query.limit}")
    if query.offset is not None:
        parts.append(f"{kw('OFFSET')} {query.offset}")
    return sep.join(parts)
