"""WHERE / HAVING conditions -> SQL with bound parameters, under Salesforce's type rules.

Semantics follow SOQL, not SQL, where they differ:

* text filters ignore case (``Status = 'new'`` matches ``New``) except on Id and lookup
  fields, which compare exactly so SQLite can use their indexes;
* ``!=`` and ``NOT IN`` also match NULL values (SOQL treats null as a value), and ``NOT``
  is two-valued (a comparison with a NULL field is false, so its negation is true);
* datetimes compare as instants: literals are converted to UTC and written in the stored
  fixed-width ``YYYY-MM-DDTHH:MM:SS.mmm+0000`` form, where text order equals time order.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any

from crmtui.query.errors import (
    INVALID_FIELD,
    INVALID_QUERY_FILTER_OPERATOR,
    MALFORMED_QUERY,
    QueryError,
)
from crmtui.query.soql import ast
from crmtui.query.soql.dates import (
    DATE_RANGE_HINT,
    day_start,
    format_datetime,
    in_valid_range,
    literal_range,
)
from crmtui.query.soql.expressions import Expr, compile_operand
from crmtui.query.soql.resolve import Scope
from crmtui.query.soql.values import NOCASE_KINDS, NUMERIC_KINDS, TEXT_KINDS

_ID = re.compile(r"[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$")
_LIKE_KINDS = NOCASE_KINDS | {"id", "reference"}

# How Salesforce names each kind in "must be of type ..." messages, and an example value.
_TYPE_WORDS: dict[str, tuple[str, str]] = {
    "datetime": ("dateTime", "2020-01-01T00:00:00Z"),
    "date": ("date", "2020-01-01"),
    "boolean": ("boolean", "true"),
    "int": ("int", "5"),
    "double": ("double", "5.0"),
    "currency": ("currency", "5.0"),
    "id": ("id", "'001Ws00000Ab1CdIAJ'"),
    "reference": ("reference", "'001Ws00000Ab1CdIAJ'"),
}


class CondCompiler:
    """Compiles conditions for one scope; params are appended in SQL text order.

    Attributes:
        scope: Resolves field paths and collects joins.
        today: Reference date for relative date literals.
        allow_aggregate: True for HAVING.
        subquery: Callback compiling a semi-join subquery to (sql, params).
    """

    def __init__(
        self,
        scope: Scope,
        today: dt.date,
        allow_aggregate: bool,
        subquery: Callable[[ast.Query, Expr], tuple[str, list[Any]]],
    ) -> None:
        self.scope = scope
        self.today = today
        self.allow_aggregate = allow_aggregate
        self.subquery = subquery
        self.params: list[Any] = []
        #: In HAVING: the keys of the GROUP BY expressions; any other plain field is refused.
        self.grouped: frozenset[str] | None = None

    def compile(self, cond: ast.Condition) -> str:
        """SQL for a condition; the bound values are appended to :attr:`params`."""
        if isinstance(cond, ast.And):
            return "(" + " AND ".join(self.compile(c) for c in cond.items) + ")"
        if isinstance(cond, ast.Or):
            return "(" + " OR ".join(self.compile(c) for c in cond.items) + ")"
        if isinstance(cond, ast.Not):
            # SOQL's NOT is two-valued (NOT of an unknown is true): "x IS NOT 1". Runs of NOT
            # collapse by parity, and one level costs one parenthesis, not a function call:
            # SQLite's parser stack overflows near 90 levels, NOT COALESCE(...) near 23.
            negated = True
            item = cond.item
            while isinstance(item, ast.Not):
                negated, item = not negated, item.item
            inner = self.compile(item)
            if not isinstance(item, ast.And | ast.Or):  # those come parenthesised
                inner = f"({inner})"
            return f"{inner} IS NOT 1" if negated else f"{inner} IS 1"
        left = compile_operand(self.scope, cond.left, allow_aggregate=self.allow_aggregate)
        if self.grouped is not None and not left.aggregate and left.key not in self.grouped:
            # Salesforce filters groups in HAVING: a field must be grouped or aggregated.
            raise QueryError(
                MALFORMED_QUERY,
                f"Field must be grouped or aggregated: {left.name}",
                line=cond.left.line,
                column=cond.left.column,
            )
        if isinstance(cond, ast.Compare):
            return self._compare(left, cond.op, cond.value)
        if isinstance(cond, ast.Like):
            return self._like(left, cond.value)
        if isinstance(cond, ast.InList):
            return self._in_list(left, cond.values, cond.negated)
        if isinstance(cond, ast.InQuery):
            return self._in_query(left, cond)
        word = "EXCLUDES" if cond.negated else "INCLUDES"
        raise QueryError(
            INVALID_QUERY_FILTER_OPERATOR,
            f"{word} is only valid on multi-select picklist fields; field {left.name} is of "
            f"type {left.kind}",
        )

    # -- values ------------------------------------------------------------------------

    def _check(self, left: Expr, value: ast.Value) -> None:
        """Raise Salesforce's error when ``value`` cannot be compared with ``left``."""
        kind, vk = left.kind, value.kind
        if vk == "null":
            return
        if kind in TEXT_KINDS:
            ok = vk == "string"
        elif kind in NUMERIC_KINDS:
            ok = vk == "number"
        elif kind == "boolean":
            ok = vk == "boolean"
        elif kind == "date":
            ok = vk in ("date", "date_literal")
        elif kind == "datetime":
            ok = vk in ("datetime", "date_literal")
        else:
            ok = True
        if ok:
            if kind in ("id", "reference") and not _ID.match(str(value.value)):
                raise QueryError(
                    INVALID_QUERY_FILTER_OPERATOR,
                    f"invalid ID field: {value.value}",
                    line=value.line,
                    column=value.column,
                )
            return
        if kind in TEXT_KINDS and kind not in ("id", "reference"):
            message = (
                f"value of filter criterion for field '{left.name}' must be of type string "
                "and should be enclosed in quotes"
            )
            hint = f"use {left.name} = '{_unquoted(value)}'"
        elif kind in ("id", "reference"):
            message = (
                f"value of filter criterion for field '{left.name}' must be of type id "
                "and should be enclosed in quotes"
            )
            hint = f"use {left.name} = '{_unquoted(value)}'"
        else:
            word, example = _TYPE_WORDS.get(kind, (kind, "a value"))
            message = (
                f"value of filter criterion for field '{left.name}' must be of type {word} "
                "and should not be enclosed in quotes"
            )
            hint = f"use e.g. {left.name} = {example}"
        raise QueryError(INVALID_FIELD, message, line=value.line, column=value.column, hint=hint)

    def _bind(self, left: Expr, value: ast.Value) -> Any:
        """The bound parameter for a scalar value, in the stored representation."""
        v = value.value
        if isinstance(v, dt.datetime):
            return format_datetime(v)
        if isinstance(v, dt.date):
            return v.isoformat()
        return v

    def _bounds(self, left: Expr, value: ast.Value) -> tuple[str, str]:
        name, n = value.value  # type: ignore[misc]
        try:
            start, end = literal_range(name, n, self.today)
            valid = in_valid_range(start, end)
        except (KeyError, OverflowError, ValueError):
            valid = False
        if not valid:
            raise QueryError(
                MALFORMED_QUERY,
                f"date literal {value.raw} is out of range: {DATE_RANGE_HINT}",
                line=value.line,
                column=value.column,
            )
        if left.kind == "datetime":
            return day_start(start), day_start(end)
        return start.isoformat(), end.isoformat()

    # -- operators ---------------------------------------------------------------------

    def _compare(self, left: Expr, op: str, value: ast.Value) -> str:
        self._check(left, value)
        x = left.sql
        if value.kind == "null":
            if op == "=":
                return f"{x} IS NULL"
            if op == "!=":
                return f"{x} IS NOT NULL"
            raise QueryError(
                INVALID_QUERY_FILTER_OPERATOR,
                f"null can only be compared with = or !=, not {op}",
                line=value.line,
                column=value.column,
            )
        if left.kind == "boolean":
            if op not in ("=", "!="):
                raise QueryError(
                    INVALID_QUERY_FILTER_OPERATOR,
                    f"invalid operator {op} on boolean field {left.name}",
                    hint="use = or !=",
                    line=value.line,
                    column=value.column,
                )
            # The field's SQL is already normalised to 1/0/NULL (values.boolean_sql).
            test = f"{x} = {1 if value.value else 0}"
            return test if op == "=" else f"NOT COALESCE({test}, 0)"
        if value.kind == "date_literal":
            start, end = self._bounds(left, value)
            if op == "=":
                self.params += [start, end]
                return f"({x} >= ? AND {x} < ?)"
            if op == "!=":
                self.params += [start, end]
                return f"({x} IS NULL OR {x} < ? OR {x} >= ?)"
            bound, sql_op = {
                "<": (start, "<"),
                "<=": (end, "<"),
                ">": (end, ">="),
                ">=": (start, ">="),
            }[op]
            self.params.append(bound)
            return f"{x} {sql_op} ?"
        if left.kind in ("id", "reference") and op in ("=", "!=") and len(value.value) == 15:
            test = self._id15(x, value.value)  # type: ignore[arg-type]
            return test if op == "=" else f"({x} IS NULL OR NOT {test})"
        self.params.append(self._bind(left, value))
        collate = " COLLATE NOCASE" if left.kind in NOCASE_KINDS else ""
        if op == "!=":
            return f"({x} IS NULL OR {x} != ?{collate})"
        return f"{x} {op} ?{collate}"

    def _id15(self, x: str, value: str) -> str:
        """Match a 15-character Id against 15- or 18-character stored Ids.

        An 18-character Id is the 15-character one plus three check characters from
        ``A-Z0-5``, so the range below selects exactly the records it names while still
        using the column's index.
        """
        self.params += [value, value + "000", value + "ZZZ"]
        return f"({x} = ? OR ({x} >= ? AND {x} <= ?))"

    def _like(self, left: Expr, value: ast.Value) -> str:
        if left.kind not in _LIKE_KINDS:
            raise QueryError(
                INVALID_QUERY_FILTER_OPERATOR,
                f"invalid operator on field {left.name} of type {left.kind}: LIKE can only "
                "be used with string fields",
                line=value.line,
                column=value.column,
            )
        if value.kind != "string":
            raise QueryError(
                INVALID_FIELD,
                f"value of filter criterion for field '{left.name}' must be of type string "
                "and should be enclosed in quotes",
                hint=f"use {left.name} LIKE '%{_unquoted(value)}%'",
                line=value.line,
                column=value.column,
            )
        self.params.append(value.like_pattern)
        # SQLite's LIKE ignores ASCII case, as SOQL's LIKE does.
        return f"{left.sql} LIKE ? ESCAPE '\\'"

    def _in_list(self, left: Expr, values: tuple[ast.Value, ...], negated: bool) -> str:
        for value in values:
            self._check(left, value)
        id15 = left.kind in ("id", "reference") and any(
            v.kind == "string" and len(str(v.value)) == 15 for v in values
        )
        if left.kind == "boolean" or id15 or any(v.kind == "date_literal" for v in values):
            parts = [self._compare(left, "=", v) for v in values]
            test = "(" + " OR ".join(parts) + ")"
            return f"NOT COALESCE({test}, 0)" if negated else test
        has_null = any(v.kind == "null" for v in values)
        scalars = [v for v in values if v.kind != "null"]
        x = left.sql
        if left.kind in NOCASE_KINDS:
            x += " COLLATE NOCASE"
        parts = []
        if scalars:
            self.params += [self._bind(left, v) for v in scalars]
            marks = ", ".join("?" * len(scalars))
            parts.append(f"{x} {'NOT IN' if negated else 'IN'} ({marks})")
        if negated:
            null_test = f"{left.sql} IS NOT NULL" if has_null else f"{left.sql} IS NULL"
            if not parts:
                return null_test
            joiner = " AND " if has_null else " OR "
            return "(" + null_test + joiner + parts[0] + ")"
        if has_null:
            parts.append(f"{left.sql} IS NULL")
        return "(" + " OR ".join(parts) + ")"

    def _in_query(self, left: Expr, cond: ast.InQuery) -> str:
        if left.kind not in ("id", "reference") or left.aggregate:
            raise QueryError(
                INVALID_FIELD,
                f"The left operand of a semi join must be an Id or a lookup field, not "
                f"{left.name} ({left.kind})",
                line=cond.query.line,
                column=cond.query.column,
            )
        sub_sql, sub_params = self.subquery(cond.query, left)
        self.params += sub_params
        if cond.negated:
            return f"({left.sql} IS NULL OR {left.sql} NOT IN ({sub_sql}))"
        return f"{left.sql} IN ({sub_sql})"


