"""The org schema: objects, fields, types, descriptions and relationships.

:class:`Field`, :class:`ChildRelationship` and :class:`SObject` are frozen value classes
(:mod:`crmtui.value_class`), not dataclasses: a new ``crmtui query`` builds the org's
schema, and ``dataclasses`` costs more to import than the query takes to compile.

Two file formats are read:

* upstream's CRMArena format, a list of ``{"object": name, "fields": {name: description}}``
  (the HF ``schema`` config, ``crmarena_schema.json``). It carries no types, so types and
  reference targets are inferred from field names and descriptions;
* crmtui's own format (``builtin_schema.json`` and the copy stored inside every org), a dict
  ``{"objects": [{"name", "key_prefix", "fields": [{"name", "type", "description",
  "reference_to", "listed"}]}]}``.

``render_prompt_text`` produces the agent-facing schema text the way upstream's prompts
present it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any, Literal

from crmtui.errors import SchemaError
from crmtui.value_class import FrozenValue

FieldType = Literal[
    "id",
    "string",
    "textarea",
    "email",
    "phone",
    "picklist",
    "reference",
    "boolean",
    "int",
    "double",
    "currency",
    "date",
    "datetime",
]

FIELD_TYPES: frozenset[str] = frozenset(FieldType.__args__)  # type: ignore[attr-defined]
NUMERIC_TYPES: frozenset[str] = frozenset({"int", "double", "currency"})
TEXT_TYPES: frozenset[str] = frozenset(
    {"id", "string", "textarea", "email", "phone", "picklist", "reference"}
)

# Objects on which Salesforce exposes a compound ``Name`` built from FirstName + LastName,
# although upstream's schema lists only the parts.
COMPOUND_NAME_OBJECTS: frozenset[str] = frozenset({"User", "Contact", "Account", "Lead"})


class Field(FrozenValue):
    """One field of an sObject.

    Attributes:
        name: API name, e.g. ``AccountId``.
        type: Salesforce-like field type (see :data:`FieldType`).
        description: Human description, shown in the prompt's schema text.
        reference_to: Target object name for ``reference`` fields.
        listed: Whether upstream's schema text lists the field (``Id`` and a few fields that
            upstream code uses but never shows, such as ``Knowledge__kav.PublishStatus``,
            are not).
        constant: For a field the org's table lacks but Salesforce always has, the one value
            every record holds (see :data:`IMPLIED_FIELDS`); queries read it instead of a
            column. None for ordinary fields.
    """

    FIELDS = ("name", "type", "description", "reference_to", "listed", "constant")

    name: str
    type: FieldType
    description: str
    reference_to: str | None
    listed: bool
    constant: str | None

    def __init__(
        self,
        name: str,
        type: FieldType = "string",  # noqa: A002 - Salesforce's own word
        description: str = "",
        reference_to: str | None = None,
        listed: bool = True,
        constant: str | None = None,
    ) -> None:
        self._set(
            name=name,
            type=type,
            description=description,
            reference_to=reference_to,
            listed=listed,
            constant=constant,
        )

    @property
    def relationship_name(self) -> str | None:
        """Parent relationship name: ``AccountId`` -> ``Account``, ``Xxx__c`` -> ``Xxx__r``."""
        if self.type != "reference":
            return None
        return relationship_name_for(self.name)

    def to_json(self) -> dict[str, Any]:
        """Serialise in crmtui's schema format."""
        data: dict[str, Any] = {"name": self.name, "type": self.type}
        if self.description:
            data["description"] = self.description
        if self.reference_to:
            data["reference_to"] = self.reference_to
        if not self.listed:
            data["listed"] = False
        return data


#: Fields Salesforce always has but upstream's raw org files leave out, with the only value
#: they can hold there: upstream's knowledge articles are all published, English articles,
#: and upstream's own knowledge-search query filters on both fields.
IMPLIED_FIELDS: dict[tuple[str, str], str] = {
    ("knowledge__kav", "publishstatus"): "Online",
    ("knowledge__kav", "language"): "en_US",
}


def implied_value(object_name: str, field_name: str) -> str | None:
    """The value of an :data:`IMPLIED_FIELDS` field (None for any other field)."""
    return IMPLIED_FIELDS.get((object_name.lower(), field_name.lower()))


