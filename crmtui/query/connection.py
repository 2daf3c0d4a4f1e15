"""The thread's read-only connection to an org, shared by the SOQL and SOSL engines.

An SQLite connection belongs to the thread that opened it: each thread gets one connection
per org, kept while the org object lives and closed when it is garbage collected.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import weakref
from typing import TYPE_CHECKING, Any, Protocol

from crmtui.query.budget import install

if TYPE_CHECKING:  # loaded on use: running a stored plan needs no schema objects
    from crmtui.data.schema import Schema


class OrgLike(Protocol):
    """What the engine needs from an org (``crmtui.org.store.Org`` satisfies it)."""

    schema: Schema

    def connect(self) -> sqlite3.Connection:
        """A new read-only connection for the calling thread."""
        ...


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


def prepare(conn: sqlite3.Connection) -> sqlite3.Connection:
    """Make ``conn`` an engine connection: it refuses writes, and queries obey the budget."""
    # Defence in depth on top of the read-only URI: SQLite refuses any write.
    conn.execute("PRAGMA query_only = ON")
    # Every query runs under the thread's budget (time limit, cancel): see .budget.
    install(conn)
    return conn


def schema_and_connection(org: Any) -> tuple[Schema, sqlite3.Connection]:
    """The schema and this thread's read-only connection for ``org``.

    ``org`` is an Org-like object (``.schema`` + ``.connect()``; one connection is opened per
    thread and org and kept while the org lives) or a ``(sqlite3.Connection, Schema)`` pair
    (the caller's connection is used as is).
    """
    if isinstance(org, tuple) and len(org) == 2:
        from crmtui.data.schema import Schema

        conn, schema = org
        if isinstance(conn, Schema):
            conn, schema = schema, conn
        return schema, prepare(conn)
    conns = _thread_connections()
    key = id(org)
    entry = conns.get(key)
    if entry is not None and entry[0]() is org:
        return org.schema, entry[1]
    conn = prepare(org.connect())

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
