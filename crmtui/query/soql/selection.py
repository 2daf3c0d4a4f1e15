"""Select-list helpers: the FROM object lookup and ``FIELDS()`` expansion."""

from __future__ import annotations

from crmtui.data.schema import Schema, SObject
from crmtui.query.errors import CUSTOM_OBJECT_HINT, INVALID_TYPE, MALFORMED_QUERY, QueryError
from crmtui.query.soql import ast
from crmtui.query.soql.expressions import AGGREGATES

#: Salesforce requires ``LIMIT`` <= 200 with ``FIELDS(ALL)`` and ``FIELDS(CUSTOM)``.
FIELDS_LIMIT = 200


def lookup_object(schema: Schema, name: str, line: int, column: int) -> SObject:
    """The FROM object, or INVALID_TYPE as Salesforce reports an unknown sObject."""
    obj = schema.get(name)
    if obj is None:
        raise QueryError(
            INVALID_TYPE,
            f"sObject type '{name}' is not supported. " + CUSTOM_OBJECT_HINT,
            line=line,
            column=column,
        )
    return obj


def is_aggregate_call(item: ast.SelectItem) -> bool:
    """Whether a select item is an aggregate function call."""
    return isinstance(item, ast.SelectFunc) and item.call.upper in AGGREGATES


def expand_fields(query: ast.Query, obj: SObject) -> tuple[ast.SelectItem, ...]:
    """Replace ``FIELDS(ALL|STANDARD|CUSTOM)`` with the object's fields."""
    items: list[ast.SelectItem] = []
    for item in query.select:
        if not (isinstance(item, ast.SelectFunc) and item.call.upper == "FIELDS"):
            items.append(item)
            continue
        call = item.call
        which = call.arg.text.upper() if isinstance(call.arg, ast.FieldPath) else ""
        if which not in ("ALL", "STANDARD", "CUSTOM"):
            raise QueryError(
                MALFORMED_QUERY,
                "FIELDS() takes ALL, STANDARD or CUSTOM",
                line=call.line,
                column=call.column,
            )
        if which != "STANDARD" and (query.limit is None or query.limit > FIELDS_LIMIT):
            raise QueryError(
                MALFORMED_QUERY,
                f"The SOQL FIELDS function must have a LIMIT of at most {FIELDS_LIMIT}",
                line=call.line,
                column=call.column,
            )
        for f in obj.fields:
            custom = f.name.endswith("__c")
            if which == "ALL" or (which == "CUSTOM") == custom:
                items.append(ast.SelectField(ast.FieldPath((f.name,), call.line, call.column)))
    return tuple(items)
