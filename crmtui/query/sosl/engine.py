"""Run SOSL (``FIND {term} ... RETURNING ...``) against an org.

The term is matched by :mod:`crmtui.query.sosl.search` (FTS5 when the org has it, a scan
otherwise); each RETURNING object's field list, ``WHERE``, ``ORDER BY``, ``LIMIT`` and
``OFFSET`` then go through the SOQL engine as

    SELECT <fields> FROM Obj WHERE Id IN (<matching Ids>) AND (<where>) ORDER BY ... LIMIT n

so types, dates and relationship paths mean the same in both languages. Without an ORDER BY
the records keep the search's rank order (bm25 for FTS5). Without RETURNING every object with
searchable fields is searched and returns Ids only. The overall ``LIMIT`` (default 2000) caps
the records of all objects together, filled in RETURNING order.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from crmtui.data.schema import Schema, SObject
from crmtui.query.boundary import check_text, guarded
from crmtui.query.budget import QueryBudget, applied
from crmtui.query.connection import schema_and_connection
from crmtui.query.errors import QueryError
from crmtui.query.results import QueryResult
from crmtui.query.soql.engine import execute_soql
from crmtui.query.soql.parser import MAX_QUERY_LENGTH
from crmtui.query.sosl.parser import ReturningSpec, SoslQuery, line_col, malformed, parse_sosl
from crmtui.query.sosl.search import search_object

# Matched Ids are sent to SOQL in chunks, best first, so a selective WHERE or a small LIMIT
# never makes the engine compile one huge IN list.
_FIRST_CHUNK = 200
_MAX_CHUNK = 2000
# An Id no record has: lets an object with no match still have its fields and WHERE checked.
_NO_MATCH_ID = "000000000000000AAA"


@dataclass
class _Segment:
    """Where a piece of the generated SOQL came from in the SOSL text."""

    soql_start: int
    length: int
    sosl_start: int


class _SoqlBuilder:
    """Builds SOQL text while remembering which spans were copied from the SOSL text."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.segments: list[_Segment] = []

    def add(self, text: str, source: int | None = None) -> None:
        if source is not None:
            self.segments.append(_Segment(self.size, len(text), source))
        self.parts.append(text)
        self.size += len(text)

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def source_offset(self, soql: str, line: int | None, column: int | None) -> int | None:
        """Map a SOQL line/column back to an offset in the SOSL text (None: not copied)."""
        if line is None or column is None:
            return None
        lines = soql.split("\n")
        offset = sum(len(x) + 1 for x in lines[: line - 1]) + column - 1
        before = None
        for seg in self.segments:
            if seg.soql_start <= offset < seg.soql_start + max(seg.length, 1):
                return seg.sosl_start + offset - seg.soql_start
            if seg.soql_start <= offset:
                before = seg
        # Past a copied span (the generated closing parenthesis): blame that span's end.
        return None if before is None else before.sosl_start + before.length


def execute_sosl(
    org: Any, text: str, *, today: dt.date | None = None, budget: QueryBudget | None = None
) -> QueryResult:
    """Run a SOSL statement against ``org``.

    Args:
        org: An opened org (``crmtui.org.store.Org``, or anything with ``schema`` and
            ``connect()``, optionally ``fts_table()``), or a ``(connection, Schema)`` pair.
        text: The SOSL text.
        today: The date ``TODAY`` means in RETURNING WHERE conditions.
        budget: Time limit, result-size cap and cancel event (an enclosing ``run`` call's
            budget, else :class:`~crmtui.query.budget.QueryBudget`'s defaults).

    Returns:
        A :class:`QueryResult` of kind ``'sosl'``: records of every RETURNING object in
        order, best match first within each, Salesforce-shaped (``to_salesforce()`` gives
        ``{"searchRecords": [...]}``).

    Raises:
        QueryError: ``MALFORMED_SEARCH`` for bad syntax or a too-short term, ``INVALID_TYPE``
            for an unknown object, ``INVALID_FIELD`` (from the SOQL engine) for unknown fields.
    """
    check_text(text, search=True)
    with applied(budget), guarded(search=True):
        return _execute(org, text, today)


