"""Readings of best region (BRI) and policy violation (PVI)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from crmtui.org.readings.rows import OrgRows, averages, best, seconds, stamp
from crmtui.org.readings.types import Reading


def read_best_region(
    rows: OrgRows, params: Mapping[str, Any], context: Mapping[str, Any]
) -> Reading:
    """The shipping state whose closed cases created in the window closed fastest on average.

    Shortcut (CRMArena orgs) ``open_until_today``: cases still open counted too, as handled
    from their creation until the question's today.
    """
    start, end = stamp(params["start"]), stamp(params["end"])
    today = context.get("today")
    now = datetime.fromisoformat(str(today)[:10]) if today else None
    times, with_open = [], []
    for case in rows.cases_created(start, end):  # type: ignore[arg-type]
        state = rows.account_state.get(case.account or "")
        if not state or case.created is None:
            continue
        if case.closed_status and case.closed is not None:
            times.append((state, seconds(case.created, case.closed)))
            with_open.append(times[-1])
        elif not case.closed_status and now is not None:
            with_open.append((state, seconds(case.created, max(now, case.created))))
    shortcuts = {}
    if rows.pro is None and now is not None:
        shortcuts["open_until_today"] = best(averages(with_open), "min")
    return Reading(best(averages(times), "min"), shortcuts)


def read_policy_violation(
    rows: OrgRows, params: Mapping[str, Any], context: Mapping[str, Any]
) -> Reading:
    """Whether a policy was broken is decided by the conversation's wording, not by the
    tables, so there is no careful reading here.

    Shortcut ``topic_policy``: the article of the first policy the conversation takes up
    (``context["policies"]`` lists the articles of the policies discussed, in order).
    """
    policies = context.get("policies") or []
    shortcuts: dict[str, tuple[str, ...]] = {}
    if policies:
        shortcuts["topic_policy"] = (str(policies[0]),)
    return Reading(None, shortcuts)
