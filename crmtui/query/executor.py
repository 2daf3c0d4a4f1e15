"""Run a :class:`CompiledQuery` on a read-only connection and shape Salesforce records."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from crmtui.query.errors import MALFORMED_QUERY, QueryError
from crmtui.query.plan import ChildPlan, CompiledQuery, Output
from crmtui.query.shaping import shape

AGGREGATE_ATTRIBUTES = {"type": "AggregateResult"}


def _fetch(conn: sqlite3.Connection, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    try:
        return conn.execute(sql, tuple(params)).fetchall()
    except (sqlite3.Error, OverflowError) as exc:
        # The SQL is generated from the schema; a failure means the org file does not match
        # it (e.g. a missing column). Report it as a query error, never a traceback.
        raise QueryError(MALFORMED_QUERY, f"the org could not run this query: {exc}") from None


def _run_child(
    conn: sqlite3.Connection, plan: ChildPlan, parent_ids: list[Any]
) -> dict[Any, list[dict[str, Any]]]:
    """One query for all parents; child records grouped by their parent id."""
    grouped: dict[Any, list[dict[str, Any]]] = {}
    if not parent_ids:
        return grouped
    rows = _fetch(conn, plan.sql, (json.dumps(parent_ids), *plan.params))
    # Column 0 is the lookup to the parent; the rest is laid out like a top-level row.
    records = shape([row[1:] for row in rows], plan.object, plan.outputs)
    for row, rec in zip(rows, records, strict=True):
        grouped.setdefault(row[0], []).append(rec)
    return grouped


def execute_plan(conn: sqlite3.Connection, plan: CompiledQuery) -> tuple[list[dict[str, Any]], int]:
    """Run a compiled query: returns (records, totalSize).

    Raises:
        QueryError: If SQLite refuses the generated SQL (an org/schema mismatch).
    """
    rows = _fetch(conn, plan.sql, plan.params)
    if plan.kind == "count":
        return [], int(rows[0][0]) if rows else 0
    if plan.kind == "aggregate":
        records = []
        for row in rows:
            rec: dict[str, Any] = {"attributes": dict(AGGREGATE_ATTRIBUTES)}
            for out in plan.items:
                assert isinstance(out, Output)
                value = row[out.col]
                rec[out.key] = value if out.identity or value is None else out.conv(value)
            records.append(rec)
        return records, len(records)
    children = [
        _run_child(conn, item, [row[0] for row in rows if row[0] is not None])
        for item in plan.items
        if isinstance(item, ChildPlan)
    ]
    records = shape(rows, plan.object, plan.items, children)
    return records, len(records)
