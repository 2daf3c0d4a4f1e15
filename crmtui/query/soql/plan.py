"""Compiled query plans: what the executor runs and how it shapes rows into records."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from crmtui.query.soql.values import Converter


@dataclass(frozen=True)
class Output:
    """One output value of a record.

    Attributes:
        key: Key of the value in its (possibly nested) record dict.
        rel_names: Parent relationship names to walk (``("Account",)`` for Account.Name).
        rel_types: sObject type of each parent (for their ``attributes``).
        rel_id_cols: Row index of each parent's Id (None -> the parent is absent).
        col: Row index of the value.
        conv: Stored text -> API value.
        identity: Whether ``conv`` can be skipped.
    """

    key: str
    rel_names: tuple[str, ...]
    rel_types: tuple[str, ...]
    rel_id_cols: tuple[int, ...]
    col: int
    conv: Converter
    identity: bool


@dataclass(frozen=True)
class ChildPlan:
    """A child-relationship subquery run once for all parent ids.

    The SQL's first parameter is a JSON array of parent ids. Row column 0 is the lookup to
    the parent; the rest of the row is laid out as for a top-level query (the child's Id
    first), which is what the output indexes refer to.
    """

    rel_name: str
    object: str
    sql: str
    params: tuple[Any, ...]
    outputs: tuple[Output, ...]
    #: ``shaping.bind`` shaper for ``outputs``, built once by the compiler.
    shaper: Callable[..., list[dict[str, Any]]] | None = field(
        default=None, compare=False, repr=False
    )


@dataclass(frozen=True)
class CompiledQuery:
    """A compiled SOQL statement.

    Attributes:
        kind: ``records`` (rows of one object), ``aggregate`` (AggregateResult rows) or
            ``count`` (``SELECT COUNT()``: only a total).
        object: The FROM object (canonical name).
        sql: SQLite SQL text with ``?`` placeholders.
        params: Bound values, in placeholder order.
        items: Outputs and child plans in select-list order (records); outputs (aggregate).
        columns: Dotted column names for tables.
        shaper: ``shaping.bind`` shaper turning rows into records, built once by the
            compiler (None for ``count``) so that running a cached plan does no layout work.
        child_plans: The child plans among ``items`` (records), in order.
    """

    kind: Literal["records", "aggregate", "count"]
    object: str
    sql: str
    params: tuple[Any, ...]
    items: tuple[Output | ChildPlan, ...]
    columns: tuple[str, ...]
    shaper: Callable[..., list[dict[str, Any]]] | None = field(
        default=None, compare=False, repr=False
    )
    child_plans: tuple[ChildPlan, ...] = ()
