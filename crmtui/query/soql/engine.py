"""SOQL entry points: compile with an LRU cache, run on the thread's read-only connection."""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections import OrderedDict
from typing import Any

from crmtui.data.schema import Schema
from crmtui.query.connection import schema_and_connection
from crmtui.query.errors import MALFORMED_QUERY, QueryError
from crmtui.query.results import QueryResult
from crmtui.query.soql.compiler import compile_query
from crmtui.query.soql.executor import execute_plan
from crmtui.query.soql.parser import parse, unwrap_fence
from crmtui.query.soql.plan import CompiledQuery

CACHE_SIZE = 512


class _PlanCache:
    """A small thread-safe LRU of compiled plans keyed by (schema, text, today).

    The key holds the schema object itself (hashed by identity): a plan depends only on the
    schema, the text and the reference date, and holding the schema keeps ids from being
    reused while the entry lives.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[tuple[Any, str, dt.date], CompiledQuery] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[Any, str, dt.date]) -> CompiledQuery | None:
        with self._lock:
            plan = self._data.get(key)
            if plan is not None:
                self._data.move_to_end(key)
            return plan

    def put(self, key: tuple[Any, str, dt.date], plan: CompiledQuery) -> None:
        with self._lock:
            self._data[key] = plan
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


PLAN_CACHE = _PlanCache(CACHE_SIZE)


def _today(today: dt.date | None) -> dt.date:
    return today if today is not None else dt.datetime.now(dt.UTC).date()


def compile_soql(schema: Schema, text: str, *, today: dt.date | None = None) -> CompiledQuery:
    """Parse and compile (cached). Never raises anything but :class:`QueryError`."""
    when = _today(today)
    key = (schema, text, when)
    plan = PLAN_CACHE.get(key)
    if plan is not None:
        return plan
    try:
        plan = compile_query(parse(unwrap_fence(text)), schema, when)
    except QueryError:
        raise
    except RecursionError:
        raise QueryError(MALFORMED_QUERY, "query is nested too deeply") from None
    except Exception as exc:
        # A compiler bug must still reach the user as one line, not a traceback; the cause
        # stays chained for debugging.
        raise QueryError(
            MALFORMED_QUERY,
            f"crmtui could not compile this query ({type(exc).__name__}: {exc}); please report it",
        ) from exc
    PLAN_CACHE.put(key, plan)
    return plan


def execute_soql(org: Any, text: str, *, today: dt.date | None = None) -> QueryResult:
    """Run a SOQL query against an org.

    Args:
        org: An Org-like object or a ``(sqlite3.Connection, Schema)`` pair.
        text: The SOQL text (a fenced ```sql block is unwrapped like upstream does).
        today: The date relative date literals refer to (default: today's UTC date).

    Raises:
        QueryError: For any query Salesforce would reject, or malformed input.
    """
    if not isinstance(text, str):
        raise QueryError(MALFORMED_QUERY, f"query must be text, not {type(text).__name__}")
    schema, conn = schema_and_connection(org)
    start = time.perf_counter()
    plan = compile_soql(schema, text, today=today)
    compiled = time.perf_counter()
    records, total = execute_plan(conn, plan)
    done = time.perf_counter()
    return QueryResult(
        kind="soql",
        records=records,
        total_size=total,
        columns=list(plan.columns),
        elapsed_ms=(done - compiled) * 1000,
        compile_ms=(compiled - start) * 1000,
        sql=plan.sql,
        object=plan.object,
        is_count=plan.kind == "count",
    )
