"""Readings of best region (BRI) and policy violation (PVI)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crmtui.org.readings.rows import OrgRows, averages, best, seconds, stamp
from crmtui.org.readings.types import Reading


def read_best_region(rows: OrgRows, params: Mapping[str, Any], _: Mapping[str, Any]) -> Reading:
    """The shipping state whose closed cases created in the window closed fastest on average."""
    start, end = stamp(params["start"]), stamp(params["end"])
    times = []
    for case in rows.cases_created(start, end):  # type: ignore[arg-type]
        state = rows.account_state.get(case.account or "")
        if case.closed_status and case.closed is not None and state:
            times.append((state, seconds(case.created, case.closed)))  # type: ignore[arg-type]
    return Reading(best(averages(times), "min"))


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
