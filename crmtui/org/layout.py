"""Databases in upstream's raw layout: schema inference and validation (read-only).

Upstream ships its orgs as plain SQLite files (``local_data/crmarena_data.db`` and the
CRMArena-Pro ``b2b``/``b2c`` files): one TEXT table per object and nothing else. This module
types such a file's columns against an expected schema (the builtin 16-object schema, or a
schema file such as a CRMArena-Pro schema JSON) and reports what does not match. The store
uses it to open raw files; :mod:`crmtui.org.importer` to check a file before copying it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from crmtui.data.schema import (
    Field,
    Schema,
    SObject,
    builtin_schema,
    implied_value,
    infer_field_type,
)
from crmtui.errors import OrgError
from crmtui.org.digest import data_tables, quote_ident, table_columns
from crmtui.value_class import ValueClass


def infer_object(
    name: str,
    columns: list[str],
    known: SObject | None,
    object_names: Iterable[str],
    key_prefix: str | None = None,
) -> SObject:
    """Describe a table as an :class:`SObject`.

    Columns the known object defines keep its definition and its order; other columns follow
    with a type inferred from their name. ``Id`` always comes first.

    Args:
        name: Object name to use (the schema's spelling when known, else the table's).
        columns: The table's column names.
        known: The expected object definition, if any.
        object_names: Every table name, so ``Product2Id`` can be typed as a lookup.
        key_prefix: Prefix to record when ``known`` has none (from a sample Id).
    """
    names = list(object_names)
    present = {c.lower(): c for c in columns}
    fields: list[Field] = []
    if known is not None:
        for f in known.fields:
            if f.name.lower() in present:
                fields.append(f)
            elif (value := implied_value(name, f.name)) is not None:
                # Missing from upstream's file, always there in Salesforce: one value.
                fields.append(f.replaced(constant=value))
    taken = {f.name.lower() for f in fields}
    for column in columns:
        if column.lower() in taken:
            continue
        if column.lower() == "id":
            fields.append(Field(column, "id", "Record Id", None, False))
        else:
            ftype, target = infer_field_type(column, "", names)
            fields.append(Field(column, ftype, "", target, True))
    fields.sort(key=lambda f: f.name.lower() != "id")  # stable: keeps the rest in order
    prefix = known.key_prefix if known is not None and known.key_prefix else key_prefix
    description = known.description if known is not None else ""
    return SObject(name=name, fields=tuple(fields), key_prefix=prefix, description=description)


def _sample_prefix(conn: sqlite3.Connection, table: str) -> str | None:
    """Key prefix guessed from one Id (Salesforce Ids are 15 or 18 characters)."""
    row = conn.execute(
        f"SELECT Id FROM {quote_ident(table)} WHERE Id IS NOT NULL LIMIT 1"
    ).fetchone()
    text = str(row[0]) if row else ""
    return text[:3] if len(text) in (15, 18) else None


def infer_schema(conn: sqlite3.Connection, expected: Schema | None = None) -> Schema:
    """Infer the schema of a raw layout database (one without ``_crmtui_meta``).

    Tables matching an object of ``expected`` (default: the builtin CRMArena schema) use its
    field definitions; other tables and extra columns are typed from their names. Objects keep
    the expected schema's order, then unknown tables follow alphabetically.

    Raises:
        OrgError: A table has no ``Id`` column, so the file is not in the org layout.
    """
    expected = expected if expected is not None else builtin_schema()
    tables = data_tables(conn)
    objects = []
    for table in tables:
        columns = table_columns(conn, table)
        if not any(c.lower() == "id" for c in columns):
            raise OrgError(f"table {table!r} has no Id column; not an org in the CRMArena layout")
        known = expected.get(table)
        prefix = None if known is not None and known.key_prefix else _sample_prefix(conn, table)
        objects.append(infer_object(known.name if known else table, columns, known, tables, prefix))
    order = {name.lower(): i for i, name in enumerate(expected.object_names)}
    objects.sort(key=lambda o: (order.get(o.name.lower(), len(order)), o.name))
    return Schema(objects)


class Validation(ValueClass):
    """Outcome of comparing a raw database with an expected schema.

    Attributes:
        problems: Errors that block an import (missing tables, Id or listed columns).
        warnings: Differences that are kept (extra tables/columns, missing unlisted columns).
        schema: The schema the imported org will carry (actual tables and columns).
        sources: Table name in the source file for each object of ``schema``.
    """

    FIELDS = ("problems", "warnings", "schema", "sources")

    problems: list[str]
    warnings: list[str]
    schema: Schema | None
    sources: dict[str, str]

    def __init__(
        self,
        problems: list[str] | None = None,
        warnings: list[str] | None = None,
        schema: Schema | None = None,
        sources: dict[str, str] | None = None,
    ) -> None:
        self.problems = [] if problems is None else problems
        self.warnings = [] if warnings is None else warnings
        self.schema = schema
        self.sources = {} if sources is None else sources


def validate_layout(conn: sqlite3.Connection, expected: Schema) -> Validation:
    """Compare the tables of ``conn`` with ``expected`` and list every difference."""
    result = Validation()
    tables = data_tables(conn)
    if not tables:
        result.problems.append("the database has no tables")
        return result
    by_lower = {t.lower(): t for t in tables}
    for obj in expected:
        if obj.name.lower() not in by_lower:
            result.problems.append(f"missing table {obj.name}")
    objects = []
    for table in tables:
        columns = table_columns(conn, table)
        lowered = {c.lower() for c in columns}
        known = expected.get(table)
        if "id" not in lowered:
            result.problems.append(f"table {table} has no Id column")
            continue
        if known is None:
            result.warnings.append(f"extra table {table} kept (not in the schema; types inferred)")
            prefix = _sample_prefix(conn, table)
        else:
            prefix = None if known.key_prefix else _sample_prefix(conn, table)
            missing = [
                f
                for f in known.fields
                if f.name.lower() not in lowered and implied_value(known.name, f.name) is None
            ]
            implied = [
                f"{f.name} = '{implied_value(known.name, f.name)}'"
                for f in known.fields
                if f.name.lower() not in lowered and implied_value(known.name, f.name) is not None
            ]
            if implied:
                result.warnings.append(
                    f"table {table} lacks {', '.join(f.split(' ')[0] for f in implied)}; "
                    f"every record is given {', '.join(implied)} (their only values upstream)"
                )
            listed = [f.name for f in missing if f.listed]
            unlisted = [f.name for f in missing if not f.listed]
            if listed:
                result.problems.append(f"table {table} is missing column(s): {', '.join(listed)}")
            if unlisted:
                result.warnings.append(
                    f"table {table} lacks unlisted column(s) {', '.join(unlisted)}; "
                    "queries using them will fail"
                )
            extra = [c for c in columns if known.field(c) is None]
            if extra:
                result.warnings.append(
                    f"table {table} has extra column(s) kept: {', '.join(extra)}"
                )
        obj = infer_object(known.name if known else table, columns, known, tables, prefix)
        objects.append(obj)
        result.sources[obj.name] = table
    if not result.problems:
        order = {name.lower(): i for i, name in enumerate(expected.object_names)}
        objects.sort(key=lambda o: (order.get(o.name.lower(), len(order)), o.name))
        result.schema = Schema(objects)
    return result
