"""Searching the org's schema: objects and fields by name, type or description.

Used by the schema tree's filter and the command palette. A hit names an object, or an
object and one of its fields; hits are ranked name-first (exact, then prefix, then a part of
the name), then by a match in the description, the type or a reference target.
"""

from __future__ import annotations

from dataclasses import dataclass

from crmtui.data.schema import Field, Schema, SObject


@dataclass(frozen=True)
class SchemaHit:
    """One object, or one field of an object, that matches a search.

    Attributes:
        object: The object's name.
        field: The field's name, None for the object itself.
        rank: Lower is better (0 exact name, 1 name prefix, 2 in the name, 3 elsewhere).
    """

    object: str
    field: str | None
    rank: int

    @property
    def path(self) -> str:
        """``Case`` or ``Case.Subject``."""
        return self.object if self.field is None else f"{self.object}.{self.field}"


def _rank(needle: str, name: str, *others: str) -> int | None:
    lowered = name.lower()
    if lowered == needle:
        return 0
    if lowered.startswith(needle):
        return 1
    if needle in lowered:
        return 2
    if any(needle in other.lower() for other in others if other):
        return 3
    return None


def _field_rank(needle: str, obj: SObject, f: Field) -> int | None:
    if "." in needle:  # "case.subj": the object, then the field
        head, _, tail = needle.partition(".")
        if not obj.name.lower().startswith(head):
            return None
        return _rank(tail, f.name) if tail else 1
    return _rank(needle, f.name, f.description, f.type, f.reference_to or "")


def search_schema(schema: Schema, text: str, limit: int | None = None) -> list[SchemaHit]:
    """Objects and fields matching ``text`` (case-insensitive), best first.

    Empty text matches every object (not the fields). ``Object.field`` searches the fields
    of the objects whose name starts with ``Object``.
    """
    needle = text.strip().lower()
    hits: list[SchemaHit] = []
    for obj in schema:
        if not needle:
            hits.append(SchemaHit(obj.name, None, 0))
            continue
        if "." not in needle:
            rank = _rank(needle, obj.name, obj.description)
            if rank is not None:
                hits.append(SchemaHit(obj.name, None, rank))
        for f in obj.fields:
            rank = _field_rank(needle, obj, f)
            if rank is not None:
                hits.append(SchemaHit(obj.name, f.name, rank))
    order = {name: n for n, name in enumerate(schema.object_names)}
    hits.sort(key=lambda h: (h.rank, h.field is not None, order[h.object]))
    return hits if limit is None else hits[:limit]
