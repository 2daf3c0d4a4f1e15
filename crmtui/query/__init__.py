"""SOQL and SOSL over a local SQLite org, shaped like Salesforce's REST API.

Public API::

    run(org, text, *, today=None, budget=None) -> QueryResult   # SOQL, or SOSL for FIND ...
    execute_soql(org, text, *, today=None, budget=None) -> QueryResult
    compile_soql(schema, text, *, today=None) -> CompiledQuery
    format_observation(result_or_error, *, count_style="faithful") -> str
    observation_rows(result) -> list[dict]
    QueryError(code, message, line=, column=)
    QueryResult
    QueryBudget(timeout_s=30.0, max_cells=2_000_000, cancel=None)   # see .budget

Layout: :mod:`.soql` and :mod:`.sosl` hold the two languages (SOSL runs its RETURNING clauses
through SOQL; SOQL knows nothing of SOSL). What both share sits at this level: errors,
results, the observation text, the lark parser cache (:mod:`.grammar`: SOSL's; SOQL's
parser runs from generated tables), the thread's
connection (:mod:`.connection`), the error boundary (:mod:`.boundary`: only QueryError
leaves the engine) and query budgets (:mod:`.budget`: time limit, result-size cap,
cancel). :mod:`.dispatch` holds :func:`run`, which picks the language; neither language
package imports it. ``docs/soql-support.md`` documents what SOQL supports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from crmtui.query import lark_setup  # noqa: F401 - the hook: lark without regex

if TYPE_CHECKING:
    from crmtui.query.budget import DEFAULT_TIMEOUT_S, QueryBudget
    from crmtui.query.dispatch import run
    from crmtui.query.errors import QueryError
    from crmtui.query.observation import format_observation, observation_rows
    from crmtui.query.results import QueryResult
    from crmtui.query.soql.columns import ColumnRead, read_columns
    from crmtui.query.soql.engine import compile_soql, execute_soql

#: Where each public name lives. Loaded on first use (PEP 562): a module that needs only
#: ``crmtui.query.results`` (``crmtui compare``, ``verify``) does not load the SOQL
#: compiler (nor SOSL's lark).
_HOMES = {
    "DEFAULT_TIMEOUT_S": "crmtui.query.budget",
    "QueryBudget": "crmtui.query.budget",
    "run": "crmtui.query.dispatch",
    "QueryError": "crmtui.query.errors",
    "format_observation": "crmtui.query.observation",
    "observation_rows": "crmtui.query.observation",
    "QueryResult": "crmtui.query.results",
    "ColumnRead": "crmtui.query.soql.columns",
    "read_columns": "crmtui.query.soql.columns",
    "compile_soql": "crmtui.query.soql.engine",
    "execute_soql": "crmtui.query.soql.engine",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'crmtui.query' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_TIMEOUT_S",
    "ColumnRead",
    "QueryBudget",
    "QueryError",
    "QueryResult",
    "compile_soql",
    "execute_soql",
    "format_observation",
    "observation_rows",
    "read_columns",
    "run",
]
