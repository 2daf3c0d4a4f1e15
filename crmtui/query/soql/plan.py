"""Compiled query plans: what the executor runs and how it shapes rows into records.

Frozen value classes (:mod:`crmtui.value_class`), not dataclasses: a stored plan run
by ``crmtui query`` loads this module, and ``dataclasses`` costs more than the query.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from crmtui.query.soql.values import Converter
from crmtui.value_class import FrozenValue


class Output(FrozenValue):
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

    FIELDS = ("key", "rel_names", "rel_types", "rel_id_cols", "col", "conv", "identity")

    key: str
    rel_names: tuple[str, ...]
    rel_types: tuple[str, ...]
    rel_id_cols: tuple[int, ...]
    col: int
    conv: Converter
    identity: bool

    def __init__(
        self,
        key: str,
        rel_names: tuple[str, ...],
        rel_types: tuple[str, ...],
        rel_id_cols: tuple[int, ...],
        col: int,
        conv: Converter,
        identity: bool,
    ) -> None:
        self._set(
            key=key,
            rel_names=rel_names,
            rel_types=rel_types,
            rel_id_cols=rel_id_cols,
            col=col,
            conv=conv,
            identity=identity,
        )


class ChildPlan(FrozenValue):
    """A child-relationship subquery run once for all parent ids.

    The SQL's first parameter is a JSON array of parent ids. Row column 0 is the lookup to
    the parent; the rest of the row is laid out as for a top-level query (the child's Id
    first), which is what the output indexes refer to.
    """

    FIELDS = ("rel_name", "object", "sql", "params", "outputs", "shaper")
    UNCOMPARED = ("shaper",)

    rel_name: str
    object: str
    sql: str
    params: tuple[Any, ...]
    outputs: tuple[Output, ...]
    #: ``shaping.bind`` shaper for ``outputs``, built once by the compiler.
    shaper: Callable[..., list[dict[str, Any]]] | None

    def __init__(
        self,
        rel_name: str,
        object: str,  # noqa: A002 - the sObject, named as everywhere in the engine
        sql: str,
        params: tuple[Any, ...],
        outputs: tuple[Output, ...],
        shaper: Callable[..., list[dict[str, Any]]] | None = None,
    ) -> None:
        self._set(
            rel_name=rel_name, object=object, sql=sql, params=params, outputs=outputs, shaper=shaper
        )


class CompiledQuery(FrozenValue):
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

    FIELDS = ("kind", "object", "sql", "params", "items", "columns", "shaper", "child_plans")
    UNCOMPARED = ("shaper",)

    kind: Literal["records", "aggregate", "count"]
    object: str
    sql: str
    params: tuple[Any, ...]
    items: tuple[Output | ChildPlan, ...]
    columns: tuple[str, ...]
    shaper: Callable[..., list[dict[str, Any]]] | None
    child_plans: tuple[ChildPlan, ...]

    def __init__(
        self,
        kind: Literal["records", "aggregate", "count"],
        object: str,  # noqa: A002 - the sObject, named as everywhere in the engine
        sql: str,
        params: tuple[Any, ...],
        items: tuple[Output | ChildPlan, ...],
        columns: tuple[str, ...],
        shaper: Callable[..., list[dict[str, Any]]] | None = None,
        child_plans: tuple[ChildPlan, ...] = (),
    ) -> None:
        self._set(
            kind=kind,
            object=object,
            sql=sql,
            params=params,
            items=items,
            columns=columns,
            shaper=shaper,
            child_plans=child_plans,
        )
