"""SOQL and SOSL over a local SQLite org, shaped like Salesforce's REST API.

Public API::

    run(org, text, *, today=None) -> QueryResult          # SOQL, or SOSL for FIND ...
    execute_soql(org, text, *, today=None) -> QueryResult
    format_observation(result_or_error, *, count_style="faithful") -> str
    QueryError(code, message, line=, column=)
"""

from __future__ import annotations

from crmtui.query.engine import compile_soql, execute_soql, run
from crmtui.query.errors import QueryError
from crmtui.query.observation import format_observation, observation_rows
from crmtui.query.results import QueryResult

__all__ = [
    "QueryError",
    "QueryResult",
    "compile_soql",
    "execute_soql",
    "format_observation",
    "observation_rows",
    "run",
]
