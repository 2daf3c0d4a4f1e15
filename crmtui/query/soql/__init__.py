"""SOQL: grammar (``soql.lark``), AST, compiler to parameterised SQLite, executor, shaping.

Text goes parser -> :mod:`~crmtui.query.soql.ast` -> compiler (resolve, selection,
expressions, conditions, clauses) -> :class:`~crmtui.query.soql.plan.CompiledQuery` ->
executor + shaping -> :class:`~crmtui.query.results.QueryResult`. :mod:`.engine` is the
entry point (plan cache, the thread's connection). Dates and date literals live in
:mod:`.dates`, stored-value conversion in :mod:`.values`; :mod:`.printer` turns an AST back
into SOQL text. Nothing here imports SOSL.
"""

from crmtui.query.soql.engine import PLAN_CACHE, compile_soql, execute_soql

__all__ = ["PLAN_CACHE", "compile_soql", "execute_soql"]
