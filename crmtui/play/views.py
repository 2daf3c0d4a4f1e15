"""What the record browser shows, as immutable values, and the SOQL each view is equal to.

Every browse action a person takes is one of these views; its :func:`equivalent_query` is
recorded beside the action so a human's trajectory can be laid beside an agent's and re-run
through the query engine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date, timedelta

from crmtui.data.schema import NUMERIC_TYPES, Field, Schema, SObject
from crmtui.errors import CrmtuiError
from crmtui.play.paths import PathError, resolve
from crmtui.record.equivalent import like_pattern, soql_string

OPERATORS = ("=", "!=", "<", "<=", ">", ">=", "contains", "starts with", "LIKE")


class FilterError(CrmtuiError):
    """A browse filter names an unknown field, operator or an ill-typed value."""


@dataclass(frozen=True)
class Condition:
    """One field condition of a table filter, as a person typed it.

    Attributes:
        field: Field API name, or a path through lookups (``OrderItemId__r.Product2Id``).
        op: One of :data:`OPERATORS`.
        value: The value as typed (``null`` for NULL).
    """

    field: str
    op: str
    value: str


@dataclass(frozen=True)
class TableView:
    """A list view: records of one object with filters, columns, sort, search and scroll.

    Filters, columns and the sort may name the object's own fields or paths through its
    lookups (``Account.ShippingState``), as a Salesforce list view or report does; ``columns``
    empty means the object's own fields (:func:`table_columns`).
    """

    object: str
    conditions: tuple[Condition, ...] = ()
    sort_field: str | None = None
    sort_desc: bool = False
    search: str | None = None
    cursor_row: int = 0
    columns: tuple[str, ...] = ()
    kind: str = field(default="table", init=False)

    def with_cursor(self, row: int) -> TableView:
        """The same view scrolled to ``row``."""
        return replace(self, cursor_row=max(0, row))


@dataclass(frozen=True)
class RecordView:
    """One record with all its fields and related lists, and the row its cursor was on.

    The cursor is not part of the view's identity (two visits of one record are the same
    view): it is where Back returns to, so the next Enter follows the link it left by.
    """

    object: str
    record_id: str
    cursor_row: int = field(default=0, compare=False)
    kind: str = field(default="record", init=False)

    def with_cursor(self, row: int) -> RecordView:
        """The same record with its cursor on ``row``."""
        return replace(self, cursor_row=max(0, row))


View = TableView | RecordView


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$")


def _literal(f: Field, raw: str) -> str:
    value = raw.strip()
    if value.lower() == "null":
        return "null"
    if f.type in NUMERIC_TYPES:
        try:
            float(value)
        except ValueError as exc:
            raise FilterError(f"{f.name} is a number field: {raw!r} is not a number") from exc
        return value
    if f.type == "boolean":
        lowered = value.lower()
        if lowered in {"true", "1", "yes"}:
            return "TRUE"
        if lowered in {"false", "0", "no"}:
            return "FALSE"
        raise FilterError(f"{f.name} is a checkbox: use true or false, not {raw!r}")
    if f.type == "date":
        if not _DATE.match(value):
            raise FilterError(f"{f.name} is a date: write YYYY-MM-DD, not {raw!r}")
        return value
    if f.type == "datetime":
        if _DATE.match(value):
            return value  # widened to a day range by _datetime_condition
        if not _DATETIME.match(value):
            raise FilterError(
                f"{f.name} is a date/time: write YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ, not {raw!r}"
            )
        if len(value) == 16:
            value += ":00"
        return (
            value if value.endswith("Z") or "+" in value[10:] or "-" in value[10:] else value + "Z"
        )
    return soql_string(value)


def _day_bounds(day: str) -> tuple[str, str]:
    start = date.fromisoformat(day)
    end = start + timedelta(days=1)
    return f"{start.isoformat()}T00:00:00Z", f"{end.isoformat()}T00:00:00Z"


def field_at(schema: Schema | None, obj: SObject, path: str) -> tuple[str, Field]:
    """The SOQL spelling and the field of ``path`` on ``obj`` (raises :class:`FilterError`).

    Without a schema only the object's own fields resolve.
    """
    if "." not in path or schema is None:
        f = obj.field(path)
        if f is None:
            raise FilterError(f"{obj.name} has no field {path!r}")
        return f.name, f
    try:
        found = resolve(schema, obj.name, path)
    except PathError as exc:
        raise FilterError(str(exc)) from None
    return found.path, found.field


def condition_soql(obj: SObject, cond: Condition, schema: Schema | None = None) -> str:
    """The SOQL boolean expression for one condition (raises :class:`FilterError`).

    With ``schema``, the condition's field may be a path through lookups.
    """
    name, f = field_at(schema, obj, cond.field)
    op = cond.op
    if op not in OPERATORS:
        raise FilterError(f"unknown operator {op!r}; use one of {', '.join(OPERATORS)}")
    if op in {"contains", "starts with", "LIKE"}:
        if f.type not in {"string", "textarea", "email", "phone", "picklist", "id", "reference"}:
            raise FilterError(f"{op!r} works on text fields; {name} is a {f.type} field")
        if op == "LIKE":
            return f"{name} LIKE {soql_string(cond.value)}"
        prefix = "%" if op == "contains" else ""
        return f"{name} LIKE {like_pattern(cond.value, prefix=prefix)}"
    several = value_list(cond.value) if op in {"=", "!="} else None
    if several is not None:
        return _list_soql(name, f, op, several)
    literal = _literal(f, _unquoted(cond.value))
    if literal == "null" and op not in {"=", "!="}:
        raise FilterError(f"null can only be compared with = or !=, not {op!r}")
    return condition_soql_literal(name, f, op, literal)


def value_list(raw: str) -> list[str] | None:
    """The values of ``raw`` when it names several (``a, b, c``), else None.

    As in a Salesforce list view, "equals" or "not equal to" a comma-separated list means
    any (none) of its values. A value holding a comma itself is written in double quotes
    (``"Hi, there"``), which also keeps a single quoted value whole.
    """
    text = raw.strip()
    if _unquoted(text) != text or "," not in text:
        return None
    values = [part.strip() for part in text.split(",")]
    if any(not v for v in values):
        raise FilterError(f"an empty value in the list {raw!r}: separate values by one comma")
    return values


def _unquoted(raw: str) -> str:
    text = raw.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"' and '"' not in text[1:-1]:
        return text[1:-1]
    return raw


def _list_soql(name: str, f: Field, op: str, values: list[str]) -> str:
    literals = [_literal(f, v) for v in values]
    if "null" in literals:
        raise FilterError("null cannot be one of several values: filter it on its own")
    if f.type == "datetime" and any(_DATE.match(v) for v in literals):
        # A day is a range on a date/time field: any (none) of the days.
        parts = [condition_soql_literal(name, f, op, v) for v in literals]
        return "(" + (" OR " if op == "=" else " AND ").join(parts) + ")"
    joined = ", ".join(literals)
    return f"{name} {'IN' if op == '=' else 'NOT IN'} ({joined})"


def condition_soql_literal(name: str, f: Field, op: str, literal: str) -> str:
    """``name op literal`` for one typed literal (a day on a date/time field is its range)."""
    if f.type == "datetime" and _DATE.match(literal):
        lo, hi = _day_bounds(literal)
        return {
            "=": f"({name} >= {lo} AND {name} < {hi})",
            "!=": f"({name} < {lo} OR {name} >= {hi})",
            "<": f"{name} < {lo}",
            "<=": f"{name} < {hi}",
            ">": f"{name} >= {hi}",
            ">=": f"{name} >= {lo}",
        }[op]
    return f"{name} {op} {literal}"


def table_columns(obj: SObject, limit: int | None = None) -> list[str]:
    """Columns a table of ``obj`` shows: Id then the schema's fields in schema order."""
    names = ["Id"] + [f.name for f in obj.fields if f.name != "Id"]
    return names[:limit] if limit else names


