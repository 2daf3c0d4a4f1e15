"""Run a :class:`CompiledQuery` on a read-only connection and shape Salesforce records."""

from __future__ import annotations

import gc
import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from typing import Any

from crmtui.query.budget import check
from crmtui.query.results import QueryResult
from crmtui.query.soql.plan import ChildPlan, CompiledQuery
from crmtui.query.soql.shaping import bind

#: Rows fetched between two budget checks.
FETCH_CHUNK = 2000


def _fetch(conn: sqlite3.Connection, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    # A failure here (an org file that does not match its schema) is turned into a
    # QueryError by the engine's boundary (crmtui.query.boundary), like every other.
    check()  # a budget spent already (a tiny limit, a cancel) stops before SQLite starts
    cursor = conn.execute(sql, params)
    width = len(cursor.description or ()) or 1
    rows = cursor.fetchmany(FETCH_CHUNK)
    if len(rows) < FETCH_CHUNK:  # the common case: one small result, one call
        return rows
    # A large result: count its values against the budget as it grows (time and memory).
    check(len(rows) * width)
    while more := cursor.fetchmany(FETCH_CHUNK):
        check(len(more) * width)
        rows += more
    return rows


def _shaper(
    plan: CompiledQuery | ChildPlan, sobject: str | None, items: Sequence[Any]
) -> Callable[..., list[dict[str, Any]]]:
    # The compiler binds one; building it here only serves hand-made plans.
    return plan.shaper if plan.shaper is not None else bind(sobject, items)


def _run_child(
    conn: sqlite3.Connection, plan: ChildPlan, parent_ids: list[Any]
) -> dict[Any, list[dict[str, Any]]]:
    """One query for all parents; child records grouped by their parent id."""
    grouped: dict[Any, list[dict[str, Any]]] = {}
    if not parent_ids:
        return grouped
    rows = _fetch(conn, plan.sql, (json.dumps(parent_ids), *plan.params))
    # Column 0 is the lookup to the parent; the rest is laid out like a top-level row.
    shaper = _shaper(plan, plan.object, plan.outputs)
    records = shaper([row[1:] for row in rows])
    for row, rec in zip(rows, records, strict=True):
        grouped.setdefault(row[0], []).append(rec)
    return grouped


def execute_plan(conn: sqlite3.Connection, plan: CompiledQuery) -> tuple[list[dict[str, Any]], int]:
    """Run a compiled query: returns (records, totalSize).

    Raises:
        QueryError: If SQLite refuses the generated SQL (an org/schema mismatch).
    """
    # Pause the cyclic garbage collector while rows and records are built. A large result
    # allocates two or three containers per row (row tuple, record, its attributes); every
    # 700 allocations trigger a collection and older generations are rescanned as the
    # result grows, which costs about as much as building the records. They hold no
    # cycles, so nothing is lost by collecting after the batch. A caller that disabled the
    # collector keeps it disabled. (Inline calls: this runs on every query.)
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        rows = _fetch(conn, plan.sql, plan.params)
        if plan.kind == "count":
            return [], int(rows[0][0]) if rows else 0
        shaper, child_plans = plan.shaper, plan.child_plans
        if shaper is None:  # a plan not made by the compiler
            shaper = bind(plan.object if plan.kind == "records" else None, plan.items)
            child_plans = tuple(i for i in plan.items if isinstance(i, ChildPlan))
        if plan.kind == "aggregate":
            records = shaper(rows)
            return records, len(records)
        children = [
            _run_child(conn, child, [row[0] for row in rows if row[0] is not None])
            for child in child_plans
        ]
        records = shaper(rows, children)
        return records, len(records)
    finally:
        if paused:
            gc.enable()


def run_compiled(conn: sqlite3.Connection, plan: CompiledQuery, compile_ms: float) -> QueryResult:
    """Run ``plan`` (see :func:`execute_plan`) and wrap its records in a :class:`QueryResult`.

    Args:
        compile_ms: What getting the plan took (parse + compile, or reading a stored one).
    """
    start = time.perf_counter()
    records, total = execute_plan(conn, plan)
    elapsed_ms = (time.perf_counter() - start) * 1000
    return QueryResult(
        kind="soql",
        records=records,
        total_size=total,
        columns=list(plan.columns),
        elapsed_ms=elapsed_ms,
        compile_ms=compile_ms,
        sql=plan.sql,
        object=plan.object,
        is_count=plan.kind == "count",
    )
