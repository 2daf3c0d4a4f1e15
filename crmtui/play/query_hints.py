"""Help around a failed console query: where it failed, and what the user probably meant.

The engine's error text is what agents see too, so it stays Salesforce's. The console adds,
for the human only:

* :func:`caret_lines`: the query line the error names, with a caret under the column (cut
  around the column when the line is wider than the panel);
* :func:`did_you_mean`: for an unknown object, field or relationship, the closest names
  from the schema (``difflib``), e.g. ``Subjct`` -> ``Subject``.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from crmtui.data.schema import Schema, SObject

_NO_COLUMN = re.compile(r"No such column '([^']+)' on entity '([^']+)'")
_NO_OBJECT = re.compile(r"sObject type '([^']+)' is not supported")
_NO_RELATION = re.compile(r"Didn't understand relationship '([^']+)' in (field path|FROM part)")
_FROM = re.compile(r"\bFROM\s+(\w+)", re.IGNORECASE)
_PATH = re.compile(r"[\w.]+")


def caret_lines(query: str, line: int | None, column: int | None, width: int = 100) -> list[str]:
    """The query line named by ``line`` and a caret line under ``column`` (1-based).

    Lines longer than ``width`` are cut to a window around the column, marked with ``…``.
    Returns ``[]`` when the position is unknown or outside the query.
    """
    lines = query.splitlines()
    if line is None or column is None or not 0 < line <= len(lines) or column < 1:
        return []
    source = lines[line - 1].expandtabs(1)
    at = min(column - 1, len(source))
    width = max(width, 20)
    start = 0
    if len(source) > width:
        start = max(0, min(at - width // 2, len(source) - width))
        source = source[start : start + width]
        if start > 0:
            source = "…" + source[1:]
        if start + width < len(lines[line - 1]):
            source = source[:-1] + "…"
    return [source, " " * (at - start) + "^"]


def _close(word: str, candidates: list[str], n: int = 3) -> list[str]:
    by_lower = {c.lower(): c for c in candidates}
    found = difflib.get_close_matches(word.lower(), list(by_lower), n=n, cutoff=0.6)
    # A name that contains the typed word (``Shipping`` -> ``ShippingState``) is a match too.
    found += [c for c in by_lower if word.lower() in c and c not in found and len(word) >= 3][
        : max(0, n - len(found))
    ]
    return [by_lower[c] for c in found]


def _field_names(obj: SObject) -> list[str]:
    names = obj.field_names + [r.relationship_name for r in obj.references if r.relationship_name]
    if obj.has_compound_name:
        names.append("Name")
    return names


def _path_at(query: str, line: int | None, column: int | None) -> str | None:
    lines = query.splitlines()
    if line is None or column is None or not 0 < line <= len(lines):
        return None
    match = _PATH.match(lines[line - 1], column - 1)
    return match.group(0) if match else None


def _outer_object(schema: Schema, query: str) -> SObject | None:
    """The object after the FROM outside any parentheses (not a subquery's)."""
    for match in _FROM.finditer(query):
        before = query[: match.start()]
        if before.count("(") == before.count(")"):
            return schema.get(match.group(1))
    return None


def _relationship_hint(schema: Schema, query: str, error: Any, bad: str) -> list[str]:
    obj = _outer_object(schema, query)
    if obj is None:
        return []
    path = _path_at(query, error.line, error.column) or bad
    parts = path.split(".")
    if parts and parts[0].lower() == obj.name.lower() and len(parts) > 1:
        parts = parts[1:]
    for part in parts:
        if part.lower() == bad.lower():
            break
        ref = obj.relationship(part)
        target = schema.get(ref.reference_to or "") if ref else None
        if target is None:
            return []
        obj = target
    names = [r.relationship_name for r in obj.references if r.relationship_name]
    return _close(bad, names) or _close(bad, [c.name for c in schema.children(obj.name)])


def did_you_mean(schema: Schema, query: str, error: Any) -> str | None:
    """A ``did you mean ...?`` line for an unknown object, field or relationship, else None.

    Args:
        schema: The org's schema.
        query: The query text that failed.
        error: The :class:`~crmtui.query.QueryError` (its ``message``, ``line``, ``column``).
    """
    message = str(getattr(error, "message", error))
    suggestions: list[str] = []
    if match := _NO_COLUMN.search(message):
        obj = schema.get(match.group(2))
        if obj is not None:
            suggestions = _close(match.group(1), _field_names(obj))
    elif match := _NO_OBJECT.search(message):
        suggestions = _close(match.group(1), schema.object_names)
    elif match := _NO_RELATION.search(message):
        bad = match.group(1)
        if match.group(2) == "FROM part":
            outer = _outer_object(schema, query)
            names = [c.name for c in schema.children(outer.name)] if outer else []
            suggestions = _close(bad, names)
        else:
            suggestions = _relationship_hint(schema, query, error, bad)
    if not suggestions:
        return None
    return "Did you mean " + " or ".join(suggestions) + "?"