def relationship_name_for(field_name: str) -> str:
    """Derive the parent relationship name Salesforce uses for a lookup field."""
    if field_name.endswith("__c"):
        return field_name[: -len("__c")] + "__r"
    if field_name.endswith("Id") and len(field_name) > 2:
        return field_name[:-2]
    return field_name


def plural(name: str) -> str:
    """English plural of an object name, the way Salesforce names child relationships."""
    base = name[: -len("__c")] if name.endswith("__c") else name
    if base.endswith("y") and not base.endswith(("ay", "ey", "oy", "uy")):
        base = base[:-1] + "ies"
    elif base.endswith(("s", "x", "ch", "sh")):
        base += "es"
    else:
        base += "s"
    return base + "__r" if name.endswith("__c") else base


class ChildRelationship(FrozenValue):
    """A child relationship as seen from the parent, e.g. ``Account.Cases``.

    Attributes:
        name: Relationship name used in subqueries (``Cases``, ``CaseHistories__r``).
        child: Child object name (``Case``).
        field: Lookup field on the child pointing at the parent (``AccountId``).
    """

    FIELDS = ("name", "child", "field")

    name: str
    child: str
    field: str

    def __init__(self, name: str, child: str, field: str) -> None:
        self._set(name=name, child=child, field=field)


class SObject(FrozenValue):
    """One object (table) of the org."""

    FIELDS = ("name", "fields", "key_prefix", "description", "_by_lower")
    UNCOMPARED = ("_by_lower",)

    name: str
    fields: tuple[Field, ...]
    key_prefix: str | None
    description: str
    _by_lower: Mapping[str, Field]

    def __init__(
        self,
        name: str,
        fields: tuple[Field, ...],
        key_prefix: str | None = None,
        description: str = "",
    ) -> None:
        by_lower = {f.name.lower(): f for f in fields}
        self._set(
            name=name,
            fields=fields,
            key_prefix=key_prefix,
            description=description,
            _by_lower=by_lower,
        )

    def replaced(self, **changes: Any) -> SObject:
        """A copy with ``changes`` (its field index made anew)."""
        changes.pop("_by_lower", None)
        values = {n: getattr(self, n) for n in self.FIELDS if n not in self.UNCOMPARED}
        unknown = changes.keys() - values.keys()
        if unknown:
            raise TypeError(f"SObject has no field {sorted(unknown)[0]!r}")
        return SObject(**{**values, **changes})

    def field(self, name: str) -> Field | None:
        """Look a field up case-insensitively (SOQL is case-insensitive)."""
        return self._by_lower.get(name.lower())

    def require_field(self, name: str) -> Field:
        """Like :meth:`field` but raise :class:`SchemaError` when absent."""
        found = self.field(name)
        if found is None:
            raise SchemaError(f"No such column '{name}' on entity '{self.name}'")
        return found

    @property
    def field_names(self) -> list[str]:
        """API names of all fields, ``Id`` first."""
        return [f.name for f in self.fields]

    @property
    def listed_fields(self) -> list[Field]:
        """Fields upstream's schema text shows, in alphabetical order."""
        return sorted((f for f in self.fields if f.listed), key=lambda f: f.name)

    @property
    def references(self) -> list[Field]:
        """Reference (lookup) fields."""
        return [f for f in self.fields if f.type == "reference"]

    @property
    def has_compound_name(self) -> bool:
        """Whether ``Name`` is Salesforce's compound FirstName + LastName on this object."""
        return (
            self.name in COMPOUND_NAME_OBJECTS
            and self.field("Name") is None
            and self.field("FirstName") is not None
            and self.field("LastName") is not None
        )

    def relationship(self, rel_name: str) -> Field | None:
        """The reference field whose relationship name is ``rel_name`` (case-insensitive)."""
        lowered = rel_name.lower()
        for ref in self.references:
            if ref.relationship_name and ref.relationship_name.lower() == lowered:
                return ref
        return None

    def to_json(self) -> dict[str, Any]:
        """Serialise in crmtui's schema format."""
        data: dict[str, Any] = {"name": self.name}
        if self.key_prefix:
            data["key_prefix"] = self.key_prefix
        if self.description:
            data["description"] = self.description
        data["fields"] = [f.to_json() for f in self.fields]
        return data


