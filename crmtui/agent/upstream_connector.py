"""What upstream's ``SalesforceConnector.run_query`` hands its agents, reproduced offline.

Upstream (both the NAACL code and HEAD) sends a query through simple-salesforce 1.12.6 to a
Salesforce REST API and post-processes the answer (upstream's
crm_sandbox/env/connect_sandbox.py). ``crmtui upstream run``
does exactly that against ``serve-rest``; :class:`UpstreamConnector` gives the same values
without the HTTP round trip, so ``crmtui run --preset naacl|head`` shows a model what
upstream's harness would, byte for byte:

* text starting with ``FIND`` (exactly: case-sensitive, no leading spaces) goes to the search
  endpoint; anything else is SOQL, after upstream's fence unwrapping, and lowercase ``find``
  is therefore a MALFORMED_QUERY there;
* the REST API's rules (no fence unwrapping, Salesforce's error wording, ``attributes.url``
  under the API version simple-salesforce asks for, ``v59.0``);
* simple-salesforce's JSON decoding into ``OrderedDict``s (nested parent and child records
  keep that type and their ``attributes``, so they print as ``OrderedDict([...])``);
* the connector's post-processing: each row's top-level ``attributes`` dropped, columns null
  in every row dropped (the key set taken from the first row), top-level rows as plain dicts;
* errors as ``"CODE: message"`` where Salesforce's message is the multi-line
  ``\\n<query line>\\n<caret>\\nERROR at Row:n:Column:m\\n<explanation>``.

``run_query`` returns ``(value, status)`` like upstream's: the rows and 1, or the error text
and 0. :func:`upstream_executor` wraps it as the runner's executor.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from collections import OrderedDict
from typing import Any

from crmtui.agent.execution import Executor, Observation

__all__ = [
    "SIMPLE_SALESFORCE_VERSION",
    "UpstreamConnector",
    "preprocess_query",
    "upstream_executor",
]

#: The API version simple-salesforce 1.12.6 asks for by default (its DEFAULT_API_VERSION).
SIMPLE_SALESFORCE_VERSION = "v59.0"

# Upstream's preprocess_query: the first fenced block's body, a leading sql/soql tag (in
# these four spellings only) dropped, whitespace collapsed.
_TAGGED_FENCE = re.compile(r"```(?:sql|SQL|soql|SOQL)?([\s\S]+?)```")


def preprocess_query(text: str) -> str:
    """Upstream's fence handling for SOQL text (upstream's crm_sandbox/env/connect_sandbox.py)."""
    match = _TAGGED_FENCE.search(text)
    if match is None:
        return text
    return " ".join(match.group(1).split())


def _error_text(exc: Any, query: str) -> str:
    """``CODE: message`` as upstream reads it back from simple-salesforce's exception."""
    full = exc.salesforce_text(query)
    return full if full.startswith(f"{exc.code}: ") else f"{exc.code}: {exc.salesforce_message}"


class UpstreamConnector:
    """``run_query`` as upstream's connector sees it through the REST API.

    Args:
        org: The org queried.
        today: The date relative date literals refer to.
        version: API version of the ``attributes.url`` values.
        query_timeout_s: Time limit of one query (None: the engine's default).
    """

    def __init__(
        self,
        org: Any,
        today: dt.date | None = None,
        *,
        version: str = SIMPLE_SALESFORCE_VERSION,
        query_timeout_s: float | None = None,
    ) -> None:
        self.org = org
        self.today = today
        self.version = version
        self.query_timeout_s = query_timeout_s
        #: Rows of the last successful query (for the observation's row count).
        self.last_rows: int | None = None
        self.last_error_code: str | None = None

    def _records(self, text: str) -> tuple[str, list[dict[str, Any]]]:
        from crmtui import query
        from crmtui.query.wire import with_api_version

        budget = None if self.query_timeout_s is None else query.QueryBudget(self.query_timeout_s)
        if text.startswith("FIND"):
            result = query.run(self.org, text, today=self.today, budget=budget)
            return "sosl", with_api_version(result.records, self.version)
        soql = preprocess_query(text)
        if not soql:
            raise query.QueryError("MALFORMED_QUERY", "A query string has to be specified")
        result = query.execute_soql(self.org, soql, today=self.today, budget=budget, fences=False)
        return "soql", with_api_version(result.records, self.version)

    def run_query(self, text: str) -> tuple[Any, int]:
        """Upstream's ``(rows, 1)`` or ``("CODE: message", 0)``."""
        from crmtui.query import QueryError

        self.last_rows, self.last_error_code = None, None
        sent = text if text.startswith("FIND") else preprocess_query(text)
        try:
            _, records = self._records(text)
        except QueryError as exc:
            self.last_error_code = exc.code
            return _error_text(exc, sent), 0
        # simple-salesforce decodes the REST API's JSON with OrderedDict pairs.
        wire = json.dumps(records, ensure_ascii=False, default=str)
        decoded = json.loads(wire, object_pairs_hook=OrderedDict)
        if not decoded:
            self.last_rows = 0
            return [], 1
        keys = decoded[0].keys()
        for row in decoded:
            row.pop("attributes", None)
        try:
            # Every row is read for every key (upstream builds the list before all()), so a
            # row lacking a key of the first row raises even after a non-null value.
            empty = [k for k in keys if all([row[k] is None for row in decoded])]  # noqa: C419
        except KeyError as exc:  # rows of several SOSL objects: upstream's loop raises
            from crmtui.agent.result import UpstreamCrash

            raise UpstreamCrash(*exc.args) from None
        rows = [{k: v for k, v in row.items() if k not in empty} for row in decoded]
        self.last_rows = len(rows)
        return rows, 1


def upstream_executor(connector: UpstreamConnector) -> Executor:
    """The runner's executor over ``connector``: observation text = ``str()`` of its value."""

    def execute(text: str) -> Observation:
        from crmtui.agent.execution import query_kind

        start = time.perf_counter()
        value, status = connector.run_query(text)
        ms = (time.perf_counter() - start) * 1000
        kind = "sosl" if text.startswith("FIND") else "soql"
        if status == 0:
            code = connector.last_error_code or query_kind(text)
            return Observation(str(value), kind, None, ms, code, str(value))
        return Observation(str(value), kind, len(value), ms, records=value)

    execute.connector = connector  # type: ignore[attr-defined] - the exact helpers' seam
    return execute
