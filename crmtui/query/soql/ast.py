"""The SOQL abstract syntax tree: small frozen value classes built by :mod:`.parser`.

Every node that can be blamed in an error carries the 1-based ``line``/``column`` of its
first token. The nodes are :class:`~crmtui.value_class.FrozenValue` classes, not
dataclasses: a new ``crmtui query`` builds them, and importing ``dataclasses`` and generating
the nodes' methods cost more than parsing and compiling the query (docs/performance.md).
They compare, hash and print as the frozen dataclasses did.
"""

from __future__ import annotations

from typing import Literal

from crmtui.value_class import FrozenValue

ValueKind = Literal["string", "number", "datetime", "date", "date_literal", "boolean", "null"]


class FieldPath(FrozenValue):
    """A dotted field reference such as ``Account.Name`` (parts as the user spelled them)."""

    FIELDS = ("parts", "line", "column")

    parts: tuple[str, ...]
    line: int
    column: int

    def __init__(self, parts: tuple[str, ...], line: int, column: int) -> None:
        self._set(parts=parts, line=line, column=column)

    @property
    def text(self) -> str:
        """The path as written."""
        return ".".join(self.parts)


class FuncCall(FrozenValue):
    """A function call: aggregates, date functions, ``FIELDS(ALL)``, ``convertTimezone``."""

    FIELDS = ("name", "arg", "line", "column")

    name: str
    arg: Operand | None
    line: int
    column: int

    def __init__(self, name: str, arg: Operand | None, line: int, column: int) -> None:
        self._set(name=name, arg=arg, line=line, column=column)

    @property
    def upper(self) -> str:
        """The function name upper-cased (function names are case-insensitive)."""
        return self.name.upper()

    @property
    def text(self) -> str:
        """The call as written (normalised spacing)."""
        inner = self.arg.text if self.arg is not None else ""
        return f"{self.name}({inner})"


Operand = FieldPath | FuncCall


class Value(FrozenValue):
    """A literal on the right of a comparison.

    ``value`` holds the decoded Python value: str, int/float, an aware UTC datetime, a date,
    a ``(NAME, n)`` pair for date literals (``n`` is None for TODAY-style ones), bool, None.
    ``raw`` is the source text, used in messages.
    """

    FIELDS = ("kind", "value", "raw", "line", "column", "like_pattern")

    kind: ValueKind
    value: object
    raw: str
    line: int
    column: int
    like_pattern: str | None

    def __init__(
        self,
        kind: ValueKind,
        value: object,
        raw: str,
        line: int,
        column: int,
        like_pattern: str | None = None,
    ) -> None:
        self._set(
            kind=kind, value=value, raw=raw, line=line, column=column, like_pattern=like_pattern
        )


class Compare(FrozenValue):
    """``left op value`` with op one of = != < <= > >= (``<>`` is normalised to ``!=``)."""

    FIELDS = ("left", "op", "value")

    left: Operand
    op: str
    value: Value

    def __init__(self, left: Operand, op: str, value: Value) -> None:
        self._set(left=left, op=op, value=value)


class Like(FrozenValue):
    """``left LIKE 'pattern'``."""

    FIELDS = ("left", "value")

    left: Operand
    value: Value

    def __init__(self, left: Operand, value: Value) -> None:
        self._set(left=left, value=value)


class InList(FrozenValue):
    """``left [NOT] IN (v1, v2, ...)``."""

    FIELDS = ("left", "values", "negated")

    left: Operand
    values: tuple[Value, ...]
    negated: bool

    def __init__(self, left: Operand, values: tuple[Value, ...], negated: bool) -> None:
        self._set(left=left, values=values, negated=negated)


class InQuery(FrozenValue):
    """Semi-join / anti-join: ``left [NOT] IN (SELECT field FROM Obj ...)``."""

    FIELDS = ("left", "query", "negated")

    left: Operand
    query: Query
    negated: bool

    def __init__(self, left: Operand, query: Query, negated: bool) -> None:
        self._set(left=left, query=query, negated=negated)


