"""Typed SQL for operands: fields, date functions (CALENDAR_YEAR...) and aggregates."""

from __future__ import annotations

from crmtui.query.errors import INVALID_FIELD, MALFORMED_QUERY, QueryError
from crmtui.query.soql import ast
from crmtui.query.soql.resolve import Resolved, Scope
from crmtui.query.soql.values import NUMERIC_KINDS, boolean_sql
from crmtui.value_class import FrozenValue

AGGREGATES = frozenset({"COUNT", "COUNT_DISTINCT", "SUM", "AVG", "MIN", "MAX"})

_MONTH = "CAST(substr({x}, 6, 2) AS INTEGER)"
_YEAR_DAY = "CAST(strftime('%j', substr({x}, 1, 10)) AS INTEGER)"
# name -> (SQL template over the stored text {x}, result kind, datetime fields only).
# Stored values are UTC, so these are the UTC calendar parts; the fiscal year is the
# calendar year (Salesforce's default), which makes FISCAL_* equal to CALENDAR_*.
DATE_FUNCTIONS: dict[str, tuple[str, str, bool]] = {
    "CALENDAR_YEAR": ("CAST(substr({x}, 1, 4) AS INTEGER)", "int", False),
    "CALENDAR_MONTH": (_MONTH, "int", False),
    "CALENDAR_QUARTER": (f"(({_MONTH} + 2) / 3)", "int", False),
    "FISCAL_YEAR": ("CAST(substr({x}, 1, 4) AS INTEGER)", "int", False),
    "FISCAL_MONTH": (_MONTH, "int", False),
    "FISCAL_QUARTER": (f"(({_MONTH} + 2) / 3)", "int", False),
    "DAY_IN_MONTH": ("CAST(substr({x}, 9, 2) AS INTEGER)", "int", False),
    # Salesforce: 1 = Sunday ... 7 = Saturday; strftime('%w'): 0 = Sunday.
    "DAY_IN_WEEK": ("(CAST(strftime('%w', substr({x}, 1, 10)) AS INTEGER) + 1)", "int", False),
    "DAY_IN_YEAR": (_YEAR_DAY, "int", False),
    "WEEK_IN_MONTH": ("((CAST(substr({x}, 9, 2) AS INTEGER) - 1) / 7 + 1)", "int", False),
    # Salesforce: week 1 is January 1-7, whatever the weekday.
    "WEEK_IN_YEAR": (f"(({_YEAR_DAY} - 1) / 7 + 1)", "int", False),
    "HOUR_IN_DAY": ("CAST(substr({x}, 12, 2) AS INTEGER)", "int", True),
    "DAY_ONLY": ("substr({x}, 1, 10)", "date", True),
}


class Expr(FrozenValue):
    """A compiled operand.

    Attributes:
        sql: SQL to compare/sort with (numbers cast to REAL).
        value_sql: SQL whose result the executor converts for output.
        kind: Field type of the result (``int`` for counts and date parts).
        name: How Salesforce names it in messages (``CreatedDate``, ``COUNT(Id)``).
        aggregate: Whether it is an aggregate function.
        key: Normalised identity, to match select items with GROUP BY items.
        resolved: The resolved field for plain field references.
    """

    FIELDS = ("sql", "value_sql", "kind", "name", "aggregate", "key", "resolved")

    sql: str
    value_sql: str
    kind: str
    name: str
    aggregate: bool
    key: str
    resolved: Resolved | None

    def __init__(
        self,
        sql: str,
        value_sql: str,
        kind: str,
        name: str,
        aggregate: bool,
        key: str,
        resolved: Resolved | None = None,
    ) -> None:
        self._set(
            sql=sql,
            value_sql=value_sql,
            kind=kind,
            name=name,
            aggregate=aggregate,
            key=key,
            resolved=resolved,
        )


def field_expr(res: Resolved) -> Expr:
    """Expression for a resolved field (numbers cast to REAL, booleans normalised to 1/0)."""
    if res.kind in NUMERIC_KINDS:
        sql = f"CAST({res.sql} AS REAL)"
    elif res.kind == "boolean":
        sql = boolean_sql(res.sql)
    else:
        sql = res.sql
    return Expr(sql, res.sql, res.kind, res.field.name, False, res.dotted.lower(), res)


