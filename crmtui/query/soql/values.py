"""Stored text -> the Python values simple_salesforce returns, by schema field type."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from crmtui.query.soql.dates import normalise_stored_datetime

Converter = Callable[[Any], Any]

TEXT_KINDS = frozenset({"id", "reference", "string", "textarea", "email", "phone", "picklist"})
NUMERIC_KINDS = frozenset({"int", "double", "currency"})
#: String kinds that compare case-insensitively (Salesforce text filters ignore case); Ids
#: compare exactly so that SQLite can use the Id / lookup indexes.
NOCASE_KINDS = frozenset({"string", "textarea", "email", "phone", "picklist"})
TRUE_TEXTS = ("1", "true")
FALSE_TEXTS = ("0", "false")


def _boolean(value: Any) -> bool | None:
    if value is None:
        return None
    if isinstance(value, int | float):
        return bool(value)
    return str(value).strip().lower() in TRUE_TEXTS


def _integer(value: Any) -> int | None | Any:
    if value is None or isinstance(value, int):
        return value
    try:
        return int(float(value))
    except (TypeError, ValueError):
        return value


def _double(value: Any) -> float | None | Any:
    if value is None or isinstance(value, float):
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return value


def _date(value: Any) -> str | None:
    if value is None:
        return None
    return str(value)[:10]


def _datetime(value: Any) -> str | None:
    if value is None:
        return None
    return normalise_stored_datetime(str(value))


def _text(value: Any) -> Any:
    return value


_CONVERTERS: dict[str, Converter] = {
    "boolean": _boolean,
    "int": _integer,
    "double": _double,
    "currency": _double,
    "date": _date,
    "datetime": _datetime,
}


#: Every converter a compiled plan may hold, by a stable name: the plan store
#: (:mod:`crmtui.query.soql.plan_store`) writes these names, never code.
CONVERTERS_BY_NAME: dict[str, Converter] = {
    "text": _text,
    "bool": bool,
    "boolean": _boolean,
    "int": _integer,
    "double": _double,
    "date": _date,
    "datetime": _datetime,
}


def boolean_sql(sql: str) -> str:
    """SQL normalising a stored boolean (``1/0/true/false`` in any case) to 1, 0 or NULL.

    Comparing, sorting, grouping and counting distinct booleans all go through this, so that
    mixed spellings behave as the two values they denote (false < true, one group each).
    """
    true_list = ", ".join(f"'{t}'" for t in TRUE_TEXTS)
    return (
        f"(CASE WHEN {sql} IS NULL THEN NULL WHEN lower({sql}) IN ({true_list}) THEN 1 ELSE 0 END)"
    )


def select_sql(kind: str, sql: str) -> tuple[str, Converter]:
    """SQL that returns a stored field already typed, and what is left to do in Python.

    Numbers and booleans are converted by SQLite (in C, per row) rather than by Python:
    numbers with CAST (stored numbers are well-formed decimal text), booleans to 1/0/NULL
    and then to bool. Datetimes keep a Python check that is a no-op for stored
    ``...+0000`` values.
    """
    if kind in ("double", "currency"):
        return f"CAST({sql} AS REAL)", _text
    if kind == "int":
        return f"CAST(CAST({sql} AS REAL) AS INTEGER)", _text
    if kind == "boolean":
        return boolean_sql(sql), bool
    return sql, converter(kind)


def converter(kind: str) -> Converter:
    """The converter from a stored value to the API value for a field/expression kind."""
    return _CONVERTERS.get(kind, _text)


def is_datetime(conv: Converter) -> bool:
    """Whether a converter is the datetime one (the shaper inlines its canonical check)."""
    return conv is _datetime


def is_identity(conv: Converter) -> bool:
    """Whether a converter returns its input unchanged (lets the executor skip the call)."""
    return conv is _text
