"""The SOQL abstract syntax tree: small frozen dataclasses built by :mod:`.parser`.

Every node that can be blamed in an error carries the 1-based ``line``/``column`` of its
first token.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ValueKind = Literal["string", "number", "datetime", "date", "date_literal", "boolean", "null"]


@dataclass(frozen=True)
class FieldPath:
    """A dotted field reference such as ``Account.Name`` (parts as the user spelled them)."""

    parts: tuple[str, ...]
    line: int
    column: int

    @property
    def text(self) -> str:
        """The path as written."""
        return ".".join(self.parts)


@dataclass(frozen=True)
class FuncCall:
    """A function call: aggregates, date functions, ``FIELDS(ALL)``, ``convertTimezone``."""

    name: str
    arg: Operand | None
    line: int
    column: int

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


@dataclass(frozen=True)
class Value:
    """A literal on the right of a comparison.

    ``value`` holds the decoded Python value: str, int/float, an aware UTC datetime, a date,
    a ``(NAME, n)`` pair for date literals (``n`` is None for TODAY-style ones), bool, None.
    ``raw`` is the source text, used in messages.
    """

    kind: ValueKind
    value: object
    raw: str
    line: int
    column: int
    like_pattern: str | None = None


@dataclass(frozen=True)
class Compare:
    """``left op value`` with op one of = != < <= > >= (``<>`` is normalised to ``!=``)."""

    left: Operand
    op: str
    value: Value


@dataclass(frozen=True)
class Like:
    """``left LIKE 'pattern'``."""

    left: Operand
    value: Value


@dataclass(frozen=True)
class InList:
    """``left [NOT] IN (v1, v2, ...)``."""

    left: Operand
    values: tuple[Value, ...]
    negated: bool


@dataclass(frozen=True)
class InQuery:
    """Semi-join / anti-join: ``left [NOT] IN (SELECT field FROM Obj ...)``."""

    left: Operand
    query: Query
    negated: bool


@dataclass(frozen=True)
class Includes:
    """``INCLUDES``/``EXCLUDES`` (multi-select picklists; rejected by the compiler)."""

    left: Operand
    negated: bool
    values: tuple[Value, ...] = ()


@dataclass(frozen=True)
class And:
    """Conjunction of two or more conditions."""

    items: tuple[Condition, ...]


@dataclass(frozen=True)
class Or:
    """Disjunction of two or more conditions."""

    items: tuple[Condition, ...]


@dataclass(frozen=True)
class Not:
    """Negation."""

    item: Condition


Condition = Compare | Like | InList | InQuery | Includes | And | Or | Not


@dataclass(frozen=True)
class SelectField:
    """A plain field (or parent path) in the select list."""

    path: FieldPath


@dataclass(frozen=True)
class SelectFunc:
    """A function call in the select list, with an optional alias."""

    call: FuncCall
    alias: str | None


@dataclass(frozen=True)
class SelectSubquery:
    """A child-relationship subquery in the select list."""

    query: Query
    line: int
    column: int


SelectItem = SelectField | SelectFunc | SelectSubquery


@dataclass(frozen=True)
class OrderItem:
    """One ORDER BY key; ``nulls_first`` None means Salesforce's default for the direction."""

    expr: Operand
    descending: bool
    nulls_first: bool | None


@dataclass(frozen=True)
class Query:
    """A whole SELECT statement (also used for subqueries)."""

    select: tuple[SelectItem, ...]
    object: str
    object_line: int
    object_column: int
    alias: str | None = None
    where: Condition | None = None
    group_by: tuple[Operand, ...] = ()
    having: Condition | None = None
    order_by: tuple[OrderItem, ...] = ()
    limit: int | None = None
    offset: int | None = None
    line: int = 1
    column: int = 1
