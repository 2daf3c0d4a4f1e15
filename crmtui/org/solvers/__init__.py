"""Reference solvers: the gold answer of every CRMArena task type, computed from org data.

Each solver is a pure function implementing one task's definition the way upstream computed
its gold answers (see each module's docstring for the window conventions). Table-based solvers
take the raw org tables (or an :class:`OrgIndex` built from them); the two knowledge solvers
take the generator's truth record. All return a :class:`SolverResult`.

:func:`run_solver` re-runs a solver from the ``solver``/``params`` recorded next to a task, so a
gold answer can always be re-derived from the org it belongs to.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from crmtui.org.solvers.agents import case_routing, handle_time, transfer_count
from crmtui.org.solvers.common import (
    OrgIndex,
    SolverError,
    SolverResult,
    Tables,
    index_tables,
)
from crmtui.org.solvers.knowledge import knowledge_qa, policy_violation
from crmtui.org.solvers.periods import named_window, relative_window
from crmtui.org.solvers.products import monthly_trend, named_entity, top_issue
from crmtui.org.solvers.regions import best_region

#: Solvers that read the org tables, by the name recorded in a task's solution.
TABLE_SOLVERS: dict[str, Callable[..., SolverResult]] = {
    "handle_time": handle_time,
    "transfer_count": transfer_count,
    "best_region": best_region,
    "top_issue": top_issue,
    "monthly_trend": monthly_trend,
    "named_entity": named_entity,
    "case_routing": case_routing,
}
#: Solvers that read the generator's truth record.
TRUTH_SOLVERS: dict[str, Callable[..., SolverResult]] = {
    "policy_violation": policy_violation,
    "knowledge_qa": knowledge_qa,
}
SOLVERS = {**TABLE_SOLVERS, **TRUTH_SOLVERS}


def run_solver(
    name: str,
    params: Mapping[str, Any],
    *,
    tables: Tables | OrgIndex | None = None,
    truth: Mapping[str, Any] | None = None,
) -> SolverResult:
    """Run the solver called ``name`` with recorded keyword ``params``.

    Raises:
        SolverError: For an unknown solver, missing tables/truth, or parameters it rejects.
    """
    if name in TABLE_SOLVERS:
        if tables is None:
            raise SolverError(f"solver {name!r} needs the org tables")
        return _call(TABLE_SOLVERS[name], name, tables, params)
    if name in TRUTH_SOLVERS:
        if truth is None:
            raise SolverError(f"solver {name!r} needs the generator's truth record")
        return _call(TRUTH_SOLVERS[name], name, truth, params)
    raise SolverError(f"unknown solver {name!r}; expected one of {', '.join(sorted(SOLVERS))}")


@cache
def _signature(solver: Callable[..., SolverResult]) -> inspect.Signature:
    return inspect.signature(solver)


def _call(
    solver: Callable[..., SolverResult], name: str, source: object, params: Mapping[str, Any]
) -> SolverResult:
    try:
        _signature(solver).bind(source, **params)
    except TypeError as exc:
        raise SolverError(f"bad parameters for solver {name!r}: {exc}") from None
    return solver(source, **params)


__all__ = [
    "SOLVERS",
    "OrgIndex",
    "SolverError",
    "SolverResult",
    "best_region",
    "case_routing",
    "handle_time",
    "index_tables",
    "knowledge_qa",
    "monthly_trend",
    "named_entity",
    "named_window",
    "policy_violation",
    "relative_window",
    "run_solver",
    "top_issue",
    "transfer_count",
]
