"""Speed-motivated compilation choices keep results identical (GROUP BY keys, shapers, GC)."""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

import pytest

from crmtui.query import compile_soql, execute_soql
from crmtui.query.soql import executor
from crmtui.query.soql.plan import ChildPlan, CompiledQuery, Output
from crmtui.query.soql.shaping import URL_PREFIX, bind
from crmtui.query.soql.values import converter, is_identity

from .conftest import TODAY

Rows = Callable[[str], list[dict[str, Any]]]


def _sql(org: Any, text: str) -> str:
    return compile_soql(org.schema, text, today=TODAY).sql


@pytest.mark.parametrize(
    ("text", "plus"),
    [
        # SUM(Quantity) reads another column: scan + sort instead of walking the index.
        ("SELECT Product2Id, SUM(Quantity) FROM OrderItem GROUP BY Product2Id", True),
        ("SELECT Product2Id, COUNT(Id) FROM OrderItem GROUP BY Product2Id", True),
        ("SELECT Product2Id FROM OrderItem WHERE Quantity > 1 GROUP BY Product2Id", True),
        # The index alone answers these: keep the key as it is so SQLite can walk it.
        ("SELECT Product2Id, COUNT(Product2Id) FROM OrderItem GROUP BY Product2Id", False),
        ("SELECT Product2Id FROM OrderItem GROUP BY Product2Id", False),
        (
            "SELECT Product2Id, COUNT_DISTINCT(Product2Id) FROM OrderItem GROUP BY Product2Id",
            False,
        ),
    ],
)
def test_indexed_group_keys_use_unary_plus_unless_covered(org: Any, text: str, plus: bool) -> None:
    sql = _sql(org, text)
    assert ('GROUP BY +t0."Product2Id"' in sql) is plus
    assert ('GROUP BY t0."Product2Id"' in sql) is not plus


def test_non_indexed_and_parent_group_keys_are_left_alone(org: Any) -> None:
    assert 'GROUP BY t0."Status"' in _sql(org, "SELECT Status, COUNT(Id) FROM Case GROUP BY Status")
    sql = _sql(
        org, "SELECT Account.ShippingState, COUNT(Id) FROM Case GROUP BY Account.ShippingState"
    )
    assert 'GROUP BY t1."ShippingState"' in sql


def test_grouping_plan_does_not_change_results(org: Any, rows: Rows) -> None:
    got = rows(
        "SELECT Product2Id, SUM(Quantity) q, COUNT(Id) n FROM OrderItem GROUP BY Product2Id "
        "ORDER BY Product2Id"
    )
    conn = org.connect()
    try:
        expected = conn.execute(
            'SELECT Product2Id, sum(CAST(Quantity AS REAL)), count(Id) FROM "OrderItem" '
            "GROUP BY Product2Id ORDER BY Product2Id IS NOT NULL, Product2Id"
        ).fetchall()
    finally:
        conn.close()
    assert [(r["Product2Id"], r["q"], r["n"]) for r in got] == expected


def _shaper(kind: str) -> Any:
    conv = converter(kind)
    return bind("Case", [Output("CreatedDate", (), (), (), 1, conv, is_identity(conv))])


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        ("2024-05-26T06:58:00.000+0000", "2024-05-26T06:58:00.000+0000"),
        (None, None),
        ("2024-05-26T08:58:00+02:00", "2024-05-26T06:58:00.000+0000"),
        ("2024-05-26 06:58:00.000+0000", "2024-05-26T06:58:00.000+0000"),
        ("2024-05-26T06:58:00Z", "2024-05-26T06:58:00.000+0000"),
    ],
)
def test_shaper_normalises_only_non_canonical_datetimes(stored: Any, expected: Any) -> None:
    records = _shaper("datetime")([("500000000000001AAA", stored)])
    assert records == [
        {
            "attributes": {
                "type": "Case",
                "url": f"{URL_PREFIX}Case/500000000000001AAA",
            },
            "CreatedDate": expected,
        }
    ]


def test_aggregate_records_get_their_own_attributes(q: Any) -> None:
    records = q("SELECT Status, COUNT(Id) FROM Case GROUP BY Status").records
    assert all(r["attributes"] == {"type": "AggregateResult"} for r in records)
    assert len({id(r["attributes"]) for r in records}) == len(records)


def test_gc_is_paused_while_shaping_and_restored(org: Any, monkeypatch: Any) -> None:
    assert gc.isenabled()
    seen: list[bool] = []
    original = executor._fetch

    def spy(*args: Any) -> Any:
        seen.append(gc.isenabled())
        return original(*args)

    monkeypatch.setattr(executor, "_fetch", spy)
    execute_soql(org, "SELECT Id FROM Case", today=TODAY)
    assert seen == [False]
    assert gc.isenabled()

    def fail(*args: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(executor, "_fetch", fail)
    with pytest.raises(RuntimeError):
        execute_soql(org, "SELECT Subject FROM Case", today=TODAY)
    assert gc.isenabled()
    monkeypatch.setattr(executor, "_fetch", original)
    gc.disable()
    try:
        execute_soql(org, "SELECT Id FROM Case", today=TODAY)
        assert not gc.isenabled()  # a caller's choice is kept
    finally:
        gc.enable()


def test_plans_carry_a_bound_shaper_and_their_child_plans(org: Any) -> None:
    plan = compile_soql(org.schema, "SELECT Id, (SELECT Id FROM Cases) FROM Account", today=TODAY)
    assert callable(plan.shaper)
    assert [c.rel_name for c in plan.child_plans] == ["Cases"]
    assert all(callable(c.shaper) for c in plan.child_plans)
    assert compile_soql(org.schema, "SELECT COUNT() FROM Case", today=TODAY).shaper is None


def test_hand_made_plans_without_shapers_still_run(org: Any) -> None:
    plan = compile_soql(
        org.schema, "SELECT Id, (SELECT Id FROM Cases) FROM Account ORDER BY Id", today=TODAY
    )
    bare = CompiledQuery(
        plan.kind,
        plan.object,
        plan.sql,
        plan.params,
        tuple(
            ChildPlan(i.rel_name, i.object, i.sql, i.params, i.outputs)
            if isinstance(i, ChildPlan)
            else i
            for i in plan.items
        ),
        plan.columns,
    )
    conn = org.connect()
    try:
        assert executor.execute_plan(conn, bare) == executor.execute_plan(conn, plan)
    finally:
        conn.close()