def _execute(org: Any, text: str, today: dt.date | None) -> QueryResult:
    started = time.perf_counter()
    query = parse_sosl(text)
    schema, conn = schema_and_connection(org)
    specs = _resolve_specs(schema, query)
    parsed = time.perf_counter()
    fts_table = _fts_lookup(org, conn)
    records: list[dict[str, Any]] = []
    remaining = query.limit
    for obj, spec in specs:
        cap = None if spec.where or spec.order_by else _needed(spec, remaining)
        ids = search_object(conn, fts_table, obj, query.term, query.scope, cap=cap)
        found = _fetch(org, query, obj, spec, ids, remaining, today)
        records.extend(found)
        remaining -= len(found)
    finished = time.perf_counter()
    return QueryResult(
        kind="sosl",
        records=records,
        total_size=len(records),
        columns=result_columns(records),
        elapsed_ms=(finished - parsed) * 1000,
        compile_ms=(parsed - started) * 1000,
        sql="",
        object=None,
    )


def _fts_lookup(org: Any, conn: sqlite3.Connection) -> Callable[[str], str | None]:
    """``org.fts_table`` when the org has it, else a lookup in ``sqlite_master``."""
    method = getattr(org, "fts_table", None)
    if callable(method):
        return method  # type: ignore[no-any-return]
    names = {
        n
        for (n,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE name LIKE '\\_fts\\_%' ESCAPE '\\'"
        )
    }
    return lambda obj: f"_fts_{obj}" if f"_fts_{obj}" in names else None


def result_columns(records: list[dict[str, Any]]) -> list[str]:
    """Dotted display columns of SOSL records: the object type, then every field seen."""
    columns: dict[str, None] = {"attributes.type": None}

    def walk(record: dict[str, Any], prefix: str) -> None:
        for key, value in record.items():
            if key == "attributes":
                continue
            if isinstance(value, dict) and "records" not in value:
                walk(value, f"{prefix}{key}.")
            else:
                columns.setdefault(f"{prefix}{key}", None)

    for record in records:
        walk(record, "")
    return list(columns)


def _needed(spec: ReturningSpec, remaining: int) -> int:
    wanted = remaining if spec.limit is None else min(spec.limit, remaining)
    return max(wanted, 0) + (spec.offset or 0)


def _resolve_specs(schema: Schema, query: SoslQuery) -> list[tuple[SObject, ReturningSpec]]:
    """Pair every RETURNING entry with its object (or list every searchable object)."""
    if query.returning is None:
        return [(obj, ReturningSpec(object=obj.name)) for obj in schema if _searchable(obj)]
    resolved: list[tuple[SObject, ReturningSpec]] = []
    seen: set[str] = set()
    for spec in query.returning:
        obj = schema.get(spec.object)
        if obj is None:
            line, column = line_col(query.text, spec.position)
            raise QueryError(
                "INVALID_TYPE",
                f"sObject type '{spec.object}' is not supported.",
                line=line,
                column=column,
            )
        if obj.name in seen:
            raise malformed(
                query.text, f"duplicate object '{spec.object}' in RETURNING", spec.position
            )
        seen.add(obj.name)
        resolved.append((obj, spec))
    return resolved


def _searchable(obj: SObject) -> bool:
    return any(f.type in {"string", "textarea", "email", "phone", "picklist"} for f in obj.fields)


def _chunks(ids: list[str]) -> Iterator[list[str]]:
    start, size = 0, _FIRST_CHUNK
    while start < len(ids):
        yield ids[start : start + size]
        start += size
        size = min(size * 2, _MAX_CHUNK)