def view_columns(schema: Schema, view: TableView) -> list[str]:
    """The columns a table view shows: Id, then the chosen ones (or every own field).

    Chosen columns are spelled as SOQL spells them (``Account.ShippingState``).

    Raises:
        FilterError: For a column that does not resolve.
    """
    obj = schema.require(view.object)
    if not view.columns:
        return table_columns(obj)
    spelled = [field_at(schema, obj, c)[0] for c in view.columns]
    return list(dict.fromkeys(["Id", *spelled]))


def sort_soql(schema: Schema, view: TableView) -> str | None:
    """The view's sort field or path as SOQL spells it (None when unsorted)."""
    if not view.sort_field:
        return None
    return field_at(schema, schema.require(view.object), view.sort_field)[0]


def table_soql(
    schema: Schema,
    view: TableView,
    columns: list[str] | None = None,
    *,
    extra_condition: str | None = None,
    count: bool = False,
) -> str:
    """The SOQL query a table view is equivalent to (without paging).

    ``extra_condition`` (the browser's keyset condition for the next page) is ANDed in;
    ``count`` gives ``SELECT COUNT()`` over the same filter, without ORDER BY.
    """
    obj = schema.require(view.object)
    cols = ["COUNT()"] if count else (columns or view_columns(schema, view))
    parts = [f"SELECT {', '.join(cols)} FROM {obj.name}"]
    conditions = [condition_soql(obj, c, schema) for c in view.conditions]
    if extra_condition:
        conditions.insert(0, extra_condition)
    if conditions:
        parts.append("WHERE " + " AND ".join(conditions))
    sort = sort_soql(schema, view)
    if sort and not count:
        # Nulls last either way, and Id as the tie-breaker: a total order the browser can
        # page through with keyset conditions (see crmtui.play.browser.fetch_page).
        parts.append(f"ORDER BY {sort} {'DESC' if view.sort_desc else 'ASC'} NULLS LAST, Id")
    return " ".join(parts)


