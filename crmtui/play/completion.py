"""Completion for the console editor, from the org's schema.

:func:`complete` looks at the text before the cursor (and, to learn the ``FROM`` object of a
``SELECT`` typed first, the rest of the statement) and returns what fits at the cursor:

* object names after ``FROM`` (in a child subquery: the outer object's child relationships,
  ``Cases``), and after ``RETURNING`` or ``,`` in a SOSL ``RETURNING`` list;
* the ``FROM`` object's fields and parent relationships (``Account.``) in ``SELECT``,
  ``WHERE``, ``GROUP BY``, ``ORDER BY`` and ``HAVING``; after ``Account.`` the fields of the
  object the relationship points at (``Account.ShippingState``), any number of levels deep;
* inside a SOSL ``Obj(...)`` the fields of ``Obj``.

Nothing is offered inside a string literal or after ``LIMIT`` / ``OFFSET``. Names that start
with the typed word come first, then names that contain it, all case-insensitive.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from crmtui.data.schema import Schema, SObject

#: Most items offered at once.
MAX_ITEMS = 60

_CLAUSES = re.compile(
    r"\b(SELECT|FROM|WHERE|GROUP\s+BY|ORDER\s+BY|HAVING|LIMIT|OFFSET|RETURNING|FIND|WITH|USING)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-z_][\w.]*$|$")
_FIELD_CLAUSES = {"SELECT", "WHERE", "GROUP BY", "ORDER BY", "HAVING"}
#: SOQL/SOSL keywords: typing one whole opens no list (``DESC`` is not the start of
#: ``Description`` there); typing on (``Descr``) brings the list back. NULLS FIRST / LAST
#: are left out: they would hide FirstName and LastName.
KEYWORDS = frozenset(
    {
        "SELECT",
        "FROM",
        "WHERE",
        "GROUP",
        "ORDER",
        "BY",
        "HAVING",
        "LIMIT",
        "OFFSET",
        "ASC",
        "DESC",
        "NULLS",
        "AND",
        "OR",
        "NOT",
        "IN",
        "LIKE",
        "NULL",
        "TRUE",
        "FALSE",
        "INCLUDES",
        "EXCLUDES",
        "WITH",
        "USING",
        "FIND",
        "RETURNING",
        "TYPEOF",
    }
)


@dataclass(frozen=True)
class CompletionItem:
    """One thing that can be inserted.

    Attributes:
        text: The name to insert in place of the word being typed (``ShippingState``).
        kind: ``object``, ``field``, ``relationship`` (a parent: insert and type ``.``) or
            ``child`` (a child relationship, in a subquery's FROM).
        detail: The field's type or target, and description.
    """

    text: str
    kind: str
    detail: str = ""


@dataclass(frozen=True)
class Completion:
    """What fits at the cursor.

    Attributes:
        word: The part of the name already typed (the last segment of a dotted path), which
            an accepted item replaces.
        items: The candidates, best first.
    """

    word: str
    items: tuple[CompletionItem, ...]


def _mask_strings(text: str) -> tuple[str, bool]:
    """``text`` with string literals blanked out, and whether it ends inside one."""
    out = []
    inside = False
    escaped = False
    for char in text:
        if inside:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == "'":
                inside = False
            out.append(" ")
        else:
            if char == "'":
                inside = True
                out.append(" ")
            else:
                out.append(char)
    return "".join(out), inside


def _statement(masked: str, cursor: int) -> tuple[int, int]:
    """Bounds of the parenthesised level around ``cursor`` (the whole text at level 0)."""
    depth = 0
    start = 0
    for index in range(cursor - 1, -1, -1):
        char = masked[index]
        if char == ")":
            depth += 1
        elif char == "(":
            if depth == 0:
                start = index + 1
                break
            depth -= 1
    depth = 0
    end = len(masked)
    for index in range(cursor, len(masked)):
        char = masked[index]
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                end = index
                break
            depth -= 1
    return start, end


def _flat(masked: str, start: int, end: int) -> str:
    """The level's text with nested parentheses blanked (their keywords are not ours)."""
    out = []
    depth = 0
    for char in masked[start:end]:
        if char == "(":
            depth += 1
            out.append(" ")
        elif char == ")":
            depth = max(0, depth - 1)
            out.append(" ")
        else:
            out.append(" " if depth else char)
    return "".join(out)


def _clause(flat_before: str) -> tuple[str | None, int]:
    """The last clause keyword before the cursor and where its text starts."""
    last = None
    for match in _CLAUSES.finditer(flat_before):
        last = match
    if last is None:
        return None, 0
    return " ".join(last.group(1).upper().split()), last.end()


def _from_object(flat: str) -> str | None:
    match = re.search(r"\bFROM\s+([A-Za-z_]\w*)", flat, re.IGNORECASE)
    return match.group(1) if match else None


def _rank(items: list[CompletionItem], word: str) -> tuple[CompletionItem, ...]:
    lowered = word.lower()
    starts = [i for i in items if i.text.lower().startswith(lowered)]
    contains = [i for i in items if lowered and lowered in i.text.lower() and i not in starts]
    exact = [i for i in starts if i.text.lower() == lowered]
    if exact and len(starts) == 1 and not contains:
        return ()  # the word is already complete
    return tuple((starts + contains)[:MAX_ITEMS])


def _field_items(schema: Schema, obj: SObject) -> list[CompletionItem]:
    items = []
    for f in obj.fields:
        detail = f"→ {f.reference_to}" if f.reference_to else f.type
        if f.description:
            detail += f" · {f.description}"
        items.append(CompletionItem(f.name, "field", detail))
    if obj.has_compound_name:
        items.append(CompletionItem("Name", "field", "string · FirstName LastName"))
    for ref in obj.references:
        target = schema.get(ref.reference_to or "")
        if ref.relationship_name and target is not None:
            detail = f"relationship → {target.name} (type . for its fields)"
            items.append(CompletionItem(ref.relationship_name, "relationship", detail))
    return items


def _object_items(schema: Schema) -> list[CompletionItem]:
    return [
        CompletionItem(obj.name, "object", obj.description or f"{len(obj.fields)} fields")
        for obj in schema
    ]


def _walk(schema: Schema, obj: SObject, parts: list[str]) -> SObject | None:
    """The object a dotted relationship path leads to from ``obj`` (None if it breaks)."""
    for part in parts:
        ref = obj.relationship(part)
        target = schema.get(ref.reference_to or "") if ref is not None else None
        if target is None:
            return None
        obj = target
    return obj


def _closing(before: str, after: str) -> str:
    """The ``)`` the text after the cursor does not supply yet for parentheses open before
    it (``COUNT(Ow`` while typing): completing sees the statement as if they were closed."""
    masked_before = _mask_strings(before)[0]
    masked_after = _mask_strings(before + after)[0][len(before) :]
    open_before = masked_before.count("(") - masked_before.count(")")
    depth = closed = 0
    for char in masked_after:
        if char == "(":
            depth += 1
        elif char == ")":
            if depth:
                depth -= 1
            else:
                closed += 1
    return ")" * max(0, open_before - closed)


def _outer(masked: str, start: int) -> tuple[str | None, str]:
    """For a parenthesised level starting at ``start``: the enclosing level's clause at the
    parenthesis and the enclosing level's flat text."""
    bounds = _statement(masked, start - 1)
    flat = _flat(masked, *bounds)
    clause, _ = _clause(flat[: start - 1 - bounds[0]])
    return clause, flat


def complete(schema: Schema, before: str, after: str = "") -> Completion | None:
    """What can be inserted at the cursor, or None when nothing fits there.

    Args:
        schema: The org's schema.
        before: The editor's text before the cursor.
        after: The text after the cursor (only used to find a FROM typed later).
    """
    if _mask_strings(before)[1]:
        return None  # inside a string literal
    masked, _ = _mask_strings(before + _closing(before, after) + after)
    cursor = len(before)
    match = _WORD.search(masked[:cursor])
    path = match.group(0) if match else ""
    word_start = cursor - len(path)
    if word_start > 0 and (masked[word_start - 1].isalnum() or masked[word_start - 1] == "_"):
        return None  # in the middle of something that is not a name (a number, ...)
    start, end = _statement(masked, cursor)
    flat = _flat(masked, start, end)
    flat_before = flat[: word_start - start]
    clause, clause_end = _clause(flat_before)
    parts = path.split(".")
    word = parts[-1]
    if len(parts) == 1 and word.upper() in KEYWORDS:
        return None
    in_clause = flat_before[clause_end:]

    if clause == "FROM":
        if in_clause.strip() or len(parts) > 1:
            return None  # the object is already there
        if start > 0:
            outer_clause, outer_flat = _outer(masked, start)
            outer = schema.get(_from_object(outer_flat) or "")
            if outer_clause == "SELECT" and outer is not None:
                # A child subquery: the outer object's child relationships.
                items = [
                    CompletionItem(c.name, "child", f"{c.child} records by {c.field}")
                    for c in schema.children(outer.name)
                ]
                return Completion(word, _rank(items, word))
        return Completion(word, _rank(_object_items(schema), word))

    if clause == "RETURNING":
        if len(parts) > 1 or (in_clause.strip() and not in_clause.rstrip().endswith(",")):
            return None
        return Completion(word, _rank(_object_items(schema), word))

    obj = _context_object(schema, masked, start, flat, clause)
    if obj is None:
        return None
    if len(parts) > 1 and parts[0].lower() == obj.name.lower():
        parts = parts[1:]  # Case.Account.Name: an object-prefixed path
    target = _walk(schema, obj, parts[:-1])
    if target is None:
        return None
    return Completion(word, _rank(_field_items(schema, target), word))


def _context_object(
    schema: Schema, masked: str, start: int, flat: str, clause: str | None
) -> SObject | None:
    """The object whose fields fit here, or None when fields do not fit."""
    if clause in _FIELD_CLAUSES:
        name = _from_object(flat) or ""
        found = schema.get(name)
        if found is None and name and start > 0:
            # A child subquery's FROM names a child relationship (Cases): its object.
            outer_clause, outer_flat = _outer(masked, start)
            outer = _context_object(
                schema, masked, _statement(masked, start - 1)[0], outer_flat, outer_clause
            )
            rel = schema.child_relationship(outer.name, name) if outer is not None else None
            found = schema.get(rel.child) if rel is not None else None
        if found is not None:
            return found
    elif clause is not None:
        return None  # LIMIT, OFFSET, FIND, WITH, USING
    if start == 0:
        return None
    outer_clause, outer_flat = _outer(masked, start)
    head = re.search(r"([A-Za-z_]\w*)\s*$", masked[: start - 1])
    if outer_clause == "RETURNING" and head is not None:
        return schema.get(head.group(1))  # SOSL: RETURNING Obj(Field, ...
    if outer_clause in _FIELD_CLAUSES:
        # Inside a function's parentheses (COUNT(, CALENDAR_MONTH() or a grouping: the
        # enclosing statement's object.
        return _context_object(
            schema, masked, _statement(masked, start - 1)[0], outer_flat, outer_clause
        )
    return None
