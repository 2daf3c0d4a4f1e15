"""One entry point for both languages: :func:`run` sends ``FIND ...`` to SOSL, the rest to SOQL.

Neither language package imports this module; it sits above both.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from crmtui.query.boundary import check_text, guarded
from crmtui.query.budget import QueryBudget, applied
from crmtui.query.results import QueryResult
from crmtui.query.soql.engine import execute_soql


def run(
    org: Any, text: str, *, today: dt.date | None = None, budget: QueryBudget | None = None
) -> QueryResult:
    """Run SOQL or SOSL: text starting with ``FIND`` (any case, after spaces) is SOSL.

    Args:
        org: An org (or a ``(connection, Schema)`` pair).
        text: The query.
        today: The date relative date literals refer to (default: today's UTC date).
        budget: Time limit, result-size cap and cancel event (default:
            :class:`~crmtui.query.budget.QueryBudget`'s defaults).

    Raises:
        QueryError: The only exception that leaves the engine (see :mod:`.boundary`).
    """
    search = isinstance(text, str) and text.lstrip()[:4].upper() == "FIND"
    check_text(text, search=search)
    with applied(budget), guarded(search=search):
        if search:
            # Lazily: the SOSL engine (and its grammar) is only loaded by the first search.
            from crmtui.query import sosl

            return sosl.execute_sosl(org, text, today=today)
        return execute_soql(org, text, today=today)
