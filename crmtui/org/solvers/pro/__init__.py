"""Reference solvers of the CRMArena-Pro task types that the CRMArena ones do not cover.

Table solvers take the org tables (or a :class:`ProIndex` built once with :func:`pro_index`)
and keyword parameters; truth solvers take the generator's truth record. The nine service task
types of a Pro org use the CRMArena solvers of :mod:`crmtui.org.solvers` unchanged.
:func:`run_pro_solver` re-runs a solver from the ``solver``/``params`` recorded beside a task.

| task type | solver |
|---|---|
| sales_amount_understanding | :func:`.sales.sales_amount` |
| sales_cycle_understanding | :func:`.sales.sales_cycle` |
| conversion_rate_comprehension | :func:`.sales.conversion_rate` |
| lead_routing | :func:`.routing.lead_routing` |
| wrong_stage_rectification | :func:`.stages.wrong_stage` |
| activity_priority | :func:`.stages.activity_priority` |
| invalid_config, quote_approval | :func:`.quotes.quote_policy` |
| sales_insight_mining | :mod:`.insights` (four question kinds) |
| lead_qualification | :func:`.truth.lead_qualification` |
| the three confidentiality types | :func:`.truth.confidential` |
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from crmtui.org.solvers.common import SolverError, SolverResult
from crmtui.org.solvers.pro.index import ProIndex, Tables, pro_index
from crmtui.org.solvers.pro.insights import (
    opportunity_competitors,
    opportunity_topics,
    top_competitor,
    top_topic,
)
from crmtui.org.solvers.pro.quotes import quote_policy
from crmtui.org.solvers.pro.routing import lead_routing
from crmtui.org.solvers.pro.sales import conversion_rate, sales_amount, sales_cycle
from crmtui.org.solvers.pro.stages import activity_priority, wrong_stage
from crmtui.org.solvers.pro.truth import confidential, lead_qualification

#: Solvers over the org tables, by the name recorded in a task's solution.
PRO_TABLE_SOLVERS: dict[str, Callable[..., SolverResult]] = {
    "sales_amount": sales_amount,
    "sales_cycle": sales_cycle,
    "conversion_rate": conversion_rate,
    "lead_routing": lead_routing,
    "wrong_stage": wrong_stage,
    "activity_priority": activity_priority,
    "quote_policy": quote_policy,
    "top_competitor": top_competitor,
    "top_topic": top_topic,
    "opportunity_competitors": opportunity_competitors,
    "opportunity_topics": opportunity_topics,
}
#: Solvers over the generator's truth record.
PRO_TRUTH_SOLVERS: dict[str, Callable[..., SolverResult]] = {
    "lead_qualification": lead_qualification,
    "confidential": confidential,
}
PRO_SOLVERS = {**PRO_TABLE_SOLVERS, **PRO_TRUTH_SOLVERS}


def run_pro_solver(
    name: str,
    params: Mapping[str, Any],
    *,
    tables: Tables | ProIndex | None = None,
    truth: Mapping[str, Any] | None = None,
) -> SolverResult:
    """Run the Pro solver called ``name`` with recorded keyword ``params``.

    Raises:
        SolverError: Unknown solver, missing tables/truth, or parameters it rejects.
    """
    if name in PRO_TABLE_SOLVERS:
        if tables is None:
            raise SolverError(f"solver {name!r} needs the org tables")
        return _call(PRO_TABLE_SOLVERS[name], name, tables, params)
    if name in PRO_TRUTH_SOLVERS:
        if truth is None:
            raise SolverError(f"solver {name!r} needs the generator's truth record")
        return _call(PRO_TRUTH_SOLVERS[name], name, truth, params)
    raise SolverError(f"unknown solver {name!r}; expected one of {', '.join(sorted(PRO_SOLVERS))}")


def _call(
    solver: Callable[..., SolverResult], name: str, source: object, params: Mapping[str, Any]
) -> SolverResult:
    try:
        inspect.signature(solver).bind(source, **params)
    except TypeError as exc:
        raise SolverError(f"bad parameters for solver {name!r}: {exc}") from None
    return solver(source, **params)


__all__ = [
    "PRO_SOLVERS",
    "PRO_TABLE_SOLVERS",
    "PRO_TRUTH_SOLVERS",
    "ProIndex",
    "activity_priority",
    "confidential",
    "conversion_rate",
    "lead_qualification",
    "lead_routing",
    "opportunity_competitors",
    "opportunity_topics",
    "pro_index",
    "quote_policy",
    "run_pro_solver",
    "sales_amount",
    "sales_cycle",
    "top_competitor",
    "top_topic",
    "wrong_stage",
]
