"""Field paths through lookups: what a list view may filter, show, sort and group by.

A CRM professional reaches a related record's field without a join: a Case list filtered by
the product of its order item, an Opportunity list showing its contract's signature date.
In SOQL these are parent paths (``OrderItemId__r.Product2Id``,
``ContractID__r.CompanySignedDate``, ``Account.ShippingState``); the engine joins them. This
module resolves such paths against the schema (so a typo is refused before a query runs)
and lists the paths a field chooser offers, own fields first, then each lookup's fields.
"""

from __future__ import annotations

from dataclasses import dataclass

from crmtui.data.schema import Field, Schema, SObject
from crmtui.errors import CrmtuiError

#: How many lookups deep the field chooser offers paths (SOQL allows five).
CHOOSER_DEPTH = 2
#: The deepest path a view accepts (Salesforce's limit for parent paths).
MAX_DEPTH = 5


class PathError(CrmtuiError):
    """A field path names a lookup or a field the schema does not have."""


@dataclass(frozen=True)
class FieldPath:
    """A resolved field path.

    Attributes:
        path: The path as SOQL spells it (``OrderItemId__r.Product2Id``), case as in the schema.
        field: The field at the end of the path.
        objects: The objects walked, the starting object first and the field's object last.
    """

    path: str
    field: Field
    objects: tuple[str, ...]

    @property
    def related(self) -> bool:
        """Whether the path goes through a lookup (a field of another record)."""
        return "." in self.path

    @property
    def label(self) -> str:
        """How a chooser lists it: ``OrderItemId__r.Product2Id  (OrderItem · reference)``."""
        where = self.objects[-1] if self.related else ""
        target = self.field.reference_to
        kind = self.field.type + (f" → {target}" if target else "")
        return f"{self.path}  ({where + ' · ' if where else ''}{kind})"


def _compound_name(obj: SObject) -> Field | None:
    # Salesforce's compound Name (FirstName + LastName) on User, Contact, Lead, Account.
    return Field("Name", "string") if obj.has_compound_name else None


def resolve(schema: Schema, object_name: str, path: str) -> FieldPath:
    """Resolve ``path`` from ``object_name``: ``Status``, ``Account.ShippingState``, ...

    Each part but the last is a relationship name (``Account``, ``OrderItemId__r``); the last
    is a field of the object reached. Case-insensitive, as SOQL is.

    Raises:
        PathError: For an unknown relationship or field, or a path deeper than
            :data:`MAX_DEPTH`.
    """
    obj = schema.require(object_name)
    parts = path.strip().split(".")
    if not path.strip() or any(not p for p in parts):
        raise PathError(f"not a field path: {path!r}")
    if len(parts) - 1 > MAX_DEPTH:
        raise PathError(f"{path!r} goes through more than {MAX_DEPTH} lookups")
    spelled: list[str] = []
    objects = [obj.name]
    current = obj
    for part in parts[:-1]:
        ref = current.relationship(part)
        if ref is None or not ref.reference_to or ref.reference_to not in schema:
            raise PathError(
                f"{current.name} has no lookup {part!r} (lookups: "
                + ", ".join(r.relationship_name or r.name for r in current.references)
                + ")"
            )
        spelled.append(ref.relationship_name or part)
        current = schema.require(ref.reference_to)
        objects.append(current.name)
    last = parts[-1]
    found = current.field(last) or (_compound_name(current) if last.lower() == "name" else None)
    if found is None:
        raise PathError(f"{current.name} has no field {last!r}")
    return FieldPath(".".join([*spelled, found.name]), found, tuple(objects))


def chooser_paths(schema: Schema, object_name: str, depth: int = CHOOSER_DEPTH) -> list[FieldPath]:
    """The paths a field chooser offers: own fields, then each lookup's fields, breadth first.

    A lookup back to an object already on the path is not followed again (Case -> Account ->
    Case's own fields would only repeat), and the lookup's own Id is not repeated as
    ``Account.Id`` (the lookup field holds it).
    """
    root = schema.require(object_name)
    out = [FieldPath(f.name, f, (root.name,)) for f in root.fields]
    if root.has_compound_name:
        out.insert(1, FieldPath("Name", Field("Name", "string"), (root.name,)))
    frontier: list[tuple[str, SObject, tuple[str, ...]]] = [("", root, (root.name,))]
    for _ in range(depth):
        following: list[tuple[str, SObject, tuple[str, ...]]] = []
        for prefix, obj, objects in frontier:
            for ref in obj.references:
                target_name = ref.reference_to
                if not target_name or target_name not in schema or target_name in objects:
                    continue
                target = schema.require(target_name)
                rel = f"{prefix}{ref.relationship_name}"
                walked = (*objects, target.name)
                fields = list(target.fields)
                compound = _compound_name(target)
                if compound is not None:
                    fields.insert(1, compound)
                out.extend(
                    FieldPath(f"{rel}.{f.name}", f, walked) for f in fields if f.name != "Id"
                )
                following.append((rel + ".", target, walked))
        frontier = following
    return out
