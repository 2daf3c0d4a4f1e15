"""Invariants that hold for any query, whatever the expected rows are."""

from __future__ import annotations

import functools
from typing import Any

from hypothesis import HealthCheck, given, settings

from crmtui.query import run

from .model import Agg, Order, Query, render
from .naive import _compare_rows
from .strategies import conditions, select_queries

SETTINGS = dict(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _ids(result: Any) -> list[str]:
    return [r["Id"] for r in result.records]


def _with_id(query: Query) -> Query:
    fields = query.fields if "Id" in query.fields else ("Id", *query.fields)
    return Query(
        query.object,
        fields,
        where=query.where,
        order_by=query.order_by,
        limit=query.limit,
        offset=query.offset,
    )


@settings(max_examples=120, **SETTINGS)
@given(query=select_queries())
def test_limit_bounds_and_order(gen_org: Any, rows: Any, query: Query) -> None:
    query = _with_id(query)
    result = run(gen_org, render(query))
    if query.limit is not None:
        assert len(result.records) <= query.limit
    by_id = {r["Id"]: r for r in rows[query.object]}
    returned = [by_id[i] for i in _ids(result)]
    assert len(set(_ids(result))) == len(returned)  # no duplicates
    if query.order_by:
        ordered = sorted(
            returned, key=functools.cmp_to_key(lambda a, b: _compare_rows(query, a, b))
        )
        assert returned == ordered, render(query)


@settings(max_examples=120, **SETTINGS)
@given(query=select_queries())
def test_where_selects_a_subset(gen_org: Any, query: Query) -> None:
    query = _with_id(query)
    everything = Query(query.object, ("Id",))
    filtered = set(_ids(run(gen_org, render(query))))
    assert filtered <= set(_ids(run(gen_org, render(everything))))


@settings(max_examples=100, **SETTINGS)
@given(data=select_queries().flatmap(lambda q: conditions(q.object).map(lambda c: (q.object, c))))
def test_count_equals_row_count(gen_org: Any, data: Any) -> None:
    obj, cond = data
    count = run(gen_org, render(Query(obj, (), aggregates=(Agg("COUNT", None),), where=cond)))
    counted = run(gen_org, render(Query(obj, (), aggregates=(Agg("COUNT", "Id"),), where=cond)))
    rows = run(gen_org, render(Query(obj, ("Id",), where=cond)))
    assert count.total_size == len(rows.records) == counted.records[0]["expr0"]


def test_mixed_boolean_spellings_order_and_group(gen_org: Any, rows: Any) -> None:
    query = Query("Product2", ("Id", "IsActive"), order_by=(Order("IsActive"), Order("Id")))
    values = [r["IsActive"] for r in run(gen_org, render(query)).records]
    assert values == sorted(values, key=lambda v: (v is not None, v))
    grouped = run(gen_org, "SELECT IsActive, COUNT(Id) FROM Product2 GROUP BY IsActive")
    assert len(grouped.records) == len({v for v in values})
