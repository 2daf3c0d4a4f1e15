"""Re-running recorded queries against the org, to learn which records they returned.

A recording keeps only the row count of each query, so a model that read the evidence
through an aggregate query (``SELECT ... FROM CaseHistory__c WHERE ...``) names none of it.
Re-running each query on the same org (checked by digest) recovers the Ids of the rows it
returned; :func:`crmtui.review.trajectory.extract_steps` adds them to the step's records.
An aggregate query counts the rows it aggregates (:func:`underlying_query`).
Re-running is only trusted when the org file is present and its digest matches the one in
the recording's header: on a changed org the same query may return other rows.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from typing import Any

from crmtui.errors import CrmtuiError
from crmtui.query.results import record_id_of
from crmtui.record.verify import Recording
from crmtui.review.trajectory import is_record_id

_SELECT_RE = re.compile(
    r"\s*SELECT\s+(?P<fields>.*?)\s+FROM\s+(?P<obj>\w+)(?P<rest>.*)$", re.I | re.S
)
_AGGREGATE_RE = re.compile(r"\b(?:COUNT|COUNT_DISTINCT|SUM|AVG|MIN|MAX)\s*\(", re.I)
_TAIL_RE = re.compile(r"(?:GROUP\s+BY|HAVING|ORDER\s+BY|LIMIT|OFFSET)\b", re.I)


def _cut_tail(rest: str) -> str:
    """``rest`` up to its first top-level GROUP BY / HAVING / ORDER BY / LIMIT / OFFSET."""
    depth = 0
    quoted = False
    n = 0
    while n < len(rest):
        char = rest[n]
        if quoted:
            if char == "\\":
                n += 1
            elif char == "'":
                quoted = False
        elif char == "'":
            quoted = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif depth == 0 and (n == 0 or rest[n - 1].isspace()) and _TAIL_RE.match(rest, n):
            return rest[:n].rstrip()
        n += 1
    return rest.rstrip()


def underlying_query(text: str) -> str | None:
    """For an aggregate SOQL query, the query of the rows it aggregates; else None.

    ``SELECT IssueId__c, COUNT(Id) FROM Case WHERE X GROUP BY IssueId__c`` reads every case
    matching ``X``: those cases are what the answer rests on, though the result names none
    of them. This returns ``SELECT Id FROM Case WHERE X``.
    """
    match = _SELECT_RE.match(text)
    if match is None:
        return None
    rest = match.group("rest")
    cut = _cut_tail(rest)
    aggregate = _AGGREGATE_RE.search(match.group("fields")) or re.match(
        r"\s*GROUP\s+BY\b", rest[len(cut) :], re.I
    )
    if not aggregate:
        return None
    return f"SELECT Id FROM {match.group('obj')}{cut}"


def collect_ids(value: Any) -> set[str]:
    """Every record in a Salesforce-shaped result: parents and child rows included.

    A record counts whether or not the query selected ``Id``: every record carries its Id
    in ``attributes.url`` (``SELECT Account.ShippingState, CreatedDate FROM Case`` returned
    those cases and their accounts). Aggregate rows carry none.
    """
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            record_id = record_id_of(item)
            if isinstance(record_id, str) and is_record_id(record_id):
                found.add(record_id)
            stack.extend(
                v for k, v in item.items() if k != "attributes" and isinstance(v, dict | list)
            )
        elif isinstance(item, list):
            stack.extend(item)
    return found


class OrgResultIds:
    """A ``result_ids`` callable that re-runs queries on an org (results cached by text).

    Args:
        org: An open :class:`crmtui.org.store.Org`.
        today: The instance's "today" (relative date literals resolve against it).
    """

    def __init__(self, org: Any, today: dt.date | None = None) -> None:
        self.org = org
        self.today = today
        self._cache: dict[str, set[str] | None] = {}

    def __call__(self, text: str) -> Iterable[str] | None:
        """Ids of the records ``text`` returns, or None if it fails now."""
        if text not in self._cache:
            from crmtui.query import run

            # Aggregates return no Ids: ask for the rows they aggregate instead.
            query = underlying_query(text) or text
            try:
                result = run(self.org, query, today=self.today)
            except CrmtuiError:
                # A query that fails on replay (e.g. it failed when recorded too) adds nothing.
                self._cache[text] = None
            else:
                self._cache[text] = collect_ids(result.records)
        return self._cache[text]


def result_ids_for(recording: Recording) -> tuple[OrgResultIds | None, str]:
    """A re-runner for the org a recording was made on, or None, with a note saying why.

    Returns:
        ``(runner, note)``: the runner is None when the org file is missing, unreadable or
        changed since the recording (digest mismatch); the note says what was done.
    """
    from crmtui.review.replay_org import open_recorded_org

    try:
        org, check = open_recorded_org(recording)
    except CrmtuiError as exc:
        return None, f"cannot open the recorded org ({exc}); only Ids named in steps are counted"
    if org is None:
        return None, f"{check.message}; only Ids named in steps are counted"
    if check.status == "changed":
        return None, f"{check.message}; queries not re-run"
    path = check.path or org.path
    today_text = recording.header.get("today")
    today = dt.date.fromisoformat(today_text) if today_text else None
    return OrgResultIds(org, today), (
        f"queries re-run on {path} to find the records they returned; 'records seen' counts "
        "records a step opened, viewed, copied or named plus the rows its queries and "
        "computes returned"
    )
