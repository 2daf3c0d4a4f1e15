"""Trailing clauses: LIMIT / OFFSET, and GROUP BY written so SQLite groups by scanning.

GROUP BY is written so that SQLite does not walk a lookup index to group.

Every Id and lookup column of a crmtui org is indexed, and SQLite likes to produce groups
in order by walking such an index (no sort needed). When the query needs other columns of
the row (``SUM(Quantity)``, ``COUNT(Id)``, a WHERE on another field) each index entry then
costs a random row fetch, several times slower than a table scan plus a sort on the full
org (docs/performance.md). Writing the key as ``+col`` (unary plus: same value, no index)
makes SQLite
scan and sort instead. When the index alone answers the query (``SELECT Product2Id,
COUNT() ... GROUP BY Product2Id``: no other column read) the index walk is the fastest
plan, so the key is left as it is.

The scan + sort plan is the robust one rather than always the fastest: it costs about the
same whatever the row order, while the index walk ranges from slightly faster (rows stored
in key order, like OrderItems by OrderId) to several times slower (keys scattered, like
Product2Id). The compiler cannot see the row order, so it bounds the worst
case.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from crmtui.query.errors import NUMBER_OUTSIDE_VALID_RANGE, QueryError
from crmtui.query.soql import ast
from crmtui.query.soql.expressions import Expr
from crmtui.query.soql.resolve import Scope

MAX_OFFSET = 2000
#: Larger than any org; keeps bound values inside SQLite's 64-bit integers.
MAX_LIMIT = 2**31 - 1
_INDEXED_KINDS = frozenset({"id", "reference"})


def limit_sql(query: ast.Query, params: list[Any]) -> str:
    """`` LIMIT ? OFFSET ?`` (bound values appended to ``params``), or empty text.

    Raises:
        QueryError: NUMBER_OUTSIDE_VALID_RANGE for OFFSET > 2000 (Salesforce's maximum) or
            an absurd LIMIT.
    """
    if query.offset is not None and query.offset > MAX_OFFSET:
        raise QueryError(NUMBER_OUTSIDE_VALID_RANGE, f"Maximum SOQL offset allowed is {MAX_OFFSET}")
    if query.limit is not None and query.limit > MAX_LIMIT:
        raise QueryError(NUMBER_OUTSIDE_VALID_RANGE, f"LIMIT must be at most {MAX_LIMIT:,}")
    sql = ""
    if query.limit is not None or query.offset is not None:
        sql = " LIMIT ?"
        params.append(query.limit if query.limit is not None else -1)
    if query.offset is not None:
        sql += " OFFSET ?"
        params.append(query.offset)
    return sql


def _root_columns(root: str, sql: str) -> set[str]:
    """Names of the root table's columns that ``sql`` reads (``t0."Name"`` references)."""
    return {m.replace('""', '"') for m in re.findall(rf'\b{root}\."((?:[^"]|"")*)"', sql)}


def group_by_sql(scope: Scope, exprs: Sequence[Expr], rest_sql: str) -> str:
    """`` GROUP BY ...`` for ``exprs`` (empty text when there are none).

    Args:
        scope: The query's scope (root table alias).
        exprs: Compiled GROUP BY keys.
        rest_sql: The rest of the statement (SELECT list, FROM, WHERE, HAVING, ORDER BY),
            to see which columns the query reads besides the keys.
    """
    if not exprs:
        return ""
    keys = {
        e.resolved.field.name: e
        for e in exprs
        if e.resolved is not None
        and not e.resolved.rel_names
        and e.resolved.kind in _INDEXED_KINDS
        and e.sql == scope.column(e.resolved.field.name)
    }
    covered = _root_columns(scope.root, rest_sql) <= set(keys)
    parts = [
        f"+{e.sql}" if not covered and any(e is k for k in keys.values()) else e.sql for e in exprs
    ]
    return " GROUP BY " + ", ".join(parts)