class Schema:
    """An ordered collection of :class:`SObject` with relationship lookups."""

    def __init__(self, objects: Iterable[SObject]) -> None:
        self._objects: dict[str, SObject] = {}
        for obj in objects:
            if obj.name.lower() in {k.lower() for k in self._objects}:
                raise SchemaError(f"object {obj.name!r} is defined twice")
            self._objects[obj.name] = obj
        self._by_lower = {name.lower(): obj for name, obj in self._objects.items()}
        self._children: dict[str, list[ChildRelationship]] = {name: [] for name in self._objects}
        for obj in self._objects.values():
            for ref in obj.references:
                target = self._by_lower.get((ref.reference_to or "").lower())
                if target is None:
                    continue
                self._children[target.name].append(
                    ChildRelationship(name=plural(obj.name), child=obj.name, field=ref.name)
                )
        # Two lookups from one child to one parent would share a plural name: qualify them.
        for rels in self._children.values():
            names = [r.name for r in rels]
            for i, rel in enumerate(rels):
                if names.count(rel.name) > 1:
                    rels[i] = ChildRelationship(
                        name=f"{rel.name}{relationship_name_for(rel.field)}",
                        child=rel.child,
                        field=rel.field,
                    )

    # -- access ---------------------------------------------------------------------------

    def __iter__(self) -> Iterator[SObject]:
        return iter(self._objects.values())

    def __len__(self) -> int:
        return len(self._objects)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._by_lower

    @property
    def object_names(self) -> list[str]:
        """Object API names in schema order."""
        return list(self._objects)

    def get(self, name: str) -> SObject | None:
        """Look an object up case-insensitively."""
        return self._by_lower.get(name.lower())

    def require(self, name: str) -> SObject:
        """Like :meth:`get` but raise :class:`SchemaError` naming the object."""
        obj = self.get(name)
        if obj is None:
            raise SchemaError(f"sObject type '{name}' is not supported")
        return obj

    def children(self, parent: str) -> list[ChildRelationship]:
        """Child relationships of ``parent`` (e.g. Account -> Contacts, Cases, Orders)."""
        obj = self.require(parent)
        return list(self._children[obj.name])

    def child_relationship(self, parent: str, rel_name: str) -> ChildRelationship | None:
        """Find a child relationship of ``parent`` by name, case-insensitively."""
        lowered = rel_name.lower()
        for rel in self.children(parent):
            if rel.name.lower() == lowered:
                return rel
        return None

    def object_for_id(self, record_id: str) -> SObject | None:
        """Guess the object of a record Id from its 3-character key prefix."""
        prefix = record_id[:3]
        for obj in self._objects.values():
            if obj.key_prefix and obj.key_prefix == prefix:
                return obj
        return None

    # -- rendering -------------------------------------------------------------------------

    def render_prompt_text(self) -> str:
        """The agent-facing schema text, laid out the way upstream's prompts present it.

        A line naming the available objects, a blank line, a heading, then for each object
        its name followed by ``  - Field: description`` lines (fields alphabetical, ``Id`` and
        unlisted fields omitted, as upstream shows them).
        """
        lines = [
            "The objects available in the Salesforce instance are: " + ", ".join(self._objects),
            "",
            "## The fields available for the objects along with their descriptions and "
            "dependencies are:",
        ]
        for obj in self._objects.values():
            lines.append(obj.name)
            for f in obj.listed_fields:
                lines.append(f"  - {f.name}: {f.description}")
        return "\n".join(lines)

    # -- serialisation ---------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """Serialise in crmtui's schema format."""
        return {"objects": [obj.to_json() for obj in self._objects.values()]}

    def dumps(self) -> str:
        """Canonical JSON text of :meth:`to_json` (stable for digests)."""
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, data: Any) -> Schema:
        """Load either crmtui's format or upstream's CRMArena list format."""
        if isinstance(data, list):
            return cls.from_crmarena(data)
        if not isinstance(data, dict) or not isinstance(data.get("objects"), list):
            raise SchemaError("schema must be a list of {object, fields} or {objects: [...]}")
        objects = []
        for i, raw in enumerate(data["objects"]):
            if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
                raise SchemaError(f"schema object #{i} has no name")
            fields = []
            for raw_field in raw.get("fields", []):
                ftype = raw_field.get("type", "string")
                if ftype not in FIELD_TYPES:
                    raise SchemaError(
                        f"field {raw['name']}.{raw_field.get('name')} has unknown type {ftype!r}"
                    )
                fields.append(
                    Field(
                        name=raw_field["name"],
                        type=ftype,
                        description=raw_field.get("description", ""),
                        reference_to=raw_field.get("reference_to"),
                        listed=raw_field.get("listed", True),
                    )
                )
            objects.append(_with_id(raw["name"], fields, raw.get("key_prefix"), raw))
        return cls(objects)

    @classmethod
    def from_crmarena(cls, rows: list[Any]) -> Schema:
        """Load upstream's format (``[{"object": ..., "fields": {name: description}}]``).

        Types and reference targets are inferred; known objects take their key prefixes and
        types from the builtin schema where the field exists there.
        """
        builtin = builtin_schema()
        object_names = {row.get("object") for row in rows if isinstance(row, dict)}
        objects = []
        for i, row in enumerate(rows):
            if not isinstance(row, dict) or not isinstance(row.get("object"), str):
                raise SchemaError(f"schema entry #{i} has no 'object' name")
            if not isinstance(row.get("fields"), dict):
                raise SchemaError(f"schema entry {row['object']!r} has no 'fields' mapping")
            known = builtin.get(row["object"])
            fields = []
            for fname, desc in row["fields"].items():
                desc = desc if isinstance(desc, str) else str(desc)
                known_field = known.field(fname) if known else None
                if known_field is not None:
                    fields.append(
                        Field(fname, known_field.type, desc, known_field.reference_to, True)
                    )
                else:
                    ftype, target = infer_field_type(fname, desc, object_names)
                    fields.append(Field(fname, ftype, desc, target, True))
            prefix = known.key_prefix if known else None
            objects.append(_with_id(row["object"], fields, prefix, {}))
        return cls(objects)

    @classmethod
    def load(cls, path: str | Path) -> Schema:
        """Load a schema file in either format."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise SchemaError(f"schema file not found: {path}") from exc
        except json.JSONDecodeError as exc:
            raise SchemaError(f"schema file {path} is not JSON: {exc}") from exc
        return cls.from_json(data)


def _with_id(
    name: str, fields: list[Field], key_prefix: str | None, raw: Mapping[str, Any]
) -> SObject:
    if not any(f.name.lower() == "id" for f in fields):
        fields = [Field("Id", "id", "Record Id", None, False), *fields]
    return SObject(
        name=name,
        fields=tuple(fields),
        key_prefix=key_prefix,
        description=raw.get("description", "") if raw else "",
    )


_REFERENCES = re.compile(r"References (\w+) object", re.IGNORECASE)


def infer_field_type(
    name: str, description: str, object_names: Iterable[str | None] = ()
) -> tuple[FieldType, str | None]:
    """Infer a field's type (and reference target) from its name and description."""
    match = _REFERENCES.search(description)
    # "NewValue__c ... References User object if ..." is a conditional value, not a lookup.
    if match and " if " not in description[match.end() :]:
        return "reference", match.group(1)
    lowered = name.lower()
    desc = description.lower()
    if lowered == "id":
        return "id", None
    if (
        "yyyy-mm-ddthh" in desc
        or lowered.endswith(("datetime", "time"))
        or lowered
        in {
            "createddate",
            "closeddate",
            "lastmodifieddate",
            "messagedate",
            "validfrom",
            "validto",
        }
    ):
        return "datetime", None
    if "yyyy-mm-dd" in desc or lowered.endswith("date"):
        return "date", None
    if lowered.startswith(("is", "has")) and "boolean" in desc:
        return "boolean", None
    if lowered.startswith("is") and name[2:3].isupper():
        return "boolean", None
    if lowered in {"quantity"} or "number of" in desc:
        return "double", None
    if "price" in lowered or "amount" in lowered:
        return "currency", None
    if "email" in lowered:
        return "email", None
    if "phone" in lowered:
        return "phone", None
    if lowered in {"description", "body", "textbody", "faq_answer__c", "summary"}:
        return "textarea", None
    if name.endswith("Id") and len(name) > 2:
        # A lookup whose target is named like the field (``Product2Id`` -> ``Product2``).
        target = name[:-2]
        for candidate in object_names:
            if candidate and candidate.lower() == target.lower():
                return "reference", candidate
    return "string", None


@cache
def builtin_schema() -> Schema:
    """crmtui's own 16-object CRMArena schema (types, key prefixes, our descriptions)."""
    from importlib import resources  # here: opening a stored schema does without it

    text = resources.files("crmtui.data").joinpath("builtin_schema.json").read_text("utf-8")
    return Schema.from_json(json.loads(text))
