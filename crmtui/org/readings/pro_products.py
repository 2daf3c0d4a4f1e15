"""CRMArena-Pro's extra named-entity shortcut (issue #32), on top of the shared reading.

On a CRMArena-Pro org the customer's words mostly fit one product of the whole catalogue, so a
solver may take the latest purchase that fits them and never read the date the question
points at. The shared reading (:func:`crmtui.org.readings.products.read_named_entity`) is
CRMArena's; this adds that shortcut for Pro orgs only.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from crmtui.org.readings.products import fitting, read_named_entity
from crmtui.org.readings.rows import OrgRows
from crmtui.org.readings.types import Reading


def read_pro_named_entity(
    rows: OrgRows, params: Mapping[str, Any], context: Mapping[str, Any]
) -> Reading:
    """The shared reading, plus on a Pro org shortcut ``latest_fitting``: the contact's
    latest Activated purchase up to today that fits the customer's words, the date the
    question points at ignored."""
    reading = read_named_entity(rows, params, context)
    if rows.pro is None:
        return reading
    phrase = str(context.get("phrase") or context.get("keyword") or "")
    today = date.fromisoformat(str(context["today"]))
    account = rows.contact_account.get(str(params["contact_id"]))
    fits = fitting(rows, phrase)
    mine = [(d, p) for d, p in rows.purchases.get(account or "", []) if p in fits and d <= today]
    latest: tuple[str, ...] = ()
    if mine:
        last = max(d for d, _ in mine)
        latest = tuple(sorted({p for d, p in mine if d == last}))
    return Reading(
        reading.careful, {**reading.shortcuts, "latest_fitting": latest}, reading.undecidable
    )
