"""SOQL entry points: compile with an LRU cache, run on the thread's read-only connection."""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections import OrderedDict
from typing import Any

from crmtui.data.schema import Schema
from crmtui.query.boundary import check_text, guarded
from crmtui.query.budget import QueryBudget, applied
from crmtui.query.connection import schema_and_connection
from crmtui.query.results import QueryResult
from crmtui.query.soql.compiler import compile_query
from crmtui.query.soql.executor import run_compiled
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


def compile_soql(
    schema: Schema, text: str, *, today: dt.date | None = None, fences: bool = True
) -> CompiledQuery:
    """Parse and compile (cached). Never raises anything but :class:`QueryError`.

    ``fences=False`` parses the text as Salesforce does: a fenced block is a syntax error.
    """
    when = _today(today)
    key = (schema, text, when) if fences else (schema, text, when, "no-fences")
    plan = PLAN_CACHE.get(key)
    if plan is not None:
        return plan
    check_text(text)
    with guarded():
        plan = compile_query(parse(unwrap_fence(text) if fences else text), schema, when)
    PLAN_CACHE.put(key, plan)
    return plan


def execute_soql(
    org: Any,
    text: str,
    *,
    today: dt.date | None = None,
    budget: QueryBudget | None = None,
    fences: bool = True,
) -> QueryResult:
    """Run a SOQL query against an org.

    Args:
        org: An Org-like object or a ``(sqlite3.Connection, Schema)`` pair.
        text: The SOQL text (a fenced ```sql block is unwrapped like upstream does).
        today: The date relative date literals refer to (default: today's UTC date).
        budget: Time limit, result-size cap and cancel event (an enclosing ``run`` call's
            budget, else :class:`~crmtui.query.budget.QueryBudget`'s defaults).
        fences: Unwrap a fenced block (crmtui's and upstream's harness do); ``False``: the
            fence is a MALFORMED_QUERY, as on Salesforce's REST API.

    Raises:
        QueryError: For any query Salesforce would reject, or malformed input.
    """
    check_text(text)
    with applied(budget), guarded():
        schema, conn = schema_and_connection(org)
        start = time.perf_counter()
        plan = compile_soql(schema, text, today=today, fences=fences)
        return run_compiled(conn, plan, (time.perf_counter() - start) * 1000)