def compile_operand(scope: Scope, op: ast.Operand, *, allow_aggregate: bool) -> Expr:
    """Compile a field path or function call into a typed :class:`Expr`.

    Raises:
        QueryError: For unknown fields/functions or misuse of aggregates.
    """
    if isinstance(op, ast.FieldPath):
        return field_expr(scope.resolve(op))
    name = op.upper
    if name in AGGREGATES:
        if not allow_aggregate:
            raise QueryError(
                MALFORMED_QUERY,
                f"Aggregate function {name}() is not allowed here; use it in the SELECT "
                "list, HAVING or ORDER BY of an aggregate query",
                line=op.line,
                column=op.column,
            )
        return _aggregate(scope, op)
    if name in DATE_FUNCTIONS:
        return _date_function(scope, op)
    if name == "CONVERTTIMEZONE":
        raise QueryError(
            MALFORMED_QUERY,
            "convertTimezone() can only be used inside a date function, e.g. "
            "HOUR_IN_DAY(convertTimezone(CreatedDate))",
            line=op.line,
            column=op.column,
        )
    raise QueryError(
        MALFORMED_QUERY, f"Unknown function: {op.name}", line=op.line, column=op.column
    )


def _date_function(scope: Scope, op: ast.FuncCall) -> Expr:
    arg = op.arg
    if isinstance(arg, ast.FuncCall) and arg.upper == "CONVERTTIMEZONE":
        arg = arg.arg  # stored values are UTC and the org's time zone is UTC
    if not isinstance(arg, ast.FieldPath):
        raise QueryError(
            MALFORMED_QUERY,
            f"{op.upper}() takes one date or datetime field, e.g. {op.upper}(CreatedDate)",
            line=op.line,
            column=op.column,
        )
    res = scope.resolve(arg)
    template, kind, datetime_only = DATE_FUNCTIONS[op.upper]
    allowed = ("datetime",) if datetime_only else ("date", "datetime")
    if res.kind not in allowed:
        wanted = "a datetime" if datetime_only else "a date or datetime"
        raise QueryError(
            INVALID_FIELD,
            f"{op.upper}() needs {wanted} field; field {res.field.name} is of type {res.kind}",
            line=arg.line,
            column=arg.column,
        )
    sql = template.format(x=res.sql)
    name = f"{op.upper}({res.dotted})"
    return Expr(sql, sql, kind, name, False, name.lower())


def _aggregate(scope: Scope, op: ast.FuncCall) -> Expr:
    name = op.upper
    if op.arg is None:
        if name != "COUNT":
            raise QueryError(
                MALFORMED_QUERY,
                f"{name}() needs a field, e.g. {name}(Id)",
                line=op.line,
                column=op.column,
            )
        return Expr("COUNT(*)", "COUNT(*)", "int", "COUNT()", True, "count()")
    if isinstance(op.arg, ast.FuncCall):
        inner = compile_operand(scope, op.arg, allow_aggregate=False)
    else:
        inner = field_expr(scope.resolve(op.arg))
    label = f"{name}({inner.name})"
    if name == "COUNT":
        sql = f"COUNT({inner.value_sql})"
        kind = "int"
    elif name == "COUNT_DISTINCT":
        # Booleans count their normalised values ('1' and 'true' are one value).
        distinct = inner.sql if inner.kind == "boolean" else inner.value_sql
        sql = f"COUNT(DISTINCT {distinct})"
        kind = "int"
    elif name in ("SUM", "AVG"):
        if inner.kind not in NUMERIC_KINDS:
            raise QueryError(
                INVALID_FIELD,
                f"field {inner.name} does not support aggregate operator {name}",
                line=op.line,
                column=op.column,
            )
        sql = f"{name}({inner.sql})"
        kind = "double" if name == "AVG" else inner.kind
    else:
        if inner.kind == "boolean":
            raise QueryError(
                INVALID_FIELD,
                f"field {inner.name} does not support aggregate operator {name}",
                line=op.line,
                column=op.column,
            )
        sql = f"{name}({inner.sql})"
        kind = inner.kind
    return Expr(sql, sql, kind, label, True, label.lower())
