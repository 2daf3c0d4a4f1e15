"""SOQL: grammar (``soql.lark``), AST, compiler to parameterised SQLite, executor, shaping.

Text goes parser -> :mod:`~crmtui.query.soql.ast` -> compiler (resolve, selection,
expressions, conditions, clauses) -> :class:`~crmtui.query.soql.plan.CompiledQuery` ->
executor + shaping -> :class:`~crmtui.query.results.QueryResult`. :mod:`.engine` is the
entry point (plan cache, the thread's connection). Dates and date literals live in
:mod:`.dates`, stored-value conversion in :mod:`.values`; :mod:`.printer` turns an AST back
into SOQL text. :mod:`.plan_store` keeps compiled plans on disk for ``crmtui query``. Nothing
here imports SOSL.

The package's names load on first use (PEP 562): running a stored plan needs the executor,
not the parser and the compiler (lark), which :mod:`.engine` imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crmtui.query.soql.engine import PLAN_CACHE, compile_soql, execute_soql


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'crmtui.query.soql' has no attribute {name!r}")
    from crmtui.query.soql import engine

    value = getattr(engine, name)
    globals()[name] = value
    return value


__all__ = ["PLAN_CACHE", "compile_soql", "execute_soql"]
