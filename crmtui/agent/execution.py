"""The query seam between the agent and the org: ``execute(text) -> Observation``.

The runner never touches an org directly; it calls an ``Executor``. The real one comes from
:func:`make_query_executor` (SOQL/SOSL through ``crmtui.query``); tests inject fakes.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Executor", "Observation", "make_query_executor", "query_kind"]


@dataclass(frozen=True)
class Observation:
    """What one query gave back.

    Attributes:
        text: The agent-facing observation: upstream's row repr, or ``"CODE: message"``.
        kind: ``"soql"`` or ``"sosl"``.
        rows: Number of rows returned (``None`` on error).
        ms: Execution time in milliseconds.
        error_code: Salesforce-style error code (``MALFORMED_QUERY`` ...) on error.
        error: The full error text on error.
        records: The rows as dicts (top-level ``attributes`` removed) for tools that
            post-process results; ``None`` on error.
    """

    text: str
    kind: str
    rows: int | None
    ms: float
    error_code: str | None = None
    error: str | None = None
    records: list[dict[str, Any]] | None = None

    @property
    def ok(self) -> bool:
        """True when the query ran."""
        return self.error is None

    def event_payload(self, query: str) -> dict[str, Any]:
        """The ``run_query`` event payload (observation included for transcript replay)."""
        return {
            "text": query,
            "kind": self.kind,
            "rows": self.rows,
            "ms": round(self.ms, 3),
            "error_code": self.error_code,
            "error": self.error,
            "observation": self.text,
        }


Executor = Callable[[str], Observation]


def query_kind(text: str) -> str:
    """``"sosl"`` for text starting with FIND (after whitespace, any case), else ``"soql"``."""
    return "sosl" if text.lstrip()[:4].upper() == "FIND" else "soql"


def make_query_executor(
    org: Any,
    today: dt.date | None = None,
    *,
    count_style: str = "faithful",
    query_timeout_s: float | None = None,
) -> Executor:
    """An executor running SOQL/SOSL against ``org`` through ``crmtui.query``.

    ``crmtui.query`` is imported on first use so building an agent stays cheap.

    Args:
        org: A ``crmtui.org.store.Org`` (or anything ``crmtui.query.run`` accepts).
        today: The date ``TODAY``-style literals resolve against (the task's date).
        count_style: ``faithful`` (``SELECT COUNT()`` shows ``[]`` as upstream) or
            ``helpful`` (``[{'expr0': n}]``).
        query_timeout_s: Time limit of one query (None: the engine's default, 30 s). A
            query past it gives the agent the observation ``QUERY_TIMEOUT: Your query
            request was running for too long.``, as Salesforce would.
    """

    def execute(text: str) -> Observation:
        from crmtui import query

        start = time.perf_counter()
        try:
            budget = None if query_timeout_s is None else query.QueryBudget(query_timeout_s)
            result = query.run(org, text, today=today, budget=budget)
        except query.QueryError as exc:
            return Observation(
                text=query.format_observation(exc),
                kind=query_kind(text),
                rows=None,
                ms=(time.perf_counter() - start) * 1000,
                error_code=exc.code,
                error=str(exc),
            )
        # The rows upstream's run_query hands on: attributes and all-null columns dropped.
        records = query.observation_rows(result, count_style=count_style)  # type: ignore[arg-type]
        elapsed = getattr(result, "elapsed_ms", None)
        return Observation(
            text=query.format_observation(result, count_style=count_style),  # type: ignore[arg-type]
            kind=result.kind,
            rows=len(records),
            ms=elapsed if elapsed is not None else (time.perf_counter() - start) * 1000,
            records=records,
        )

    return execute
