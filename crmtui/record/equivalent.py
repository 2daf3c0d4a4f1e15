"""Build the SOQL/SOSL a model would have run for what a human did by browsing.

Every browse event carries ``query``: the equivalent query string, so a human's clicks and a
model's queries can be compared step by step. These helpers are pure string builders; they
validate identifiers (so a field name can never smuggle in a clause) and escape literals the
way Salesforce requires (backslash escapes in SOQL strings; backslash before every reserved
character inside a SOSL ``FIND {...}``).
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from crmtui.record.errors import QueryBuildError

_IDENT_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*$")
_SOQL_ESCAPES = {
    "\\": "\\\\",
    "'": "\\'",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
}
_SOQL_UNESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "b": "\b",
    "f": "\f",
}
_SOSL_RESERVED = frozenset("?&|!{}[]()^~*:\\\"'+-")
_NUMERIC_TYPES = frozenset({"int", "double", "currency", "percent"})
_NUMBER_RE = re.compile(r"^-?\d+(\.\d+)?$")
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATE_LITERAL_RE = re.compile(r"^[A-Z][A-Z_]*(:\d+)?$")  # TODAY, LAST_N_DAYS:30, ...
_COMPARISONS = {"=", "!=", "<", "<=", ">", ">="}
_SOSL_SCOPES = ("ALL", "NAME", "EMAIL", "PHONE")

OrderBy = str | tuple[str, bool] | Sequence[str | tuple[str, bool]]


def identifier(name: str) -> str:
    """Return ``name`` if it is a valid object/field name or dotted path.

    Raises:
        QueryBuildError: For anything else (spaces, quotes, commas, empty).
    """
    if not isinstance(name, str) or not _IDENT_RE.match(name):
        raise QueryBuildError(f"not a valid object or field name: {name!r}")
    return name


def soql_string(value: str) -> str:
    """Quote ``value`` as a SOQL string literal, escaping backslash, quote and controls."""
    return "'" + "".join(_SOQL_ESCAPES.get(ch, ch) for ch in value) + "'"


def unescape_soql_string(literal: str) -> str:
    """Inverse of :func:`soql_string` (also reads ``\\"`` and ``\\uXXXX``).

    ``\\%`` and ``\\_`` (LIKE wildcard escapes) are kept as written.

    Raises:
        QueryBuildError: If ``literal`` is not one well-formed quoted SOQL string.
    """
    if len(literal) < 2 or literal[0] != "'" or literal[-1] != "'":
        raise QueryBuildError(f"not a quoted SOQL string: {literal!r}")
    out: list[str] = []
    body = literal[1:-1]
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "'":
            raise QueryBuildError(f"unescaped quote at position {i + 1} in {literal!r}")
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        if i + 1 >= len(body):
            raise QueryBuildError(f"dangling backslash in {literal!r}")
        nxt = body[i + 1]
        if nxt in _SOQL_UNESCAPES:
            out.append(_SOQL_UNESCAPES[nxt])
            i += 2
        elif nxt in "%_":
            out.append("\\" + nxt)
            i += 2
        elif nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", body[i + 2 : i + 6]):
            out.append(chr(int(body[i + 2 : i + 6], 16)))
            i += 6
        else:
            raise QueryBuildError(f"unknown escape \\{nxt} in {literal!r}")
    return "".join(out)


def like_pattern(text: str, *, prefix: str = "%", suffix: str = "%") -> str:
    """A LIKE pattern matching ``text`` literally (``%`` and ``_`` escaped), as a literal."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    body = "".join(_SOQL_ESCAPES.get(ch, ch) if ch != "\\" else ch for ch in escaped)
    return "'" + prefix + body + suffix + "'"


def _datetime_literal(moment: dt.datetime) -> str:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def soql_literal(value: Any, field_type: str | None = None) -> str:
    """Render a Python value (or a typed string) as a SOQL literal.

    Args:
        value: None, bool, int, float, date, datetime, str, or a list/tuple of those (for
            ``IN``).
        field_type: The schema type of the compared field; lets a string typed in a UI
            (``"15"``, ``"true"``, ``"2024-05-26"``) become the unquoted literal SOQL needs.

    Raises:
        QueryBuildError: If the value cannot be a literal of that type.
    """
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise QueryBuildError(f"not a finite number: {value!r}")
        return repr(value)
    if isinstance(value, dt.datetime):
        return _datetime_literal(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        if not value:
            raise QueryBuildError("an IN list needs at least one value")
        return "(" + ", ".join(soql_literal(v, field_type) for v in value) + ")"
    if not isinstance(value, str):
        raise QueryBuildError(f"cannot use a {type(value).__name__} as a SOQL value")
    text = value.strip()
    if field_type in _NUMERIC_TYPES:
        if not _NUMBER_RE.match(text):
            raise QueryBuildError(f"not a number: {value!r}")
        return text
    if field_type == "boolean":
        lowered = text.lower()
        if lowered in ("true", "1"):
            return "TRUE"
        if lowered in ("false", "0"):
            return "FALSE"
        raise QueryBuildError(f"not a boolean: {value!r}")
    if field_type == "date":
        if _DATE_RE.match(text) or _DATE_LITERAL_RE.match(text):
            return text
        raise QueryBuildError(f"not a date (YYYY-MM-DD): {value!r}")
    if field_type == "datetime":
        if _DATE_RE.match(text):
            return text + "T00:00:00Z"
        if _DATE_LITERAL_RE.match(text):
            return text
        try:
            return _datetime_literal(dt.datetime.fromisoformat(text.replace("Z", "+00:00")))
        except ValueError:
            raise QueryBuildError(f"not a datetime: {value!r}") from None
    return soql_string(value)


def soql_condition(field: str, op: str, value: Any, field_type: str | None = None) -> str:
    """One WHERE condition.

    ``op`` is a SOQL operator (``=``, ``!=``/``<>``, ``<``, ``<=``, ``>``, ``>=``,
    ``LIKE``, ``IN``, ``NOT IN``) or a UI name: ``contains``, ``starts_with``,
    ``ends_with`` (literal LIKE patterns), ``is_null``, ``not_null``.

    Raises:
        QueryBuildError: For an unknown operator or a value that does not fit it.
    """
    name = identifier(field)
    key = op.strip().lower().replace(" ", "_")
    if key == "<>":
        key = "!="
    if key in _COMPARISONS:
        return f"{name} {key} {soql_literal(value, field_type)}"
    if key in ("in", "not_in"):
        if not isinstance(value, list | tuple):
            raise QueryBuildError(f"{op} needs a list of values")
        return f"{name} {'IN' if key == 'in' else 'NOT IN'} {soql_literal(value, field_type)}"
    if key == "like":
        if not isinstance(value, str):
            raise QueryBuildError("LIKE needs a string pattern")
        return f"{name} LIKE {soql_string(value)}"
    patterns = {"contains": ("%", "%"), "starts_with": ("", "%"), "ends_with": ("%", "")}
    if key in patterns:
        if not isinstance(value, str):
            raise QueryBuildError(f"{op} needs a string")
        prefix, suffix = patterns[key]
        return f"{name} LIKE {like_pattern(value, prefix=prefix, suffix=suffix)}"
    if key == "is_null":
        return f"{name} = NULL"
    if key == "not_null":
        return f"{name} != NULL"
    raise QueryBuildError(f"unknown filter operator {op!r}")


def _order_clause(order_by: OrderBy) -> str:
    items: Sequence[str | tuple[str, bool]]
    if isinstance(order_by, str) or (
        isinstance(order_by, tuple) and len(order_by) == 2 and isinstance(order_by[1], bool)
    ):
        items = [order_by]  # type: ignore[list-item]
    else:
        items = order_by  # type: ignore[assignment]
    parts = []
    for item in items:
        if isinstance(item, str):
            parts.append(identifier(item))
        else:
            field, descending = item
            parts.append(f"{identifier(field)} {'DESC' if descending else 'ASC'}")
    if not parts:
        raise QueryBuildError("ORDER BY needs at least one field")
    return ", ".join(parts)


def soql_select(
    obj: str,
    fields: Sequence[str],
    *,
    where: str | Sequence[str] | None = None,
    order_by: OrderBy | None = None,
    limit: int | None = None,
) -> str:
    """``SELECT fields FROM obj [WHERE ...] [ORDER BY ...] [LIMIT n]``.

    Args:
        obj: Object API name.
        fields: Field names or dotted paths (``Id`` is used if empty).
        where: A condition from :func:`soql_condition`, or several joined with AND.
        order_by: ``"Field"``, ``("Field", descending)`` or a sequence of those.
        limit: Row limit.
    """
    cols = ", ".join(identifier(f) for f in fields) if fields else "Id"
    text = f"SELECT {cols} FROM {identifier(obj)}"
    conditions = [where] if isinstance(where, str) else list(where or [])
    if conditions:
        text += " WHERE " + " AND ".join(conditions)
    if order_by is not None:
        text += " ORDER BY " + _order_clause(order_by)
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise QueryBuildError(f"LIMIT must be a non-negative integer, not {limit!r}")
        text += f" LIMIT {limit}"
    return text


def soql_for_open_object(
    obj: str,
    fields: Sequence[str],
    order_by: OrderBy | None = None,
    where: str | Sequence[str] | None = None,
    limit: int | None = None,
) -> str:
    """The query behind an object's list view (also used for ``sort``)."""
    return soql_select(obj, fields, where=where, order_by=order_by, limit=limit)


def soql_for_record(obj: str, record_id: str, fields: Sequence[str]) -> str:
    """The query behind one record's detail view (``open_record``, ``follow_link``)."""
    return soql_select(obj, fields, where=soql_condition("Id", "=", record_id))


def soql_for_filter(
    obj: str,
    fields: Sequence[str],
    field: str,
    op: str,
    value: Any,
    *,
    field_type: str | None = None,
    where: str | Sequence[str] | None = None,
    order_by: OrderBy | None = None,
    limit: int | None = None,
) -> str:
    """The query behind a filtered list view: existing ``where`` AND the new condition."""
    conditions = [where] if isinstance(where, str) else list(where or [])
    conditions.append(soql_condition(field, op, value, field_type))
    return soql_select(obj, fields, where=conditions, order_by=order_by, limit=limit)


def sosl_escape(text: str) -> str:
    """Backslash every SOSL reserved character so ``text`` is searched literally."""
    return "".join("\\" + ch if ch in _SOSL_RESERVED else ch for ch in text)


def unescape_sosl_text(escaped: str) -> str:
    """Inverse of :func:`sosl_escape`."""
    return re.sub(r"\\(.)", r"\1", escaped, flags=re.DOTALL)


def sosl_for_search(
    text: str,
    objects: Sequence[str] | Mapping[str, Sequence[str]] | None = None,
    *,
    scope: str = "ALL",
) -> str:
    """``FIND {text} IN <scope> FIELDS [RETURNING Obj(fields), ...]``.

    Args:
        text: What was typed in the search box (searched literally).
        objects: Objects to return, optionally with the fields of each.
        scope: ``ALL``, ``NAME``, ``EMAIL`` or ``PHONE``.

    Raises:
        QueryBuildError: On empty text, an unknown scope or a bad name.
    """
    if not text.strip():
        raise QueryBuildError("search text is empty")
    scope_key = scope.upper()
    if scope_key not in _SOSL_SCOPES:
        raise QueryBuildError(f"unknown search scope {scope!r}")
    query = f"FIND {{{sosl_escape(text)}}} IN {scope_key} FIELDS"
    if objects:
        parts = []
        if isinstance(objects, Mapping):
            for name, fields in objects.items():
                cols = ", ".join(identifier(f) for f in fields)
                parts.append(f"{identifier(name)}({cols})" if cols else identifier(name))
        else:
            parts = [identifier(name) for name in objects]
        query += " RETURNING " + ", ".join(parts)
    return query