def search_sosl(schema: Schema, view: TableView, columns: list[str] | None = None) -> str:
    """The SOSL query a searched table view is equivalent to."""
    obj = schema.require(view.object)
    cols = columns or view_columns(schema, view)
    inner = ", ".join(cols)
    clauses = []
    if view.conditions:
        clauses.append(
            "WHERE " + " AND ".join(condition_soql(obj, c, schema) for c in view.conditions)
        )
    sort = sort_soql(schema, view)
    if sort:
        clauses.append(f"ORDER BY {sort} {'DESC' if view.sort_desc else 'ASC'}")
    if clauses:
        inner += " " + " ".join(clauses)
    term = (view.search or "").replace("\\", "\\\\").replace("}", "\\}").replace("{", "\\{")
    return f"FIND {{{term}}} IN ALL FIELDS RETURNING {obj.name}({inner})"


def record_soql(schema: Schema, view: RecordView) -> str:
    """The SOQL query a record view is equivalent to."""
    obj = schema.require(view.object)
    fields = ", ".join(table_columns(obj))
    return f"SELECT {fields} FROM {obj.name} WHERE Id = {soql_string(view.record_id)}"


def equivalent_query(schema: Schema, view: View) -> str:
    """The SOQL or SOSL a view is equivalent to (what gets recorded)."""
    if isinstance(view, RecordView):
        return record_soql(schema, view)
    if view.search:
        return search_sosl(schema, view)
    return table_soql(schema, view)


def describe(view: View) -> str:
    """A short human label for a view (breadcrumbs, history)."""
    if isinstance(view, RecordView):
        return f"{view.object} {view.record_id}"
    bits = [view.object]
    if view.search:
        bits.append(f"search {view.search!r}")
    bits.extend(f"{c.field} {c.op} {c.value}" for c in view.conditions)
    if view.columns:
        bits.append(f"{len(view.columns)} chosen columns")
    if view.sort_field:
        bits.append(f"by {view.sort_field}{' desc' if view.sort_desc else ''}")
    return " · ".join(bits)
