"""An org file at the lowest level: is it SQLite, open it read-only, read its stored schema.

Cheap to import on purpose (no schema objects, no digest): ``crmtui query`` reads the stored
schema's text here to find a plan it compiled before (:mod:`crmtui.query.soql.plan_store`)
without building the schema. :mod:`crmtui.org.store` builds on it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from crmtui.errors import OrgError

FORMAT_VERSION = "1"
META_TABLE = "_crmtui_meta"
SQLITE_HEADER = b"SQLite format 3\x00"


def check_sqlite_file(path: Path) -> None:
    """Raise :class:`OrgError` unless ``path`` is an existing, non-empty SQLite file."""
    if not path.exists():
        raise OrgError(f"org file not found: {path}")
    if not path.is_file():
        raise OrgError(f"org path is not a file: {path}")
    try:
        with path.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise OrgError(f"cannot read org file {path}: {exc.strerror or exc}") from exc
    if not header:
        raise OrgError(f"org file is empty: {path}")
    if header != SQLITE_HEADER:
        raise OrgError(f"not an SQLite database: {path}")


def connect_readonly(path: Path) -> sqlite3.Connection:
    """Open ``path`` read-only; writes through the connection fail with an error."""
    try:
        return sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise OrgError(f"cannot open org {path}: {exc}") from exc


def stored_meta(conn: sqlite3.Connection, *keys: str) -> dict[str, str]:
    """The values of ``keys`` in a crmtui org's meta table (missing keys are left out).

    Raises:
        sqlite3.Error: The file has no meta table (a raw upstream file) or is unreadable.
    """
    marks = ", ".join("?" * len(keys))
    rows = conn.execute(f"SELECT key, value FROM {META_TABLE} WHERE key IN ({marks})", keys)
    return {str(key): str(value) for key, value in rows}