class Includes(FrozenValue):
    """``INCLUDES``/``EXCLUDES`` (multi-select picklists; rejected by the compiler)."""

    FIELDS = ("left", "negated", "values")

    left: Operand
    negated: bool
    values: tuple[Value, ...]

    def __init__(self, left: Operand, negated: bool, values: tuple[Value, ...] = ()) -> None:
        self._set(left=left, negated=negated, values=values)


class And(FrozenValue):
    """Conjunction of two or more conditions."""

    FIELDS = ("items",)

    items: tuple[Condition, ...]

    def __init__(self, items: tuple[Condition, ...]) -> None:
        self._set(items=items)


class Or(FrozenValue):
    """Disjunction of two or more conditions."""

    FIELDS = ("items",)

    items: tuple[Condition, ...]

    def __init__(self, items: tuple[Condition, ...]) -> None:
        self._set(items=items)


class Not(FrozenValue):
    """Negation."""

    FIELDS = ("item",)

    item: Condition

    def __init__(self, item: Condition) -> None:
        self._set(item=item)


Condition = Compare | Like | InList | InQuery | Includes | And | Or | Not


class SelectField(FrozenValue):
    """A plain field (or parent path) in the select list."""

    FIELDS = ("path",)

    path: FieldPath

    def __init__(self, path: FieldPath) -> None:
        self._set(path=path)


class SelectFunc(FrozenValue):
    """A function call in the select list, with an optional alias."""

    FIELDS = ("call", "alias")

    call: FuncCall
    alias: str | None

    def __init__(self, call: FuncCall, alias: str | None) -> None:
        self._set(call=call, alias=alias)


class SelectSubquery(FrozenValue):
    """A child-relationship subquery in the select list."""

    FIELDS = ("query", "line", "column")

    query: Query
    line: int
    column: int

    def __init__(self, query: Query, line: int, column: int) -> None:
        self._set(query=query, line=line, column=column)


SelectItem = SelectField | SelectFunc | SelectSubquery


class OrderItem(FrozenValue):
    """One ORDER BY key; ``nulls_first`` None means Salesforce's default for the direction."""

    FIELDS = ("expr", "descending", "nulls_first")

    expr: Operand
    descending: bool
    nulls_first: bool | None

    def __init__(self, expr: Operand, descending: bool, nulls_first: bool | None) -> None:
        self._set(expr=expr, descending=descending, nulls_first=nulls_first)


class Query(FrozenValue):
    """A whole SELECT statement (also used for subqueries)."""

    FIELDS = (
        "select",
        "object",
        "object_line",
        "object_column",
        "alias",
        "where",
        "group_by",
        "having",
        "order_by",
        "limit",
        "offset",
        "line",
        "column",
    )

    select: tuple[SelectItem, ...]
    object: str
    object_line: int
    object_column: int
    alias: str | None
    where: Condition | None
    group_by: tuple[Operand, ...]
    having: Condition | None
    order_by: tuple[OrderItem, ...]
    limit: int | None
    offset: int | None
    line: int
    column: int

    def __init__(
        self,
        select: tuple[SelectItem, ...],
        object: str,
        object_line: int,
        object_column: int,
        alias: str | None = None,
        where: Condition | None = None,
        group_by: tuple[Operand, ...] = (),
        having: Condition | None = None,
        order_by: tuple[OrderItem, ...] = (),
        limit: int | None = None,
        offset: int | None = None,
        line: int = 1,
        column: int = 1,
    ) -> None:
        self._set(
            select=select,
            object=object,
            object_line=object_line,
            object_column=object_column,
            alias=alias,
            where=where,
            group_by=group_by,
            having=having,
            order_by=order_by,
            limit=limit,
            offset=offset,
            line=line,
            column=column,
        )
