"""The observation text upstream's environment hands an agent after a query.

As upstream's crm_sandbox/env/connect_sandbox.py builds it (SalesforceConnector.run_query).

``SalesforceConnector.run_query`` drops each row's top-level ``attributes``, drops columns
that are null in every row (key set from the first row) and returns the list; the agent sees
its Python ``repr``. Nested parent records keep their own ``attributes`` (simple_salesforce
OrderedDicts); they are rendered as plain dicts here. Errors are shown as ``CODE: message``.

``SELECT COUNT()``: Salesforce returns the count only as ``totalSize`` with no records, and
upstream's ``query_all`` path shows the agent ``[]``. That is the default here
(``count_style="faithful"``); ``count_style="helpful"`` shows ``[{'expr0': n}]`` instead.
"""

from __future__ import annotations

from typing import Any, Literal

from crmtui.query.errors import QueryError
from crmtui.query.results import QueryResult

CountStyle = Literal["faithful", "helpful"]


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def observation_rows(
    result: QueryResult, *, count_style: CountStyle = "faithful"
) -> list[dict[str, Any]]:
    """The list of row dicts upstream's ``run_query`` returns for this result."""
    if result.is_count and count_style == "helpful":
        return [{"expr0": result.total_size}]
    rows = [{k: _plain(v) for k, v in rec.items() if k != "attributes"} for rec in result.records]
    if not rows:
        return []
    keys = list(rows[0])
    empty = [k for k in keys if all(row.get(k) is None for row in rows)]
    if empty:
        rows = [{k: v for k, v in row.items() if k not in empty} for row in rows]
    return rows


def format_observation(
    result: QueryResult | QueryError, *, count_style: CountStyle = "faithful"
) -> str:
    """The observation string an upstream agent sees for a query result or error.

    Args:
        result: A query result, or the QueryError the query raised.
        count_style: ``faithful`` (``SELECT COUNT()`` shows ``[]``, as upstream) or
            ``helpful`` (shows ``[{'expr0': n}]``).
    """
    if isinstance(result, QueryError):
        return result.observation
    return repr(observation_rows(result, count_style=count_style))