def _operand_path(op: ast.Operand) -> ast.FieldPath | None:
    while isinstance(op, ast.FuncCall):
        if op.arg is None:
            return None
        op = op.arg
    return op


def _rejects_null(cond: ast.Condition) -> bool:
    """Whether the compiled condition is false when its field is NULL (see module notes)."""
    if isinstance(cond, ast.Compare):
        return cond.value.kind != "null" and cond.op != "!="
    if isinstance(cond, ast.Like):
        return True
    if isinstance(cond, ast.InList):
        return not cond.negated and all(v.kind != "null" for v in cond.values)
    if isinstance(cond, ast.InQuery):
        return not cond.negated
    return False


def required_parents(scope: Scope, cond: ast.Condition | None) -> set[tuple[str, ...]]:
    """Parent relationship paths that every matching row must have.

    A top-level AND term that is false for a NULL parent field means rows without that
    parent can never match, so the parent can be INNER JOINed. That lets SQLite start from
    the parent side (e.g. from Accounts in one state, through the lookup indexes, down to
    their OrderItems) instead of scanning the child table.
    """
    if cond is None:
        return set()
    terms = cond.items if isinstance(cond, ast.And) else (cond,)
    required: set[tuple[str, ...]] = set()
    for term in terms:
        if isinstance(term, ast.Includes) or not hasattr(term, "left"):
            continue
        path = _operand_path(term.left)  # type: ignore[union-attr]
        if path is None or len(path.parts) < 2 or not _rejects_null(term):
            continue
        rel_names = scope.resolve(path).rel_names
        for depth in range(1, len(rel_names) + 1):
            required.add(rel_names[:depth])
    return required


def _unquoted(value: ast.Value) -> str:
    raw = value.raw
    if value.kind == "string":
        return raw[1:-1]
    return raw
