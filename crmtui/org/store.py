"""The org store: one read-only SQLite file per org, in upstream's ``local_data`` layout.

:class:`Org` opens a file read-only (crmtui-built, imported, or a raw upstream file) and
exposes its schema, digest and counts; :func:`write_org` writes a complete crmtui org
atomically (temp file in the same directory, then rename). Opening never builds anything:
finding or building the sample org is :mod:`crmtui.org.sample`'s job.

Plain ``sqlite3`` on purpose (sqlite-utils was tried for #15 and dropped): its FTS helper
names the search table ``<Object>_fts`` and indexes every column (the org format uses
``_fts_<Object>`` with an unindexed Id, and the digest skips only ``_fts_*`` tables), its
``insert_all`` wrote rows slower than ``executemany``, and importing it (it loads pandas when
installed) slowed the sample org's build a lot (docs/performance.md), for two lines saved on
CREATE statements.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crmtui import paths
from crmtui.data.schema import Schema, SObject
from crmtui.errors import CrmtuiError, OrgError
from crmtui.org.digest import compute_digest, data_tables, quote_ident
from crmtui.org.files import (  # re-exported: the org format's constants live there
    FORMAT_VERSION as FORMAT_VERSION,
)
from crmtui.org.files import META_TABLE as META_TABLE
from crmtui.org.files import SQLITE_HEADER as SQLITE_HEADER
from crmtui.org.files import check_sqlite_file as check_sqlite_file
from crmtui.org.files import connect_readonly as connect_readonly
from crmtui.org.layout import infer_schema

if TYPE_CHECKING:
    from crmtui.org.info import ObjectInfo as ObjectInfo
    from crmtui.org.info import OrgInfo as OrgInfo


def __getattr__(name: str) -> Any:
    # `crmtui org info`'s summaries, loaded on use (PEP 562): every other command opens orgs
    # without them, a cold start of `crmtui play` included (their dataclasses cost ~1.5 ms).
    if name in ("ObjectInfo", "OrgInfo"):
        from crmtui.org import info

        return getattr(info, name)
    raise AttributeError(f"module 'crmtui.org.store' has no attribute {name!r}")


FTS_PREFIX = "_fts_"
DATE_TYPES = frozenset({"date", "datetime"})
SEARCHABLE_TYPES = frozenset({"string", "textarea", "email", "phone", "picklist"})


class Org:
    """A read-only org database.

    Attributes:
        path: The SQLite file.
        schema: Objects and fields (stored in the org, or inferred for raw files).
        meta: The ``_crmtui_meta`` key/values (empty for raw upstream files).
        has_fts: Whether full-text tables (``_fts_<Object>``) exist.
    """

    def __init__(
        self, path: Path, schema: Schema, meta: dict[str, str], fts_tables: set[str]
    ) -> None:
        self.path = path
        self.schema = schema
        self.meta = meta
        self._fts_tables = fts_tables
        self.has_fts = bool(fts_tables)

    def __repr__(self) -> str:
        return f"Org(name={self.name!r}, path={str(self.path)!r}, objects={len(self.schema)})"

    @classmethod
    def open(cls, path: str | Path) -> Org:
        """Open an org file read-only, validating its layout.

        Raises:
            OrgError: The file is missing, empty, not SQLite, or not in the org layout.
        """
        path = Path(path).expanduser()
        check_sqlite_file(path)
        conn = connect_readonly(path)
        try:
            names = {
                n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            meta: dict[str, str] = {}
            if META_TABLE in names:
                meta = dict(conn.execute(f"SELECT key, value FROM {META_TABLE}").fetchall())
            if "schema" in meta:
                schema = _schema_from_meta(path, meta["schema"])
            else:
                if not data_tables(conn):
                    raise OrgError(f"org {path} contains no tables")
                schema = infer_schema(conn)
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            raise read_error(path, exc) from None
        finally:
            conn.close()
        # FTS5 shadow tables (_fts_Case_data, _fts_Case_idx, ...) are not search tables.
        fts = {
            n
            for n in names
            if n.startswith(FTS_PREFIX)
            and (obj := schema.get(n[len(FTS_PREFIX) :])) is not None
            and n == FTS_PREFIX + obj.name
        }
        return cls(path, schema, meta, fts)

    # -- identity ------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The org's name (from its meta, else the file stem)."""
        return self.meta.get("name") or self.path.stem

    @cached_property
    def digest(self) -> str:
        """sha256 of the raw tables' content (stored for crmtui orgs, computed otherwise)."""
        stored = self.meta.get("digest")
        if stored:
            return stored
        with self._connection() as conn:
            return compute_digest(conn, [o.name for o in self.schema])

    # -- access --------------------------------------------------------------------------

    def connect(self) -> sqlite3.Connection:
        """Return a NEW read-only connection for the calling thread (the caller closes it)."""
        return connect_readonly(self.path)

    def fts_table(self, obj: str) -> str | None:
        """Name of the full-text table of ``obj`` (``_fts_Case``), or None when absent."""
        found = self.schema.get(obj)
        if found is None:
            return None
        table = FTS_PREFIX + found.name
        return table if table in self._fts_tables else None

    def require_object(self, obj: str) -> SObject:
        """Look an object up case-insensitively, raising :class:`OrgError` when absent."""
        found = self.schema.get(obj)
        if found is None:
            raise OrgError(f"org {self.name!r} has no object {obj!r}")
        return found

    def count(self, obj: str) -> int:
        """Number of records of ``obj``."""
        table = quote_ident(self.require_object(obj).name)
        with self._connection() as conn:
            return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

    def info(self) -> OrgInfo:
        """Row counts, date ranges, digest and file facts, for ``crmtui org info``.

        Raises:
            OrgError: A table the schema names is missing or unreadable (a damaged file).
        """
        try:
            return self._info()
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            raise read_error(self.path, exc) from None

    def _info(self) -> OrgInfo:
        from crmtui.org.info import ObjectInfo, OrgInfo

        objects = []
        with self._connection() as conn:
            for obj in self.schema:
                table = quote_ident(obj.name)
                dates = [quote_ident(f.name) for f in obj.fields if f.type in DATE_TYPES]
                selects = ["count(*)"]
                if dates:
                    selects += [f"min({c})" for c in dates] + [f"max({c})" for c in dates]
                row = conn.execute(f"SELECT {', '.join(selects)} FROM {table}").fetchone()
                lows = [v for v in row[1 : 1 + len(dates)] if v is not None]
                highs = [v for v in row[1 + len(dates) :] if v is not None]
                objects.append(
                    ObjectInfo(
                        name=obj.name,
                        rows=int(row[0]),
                        date_min=str(min(map(str, lows))) if lows else None,
                        date_max=str(max(map(str, highs))) if highs else None,
                        has_fts=self.fts_table(obj.name) is not None,
                    )
                )
        return OrgInfo(
            path=self.path,
            name=self.name,
            size=self.path.stat().st_size,
            digest=self.digest,
            has_fts=self.has_fts,
            meta=dict(self.meta),
            objects=objects,
        )

    def _connection(self) -> _Closing:
        return _Closing(self.connect())