def _fetch(
    org: Any,
    query: SoslQuery,
    obj: SObject,
    spec: ReturningSpec,
    ids: list[str],
    remaining: int,
    today: dt.date | None,
) -> list[dict[str, Any]]:
    """Records of ``obj`` among ``ids`` passing the spec's WHERE, in the spec's order."""
    fields = [f.strip() for f in spec.fields] or ["Id"]
    has_id = any(f.lower() == "id" for f in fields)
    limit = remaining if spec.limit is None else min(spec.limit, remaining)
    offset = spec.offset or 0
    if not ids or limit <= 0:
        # Nothing to return, but a wrong field or condition is still an error.
        _soql(org, query, obj, spec, [_NO_MATCH_ID], today, add_id=False, page=None)
        return []
    if spec.order_by:
        return _soql(org, query, obj, spec, ids, today, add_id=False, page=(limit, offset))
    rank = {record_id: i for i, record_id in enumerate(ids)}
    wanted = limit + offset
    found: list[dict[str, Any]] = []
    for chunk in _chunks(ids):
        rows = _soql(org, query, obj, spec, chunk, today, add_id=not has_id, page=None)
        rows.sort(key=lambda r: rank.get(r.get("Id"), len(rank)))
        found.extend(rows)
        if len(found) >= wanted:
            break
    page = found[offset:wanted]
    if not has_id:
        for record in page:
            record.pop("Id", None)
    return page


def _soql(
    org: Any,
    query: SoslQuery,
    obj: SObject,
    spec: ReturningSpec,
    ids: list[str],
    today: dt.date | None,
    *,
    add_id: bool,
    page: tuple[int, int] | None,
) -> list[dict[str, Any]]:
    """Run one generated SOQL query, mapping its errors back onto the SOSL text."""
    build = _SoqlBuilder()
    build.add("SELECT ")
    if add_id:
        build.add("Id, ")
    if spec.fields_text:
        build.add(spec.fields_text, spec.fields_position)
    else:
        build.add("Id")
    build.add(" FROM ")
    build.add(obj.name, spec.position)
    build.add(" WHERE Id IN (" + ", ".join(_quote(i) for i in ids) + ")")
    if spec.where:
        build.add(" AND (")
        build.add(spec.where, spec.where_position)
        build.add(")")
    if spec.order_by:
        build.add(" ORDER BY ")
        build.add(spec.order_by, spec.order_position)
    if page is not None:
        build.add(f" LIMIT {page[0]}")
        if page[1]:
            build.add(f" OFFSET {page[1]}")
    soql = build.text
    if len(soql) > MAX_QUERY_LENGTH and len(ids) > 1:
        # The statement is long because of the matches, not because of anything typed: say
        # so (SOQL's length message would blame a query the person never wrote).
        line, column = line_col(query.text, spec.order_position or spec.position)
        raise QueryError(
            "MALFORMED_SEARCH",
            f"this search matches {len(ids):,} {obj.name} records, too many to sort with "
            f"ORDER BY in one search (at most about {MAX_QUERY_LENGTH // 24:,}); use "
            "narrower search terms, a WHERE in the RETURNING clause, or drop the ORDER BY",
            line=line,
            column=column,
        )
    try:
        result = execute_soql(org, soql, today=today)
    except QueryError as exc:
        raise _relocate(exc, query.text, soql, build, spec) from None
    return [dict(record) for record in result.records]


def _relocate(
    exc: QueryError, sosl: str, soql: str, build: _SoqlBuilder, spec: ReturningSpec
) -> QueryError:
    offset = build.source_offset(soql, exc.line, exc.column)
    line, column = line_col(sosl, spec.position if offset is None else offset)
    # A syntax error inside a RETURNING clause is a malformed search, as in Salesforce.
    code = "MALFORMED_SEARCH" if exc.code == "MALFORMED_QUERY" else exc.code
    return QueryError(code, exc.message, line=line, column=column)


def _quote(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
