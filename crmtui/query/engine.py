"""Entry points: compile with an LRU cache, run on a per-thread read-only connection."""

from __future__ import annotations

import contextlib
import datetime as dt
import sqlite3
import threading
import time
import weakref
from collections import OrderedDict
from typing import Any, Protocol

from crmtui.data.schema import Schema
from crmtui.query.compiler import compile_query
from crmtui.query.errors import MALFORMED_QUERY, QueryError
from crmtui.query.executor import execute_plan
from crmtui.query.parser import parse, unwrap_fence
from crmtui.query.plan import CompiledQuery
from crmtui.query.results import QueryResult

CACHE_SIZE = 512


class OrgLike(Protocol):
    """What the engine needs from an org (``crmtui.org.store.Org`` satisfies it)."""

    schema: Schema

    def connect(self) -> sqlite3.Connection:
        """A new read-only connection for the calling thread."""
        ...


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
_local = threading.local()


def _thread_connections() -> dict[int, tuple[Any, sqlite3.Connection]]:
    conns = getattr(_local, "conns", None)
    if conns is None:
        conns = {}
        _local.conns = conns
    return conns


def _close_quietly(conn: sqlite3.Connection) -> None:
    # Closing from another thread than the owner is refused; the connection is then
    # released when it is garbage collected.
    with contextlib.suppress(sqlite3.Error):
        conn.close()


def _prepare(conn: sqlite3.Connection) -> sqlite3.Connection:
    # Defence in depth on top of the read-only URI: SQLite refuses any write.
    conn.execute("PRAGMA query_only = ON")
    return conn


def schema_and_connection(org: Any) -> tuple[Schema, sqlite3.Connection]:
    """The schema and this thread's read-only connection for ``org``.

    ``org`` is an Org-like object (``.schema`` + ``.connect()``; one connection is opened per
    thread and org and kept while the org lives) or a ``(sqlite3.Connection, Schema)`` pair
    (the caller's connection is used as is).
    """
    if isinstance(org, tuple) and len(org) == 2:
        conn, schema = org
        if isinstance(conn, Schema):
            conn, schema = schema, conn
        return schema, _prepare(conn)
    conns = _thread_connections()
    key = id(org)
    entry = conns.get(key)
    if entry is not None and entry[0]() is org:
        return org.schema, entry[1]
    conn = _prepare(org.connect())

    # Defaults bind everything the callback needs: at interpreter exit it may run after this
    # module's globals are already gone.
    def forget(
        _ref: object,
        key: int = key,
        conn: sqlite3.Connection = conn,
        conns: dict[int, Any] = conns,
        close: Any = _close_quietly,
    ) -> None:
        if conns.get(key, (None, None))[1] is conn:
            del conns[key]
        close(conn)

    try:
        ref: Any = weakref.ref(org, forget)
    except TypeError:  # not weak-referenceable: keep it alive with its connection

        def ref(org: Any = org) -> Any:
            return org

    conns[key] = (ref, conn)
    return org.schema, conn


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


def run(org: Any, text: str, *, today: dt.date | None = None) -> QueryResult:
    """Run SOQL or SOSL: text starting with ``FIND`` (any case, after spaces) is SOSL."""
    if isinstance(text, str) and text.lstrip()[:4].upper() == "FIND":
        from crmtui.query import sosl  # lazily: SOSL is a separate engine

        return sosl.execute_sosl(org, text, today=today)
    return execute_soql(org, text, today=today)
