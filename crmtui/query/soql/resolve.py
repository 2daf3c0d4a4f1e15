"""Field-path resolution against the schema, and the LEFT JOINs parent paths need.

Identifiers that reach SQL come only from the schema (canonical names), always quoted.
"""

from __future__ import annotations

import itertools

from crmtui.data.schema import Field, Schema, SObject
from crmtui.query.errors import (
    CUSTOM_FIELD_HINT,
    CUSTOM_RELATIONSHIP_HINT,
    INVALID_FIELD,
    MALFORMED_QUERY,
    QueryError,
)
from crmtui.query.soql import ast
from crmtui.value_class import FrozenValue

#: Salesforce allows at most five levels of parent relationships in a path.
MAX_PARENT_LEVELS = 5


def quote(identifier: str) -> str:
    """Quote an SQL identifier (names come from the schema; quotes are doubled anyway)."""
    return '"' + identifier.replace('"', '""') + '"'


class Resolved(FrozenValue):
    """A resolved field reference.

    Attributes:
        sql: Raw SQL expression for the stored value (text).
        field: The schema field (a synthesised ``Name`` for compound names).
        rel_names: Canonical relationship names walked (``("Account",)``).
        rel_types: Object names of each parent in the walk.
        rel_id_sql: SQL of each parent's ``Id`` column (NULL when the parent is absent).
    """

    FIELDS = ("sql", "field", "rel_names", "rel_types", "rel_id_sql")

    sql: str
    field: Field
    rel_names: tuple[str, ...]
    rel_types: tuple[str, ...]
    rel_id_sql: tuple[str, ...]

    def __init__(
        self,
        sql: str,
        field: Field,
        rel_names: tuple[str, ...],
        rel_types: tuple[str, ...],
        rel_id_sql: tuple[str, ...],
    ) -> None:
        self._set(
            sql=sql, field=field, rel_names=rel_names, rel_types=rel_types, rel_id_sql=rel_id_sql
        )

    @property
    def kind(self) -> str:
        """The field type."""
        return self.field.type

    @property
    def dotted(self) -> str:
        """Canonical dotted name, e.g. ``Account.Name``."""
        return ".".join((*self.rel_names, self.field.name))


class Scope:
    """Resolves paths for one FROM object and collects the joins they need."""

    def __init__(
        self,
        schema: Schema,
        obj: SObject,
        counter: itertools.count[int],
        alias: str | None = None,
    ) -> None:
        self.schema = schema
        self.obj = obj
        self.counter = counter
        self.alias = alias
        #: The root table's SQL alias (``t0``, ``t1``... in compile order).
        self.root = f"t{next(counter)}"
        self.joins: dict[tuple[str, ...], tuple[str, str]] = {}
        #: Parent paths every result row has (set by the compiler): INNER instead of LEFT JOIN.
        self.inner: set[tuple[str, ...]] = set()

    def from_sql(self) -> str:
        """``"Obj" AS t0 LEFT JOIN ...`` for the root and every parent joined so far."""
        parts = [f"{quote(self.obj.name)} AS {self.root}"]
        for key, (_, join_sql) in self.joins.items():
            parts.append(join_sql[len("LEFT ") :] if key in self.inner else join_sql)
        return " ".join(parts)

    def column(self, name: str) -> str:
        """SQL of a root column by canonical name."""
        return f"{self.root}.{quote(name)}"

    def _strip_prefix(self, parts: tuple[str, ...]) -> tuple[str, ...]:
        if len(parts) < 2:
            return parts
        head = parts[0].lower()
        if self.alias and head == self.alias.lower():
            return parts[1:]
        # "OrderItem.Order.AccountId" on FROM OrderItem: the object's own name as a prefix,
        # unless it is also one of its relationship or field names.
        if (
            head == self.obj.name.lower()
            and self.obj.relationship(parts[0]) is None
            and self.obj.field(parts[0]) is None
        ):
            return parts[1:]
        return parts

    def resolve(self, path: ast.FieldPath) -> Resolved:
        """Resolve a (possibly dotted) path, adding LEFT JOINs for parent relationships.

        Raises:
            QueryError: INVALID_FIELD for unknown fields or relationships.
        """
        parts = self._strip_prefix(path.parts)
        if len(parts) - 1 > MAX_PARENT_LEVELS:
            raise QueryError(
                MALFORMED_QUERY,
                f"SOQL statements cannot query more than {MAX_PARENT_LEVELS} levels of "
                f"parent relationships: '{path.text}'",
                line=path.line,
                column=path.column,
            )
        obj, table = self.obj, self.root
        rel_names: list[str] = []
        rel_types: list[str] = []
        rel_ids: list[str] = []
        for part in parts[:-1]:
            ref = obj.relationship(part)
            target = self.schema.get(ref.reference_to or "") if ref is not None else None
            if ref is None or target is None or ref.relationship_name is None:
                raise QueryError(
                    INVALID_FIELD,
                    f"Didn't understand relationship '{part}' in field path. "
                    + CUSTOM_RELATIONSHIP_HINT,
                    line=path.line,
                    column=path.column,
                )
            rel_names.append(ref.relationship_name)
            key = tuple(rel_names)
            if key not in self.joins:
                alias = f"t{next(self.counter)}"
                join_sql = (
                    f"LEFT JOIN {quote(target.name)} AS {alias} "
                    f"ON {alias}.{quote('Id')} = {table}.{quote(ref.name)}"
                )
                self.joins[key] = (alias, join_sql)
            table = self.joins[key][0]
            obj = target
            rel_types.append(target.name)
            rel_ids.append(f"{table}.{quote('Id')}")
        last = parts[-1]
        found = obj.field(last)
        if found is not None and found.constant is not None:
            # Absent from the org's table, one value in Salesforce (schema.IMPLIED_FIELDS).
            value = "'" + found.constant.replace("'", "''") + "'"
            sql = f"CASE WHEN {table}.{quote('Id')} IS NOT NULL THEN {value} END"
        elif found is not None:
            sql = f"{table}.{quote(found.name)}"
        elif last.lower() == "name" and obj.has_compound_name:
            found = Field("Name", "string", "Full name")
            first, last_name = obj.require_field("FirstName"), obj.require_field("LastName")
            sql = (
                f"NULLIF(TRIM(COALESCE({table}.{quote(first.name)}, '') || ' ' || "
                f"COALESCE({table}.{quote(last_name.name)}, '')), '')"
            )
        else:
            raise QueryError(
                INVALID_FIELD,
                f"No such column '{last}' on entity '{obj.name}'. " + CUSTOM_FIELD_HINT,
                line=path.line,
                column=path.column,
            )
        return Resolved(sql, found, tuple(rel_names), tuple(rel_types), tuple(rel_ids))
