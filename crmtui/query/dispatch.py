"""One entry point for both languages: :func:`run` sends ``FIND ...`` to SOSL, the rest to SOQL.

Neither language package imports this module; it sits above both.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from crmtui.query.results import QueryResult
from crmtui.query.soql.engine import execute_soql


def run(org: Any, text: str, *, today: dt.date | None = None) -> QueryResult:
    """Run SOQL or SOSL: text starting with ``FIND`` (any case, after spaces) is SOSL."""
    if isinstance(text, str) and text.lstrip()[:4].upper() == "FIND":
        # Lazily: the SOSL engine (and its grammar) is only loaded by the first search.
        from crmtui.query import sosl

        return sosl.execute_sosl(org, text, today=today)
    return execute_soql(org, text, today=today)