def read_error(path: Path, exc: Exception) -> OrgError:
    """The one-line error for an org file SQLite could not read (damaged, incomplete)."""
    if isinstance(exc, UnicodeDecodeError) or str(exc).startswith("Could not decode to UTF-8"):
        # Flipped bytes in a text value (sqlite3 decodes the table list itself, raising
        # UnicodeDecodeError; a column value gives OperationalError quoting the whole text).
        return OrgError(
            f"cannot read org {path}: it holds bytes that are not UTF-8 text (the file is damaged)"
        )
    return OrgError(f"cannot read org {path}: {exc}")


class _Closing:
    """Context manager closing a connection (sqlite3's own only ends a transaction)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        return self.conn

    def __exit__(self, *exc: object) -> None:
        self.conn.close()


def _schema_from_meta(path: Path, text: str) -> Schema:
    try:
        return Schema.from_json(json.loads(text))
    except (json.JSONDecodeError, CrmtuiError) as exc:
        raise OrgError(f"org {path} has an invalid stored schema: {exc}") from exc
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as exc:
        # Valid JSON of the wrong shape: a flipped byte in a key ("nbme"), a list for a map.
        raise OrgError(
            f"org {path} has an invalid stored schema ({type(exc).__name__}: {exc}); "
            "the file is damaged"
        ) from exc


def open_org(spec: str | Path | None = None) -> Org:
    """Open the org named or pointed to by ``spec`` (``None``: the sample org's file).

    The store only opens orgs: building the sample when it is missing is the caller's job
    (:func:`crmtui.org.sample.open_org_or_sample`).

    Raises:
        OrgError: The file is missing (the sample: not built yet) or not a readable org.
        ConfigError: ``spec`` names no known org.
    """
    path = paths.resolve_org(spec)
    if not path.exists() and path == paths.org_path(paths.SAMPLE_ORG_NAME):
        raise OrgError(f"the sample org is not built yet ({path}); run `crmtui org build`")
    return Org.open(path)


def write_org(
    path: str | Path,
    schema: Schema,
    tables: Mapping[str, Iterable[Mapping[str, Any]]],
    meta: Mapping[str, str] | None = None,
) -> Org:
    """Atomically write a complete crmtui org (tables, indexes, FTS, meta) and open it.

    Rows go to a temp file beside ``path`` which is renamed over ``path`` only once complete,
    so readers never see a half-written org. Values should be text (or None); numbers and
    booleans are stored as their text form ('15.0', '1') by the TEXT column affinity.

    Args:
        path: Destination file; replaced atomically if it exists.
        schema: Objects to create; every object gets a table, empty if absent from ``tables``.
        tables: Rows per object name, as mappings from column to value. Values may be
            generators: rows are streamed into SQLite, never collected in a list.
        meta: Extra ``_crmtui_meta`` entries (``name``, ``source``, ``created_at``, ``seed``,
            ``scale``, ...). ``format_version``, ``schema`` and ``digest`` are computed.

    Raises:
        OrgError: A table is not in the schema, a row has an unknown column or a value that
            cannot be stored, or the file cannot be written.
    """
    target = Path(path).expanduser()
    rows_by_object: dict[str, Iterable[Mapping[str, Any]]] = {}
    for key, rows in tables.items():
        obj = schema.get(key)
        if obj is None:
            raise OrgError(f"table {key!r} is not an object of the schema")
        if obj.name in rows_by_object:
            raise OrgError(f"rows for object {obj.name!r} are given twice")
        rows_by_object[obj.name] = rows
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OrgError(f"cannot create directory for {target}: {exc.strerror or exc}") from exc
    import secrets  # here: a start that only opens orgs does without it

    tmp = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        # Made here first so that a read-only or full disk is named (SQLite would only say
        # "unable to open database file").
        tmp.touch(exist_ok=False)
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            _write_all(conn, schema, rows_by_object, dict(meta or {}), target)
        finally:
            conn.close()
        # synchronous=OFF skipped every fsync while building: make the bytes durable once.
        with tmp.open("rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except sqlite3.Error as exc:
        raise OrgError(f"cannot write org {target}: {exc}") from exc
    except OSError as exc:
        raise OrgError(f"cannot write org {target}: {exc.strerror or exc}") from exc
    finally:
        # On a read-only disk even removing a file that was never made fails (EROFS).
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
    return Org.open(target)


def column_layout(obj: SObject) -> list[str]:
    """Columns of an object's table: ``Id`` first, then the schema's field order."""
    names = obj.field_names
    ids = [n for n in names if n.lower() == "id"] or ["Id"]
    return ids[:1] + [n for n in names if n.lower() != "id"]


def searchable_columns(obj: SObject) -> list[str]:
    """Text columns indexed for full-text search (SOSL ``FIND``)."""
    return [f.name for f in obj.fields if f.type in SEARCHABLE_TYPES]


def _write_all(
    conn: sqlite3.Connection,
    schema: Schema,
    rows_by_object: Mapping[str, Iterable[Mapping[str, Any]]],
    meta: dict[str, str],
    target: Path,
) -> None:
    # The file is private until renamed, so durability and rollback buy nothing here.
    for pragma in ("journal_mode=OFF", "synchronous=OFF", "cache_size=-65536", "temp_store=MEMORY"):
        conn.execute(f"PRAGMA {pragma}")
    for obj in schema:
        columns = column_layout(obj)
        table = quote_ident(obj.name)
        conn.execute(
            f"CREATE TABLE {table} ({', '.join(quote_ident(c) + ' TEXT' for c in columns)})"
        )
        rows = rows_by_object.get(obj.name)
        if rows is None:
            continue
        placeholders = ", ".join("?" * len(columns))
        conn.execute("BEGIN")
        try:
            conn.executemany(
                f"INSERT INTO {table} VALUES ({placeholders})", _tuples(obj.name, columns, rows)
            )
        except sqlite3.InterfaceError as exc:
            raise OrgError(f"cannot store a value in {obj.name}: {exc}") from exc
        except sqlite3.ProgrammingError as exc:
            raise OrgError(f"cannot store a value in {obj.name}: {exc}") from exc
        conn.execute("COMMIT")
    conn.execute("BEGIN")
    for obj in schema:
        table = quote_ident(obj.name)
        for column in [column_layout(obj)[0]] + [f.name for f in obj.references]:
            index = quote_ident(f"_idx_{obj.name}_{column}")
            conn.execute(f"CREATE INDEX {index} ON {table} ({quote_ident(column)})")
        searchable = searchable_columns(obj)
        if searchable:
            fts = quote_ident(FTS_PREFIX + obj.name)
            cols = ", ".join(
                [quote_ident(column_layout(obj)[0]) + " UNINDEXED"]
                + [quote_ident(c) for c in searchable]
            )
            # External content: the text stays in the raw table only, the FTS keeps the index.
            conn.execute(
                f"CREATE VIRTUAL TABLE {fts} USING fts5({cols}, content={_literal(obj.name)}, "
                "content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')"
            )
            conn.execute(f"INSERT INTO {fts}({fts}) VALUES ('rebuild')")
    conn.execute("COMMIT")
    # Statistics let the query planner pick the Id/lookup indexes for joins.
    conn.execute("PRAGMA analysis_limit=400")
    conn.execute("ANALYZE")
    digest = compute_digest(conn, [obj.name for obj in schema])
    values = {
        "name": target.stem,
        "source": "crmtui",
        "created_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        **{str(k): str(v) for k, v in meta.items()},
        "format_version": FORMAT_VERSION,
        "schema": schema.dumps(),
        "digest": digest,
    }
    conn.execute("BEGIN")
    conn.execute(f"CREATE TABLE {META_TABLE} (key TEXT PRIMARY KEY, value TEXT)")
    conn.executemany(f"INSERT INTO {META_TABLE} VALUES (?, ?)", sorted(values.items()))
    conn.execute("COMMIT")


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _tuples(
    name: str, columns: list[str], rows: Iterable[Mapping[str, Any]]
) -> Iterator[tuple[Any, ...]]:
    allowed = set(columns)
    for row in rows:
        if not row.keys() <= allowed:
            extra = sorted(set(row.keys()) - allowed)
            raise OrgError(f"row for {name} has unknown column(s): {', '.join(extra)}")
        yield tuple(map(row.get, columns))
