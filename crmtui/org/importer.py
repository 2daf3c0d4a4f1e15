"""Importing a database in upstream's raw layout as a crmtui org.

:func:`import_org` checks the source against an expected schema
(:func:`crmtui.org.layout.validate_layout`), then copies its data into a crmtui org with
indexes, full-text tables and metadata. The source file is only ever opened read-only.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from crmtui import paths
from crmtui.data.schema import Schema, SObject, builtin_schema
from crmtui.errors import ConfigError, CrmtuiError, OrgError
from crmtui.org.digest import quote_ident
from crmtui.org.layout import validate_layout
from crmtui.org.store import META_TABLE, Org, check_sqlite_file, connect_readonly, write_org


def import_org(
    src: str | Path,
    name: str | None = None,
    schema: Schema | str | Path | None = None,
    *,
    force: bool = False,
    on_warning: Callable[[str], None] | None = None,
    extra_columns: str = "keep",
) -> Org:
    """Copy a raw-layout database into the data directory as a crmtui org.

    Args:
        src: The SQLite file to import (never modified: it is opened read-only).
        name: Name of the new org; defaults to the file stem.
        schema: Expected schema, or a path to a schema file (crmtui or upstream format);
            defaults to the schema stored in the source when it is a crmtui org, else the
            builtin 16-object CRMArena schema.
        force: Replace an existing org of the same name.
        on_warning: Called with each non-blocking difference (extra tables or columns...).
        extra_columns: Source columns the schema does not list (upstream's file has
            ``ToAddress``, ``PublishStatus``, ``Language``, which its own tools query): always
            kept as queryable fields; in the prompt's schema text ``omit`` leaves them out
            (what upstream's agents read), ``describe`` lists them with crmtui's description
            where it has one, ``keep`` lists them as they are (no description).

    Returns:
        The new org, opened read-only.

    Raises:
        OrgError: The source is not SQLite or does not match the schema (every problem is
            listed in the message), or the org cannot be written.
        ConfigError: The name is invalid or taken (without ``force``).
        SchemaError: The schema file cannot be read.
    """
    source = Path(src).expanduser().resolve()
    check_sqlite_file(source)
    expected = _expected_schema(schema)
    org_name = name if name is not None else source.stem
    target = paths.org_path(org_name)  # checks the name
    if target.exists() and target.resolve() == source:
        raise ConfigError(f"{source} is already the org {org_name!r}; choose another --name")
    if target.exists() and not force:
        raise ConfigError(f"org {org_name!r} already exists at {target}; pass --force to replace")
    conn = connect_readonly(source)
    try:
        try:
            if schema is None:
                expected = _stored_schema(conn) or expected
            result = validate_layout(conn, expected)
        except sqlite3.DatabaseError as exc:
            raise OrgError(f"cannot read {source}: {exc}") from exc
        if result.problems or result.schema is None:
            raise OrgError(
                f"{source} does not match the expected schema: {'; '.join(result.problems)}"
            )
        for warning in result.warnings:
            if on_warning is not None:
                on_warning(warning)
        tables = {obj.name: _rows(conn, result.sources[obj.name], obj) for obj in result.schema}
        final = _extra_columns(result.schema, expected, extra_columns)
        return write_org(
            target,
            final,
            tables,
            {"name": org_name, "source": str(source)},
        )
    finally:
        conn.close()


EXTRA_COLUMNS = ("keep", "omit", "describe")


def _extra_columns(schema: Schema, expected: Schema, how: str) -> Schema:
    """``schema`` with the columns ``expected`` lacks listed, unlisted or described."""

    from crmtui.data.schema import builtin_schema

    if how not in EXTRA_COLUMNS:
        raise ConfigError(f"--extra-columns must be one of {', '.join(EXTRA_COLUMNS)}")
    if how == "keep":
        return schema
    builtin = builtin_schema()
    objects = []
    for obj in schema:
        known = expected.get(obj.name)
        fields = []
        for item in obj.fields:
            extra = known is not None and known.field(item.name) is None and item.listed
            if extra and how == "omit":
                item = item.replaced(listed=False)
            elif extra and not item.description:
                ours = builtin.get(obj.name)
                found = ours.field(item.name) if ours is not None else None
                text = found.description if found is not None and found.description else ""
                item = item.replaced(description=text or "(not described)")
            fields.append(item)
        objects.append(obj.replaced(fields=tuple(fields)))
    return Schema(objects)


def _expected_schema(schema: Schema | str | Path | None) -> Schema:
    if schema is None:
        return builtin_schema()
    if isinstance(schema, Schema):
        return schema
    if isinstance(schema, str) and (schema == "hf" or schema.startswith("hf:")):
        from crmtui.data.loaders import load_schema_source

        return load_schema_source(schema)
    return Schema.load(schema)


def _stored_schema(conn: sqlite3.Connection) -> Schema | None:
    """The schema a crmtui org carries, so re-importing one keeps its own objects."""
    has_meta = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (META_TABLE,)
    ).fetchone()
    if not has_meta:
        return None
    row = conn.execute(f"SELECT value FROM {META_TABLE} WHERE key = 'schema'").fetchone()
    if row is None:
        return None
    try:
        return Schema.from_json(json.loads(row[0]))
    except (json.JSONDecodeError, CrmtuiError) as exc:
        raise OrgError(f"the stored schema of the source is invalid: {exc}") from exc


def _quote_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _rows(conn: sqlite3.Connection, table: str, obj: SObject) -> Iterator[dict[str, Any]]:
    """Stream a source table's rows as ``{field: value}`` (SQLite column names ignore case)."""
    names = obj.field_names
    constants = {f.name: f.constant for f in obj.fields if f.constant is not None}
    select = ", ".join(
        # An implied field becomes a real column of the copy, holding its one value.
        _quote_text(constants[n]) if n in constants else quote_ident(n)
        for n in names
    )
    cursor = conn.execute(f"SELECT {select} FROM {quote_ident(table)}")
    for row in cursor:
        yield dict(zip(names, row, strict=True))
