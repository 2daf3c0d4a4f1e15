"""Org types, scale presets and schemas of the CRMArena-Pro sample orgs."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from functools import cache
from importlib import resources

from crmtui.data.schema import Schema
from crmtui.errors import ConfigError
from crmtui.org.generator.config import CASES_END

#: The two CRMArena-Pro orgs: businesses buying in bulk, and people buying for themselves.
ORG_TYPES = ("b2b", "b2c")

#: The sales timeline: leads and deals from January 2020 until the last case day.
SALES_START = date(2020, 1, 1)
SALES_END = CASES_END


@dataclass(frozen=True)
class ProScale:
    """Volumes of the sales side of one scale (the service side uses the CRMArena preset).

    Attributes:
        name: Preset name (``small`` or ``full``).
        reps: Sales representatives (Users besides the service agents).
        leads: Lead rows.
        opportunities: Opportunity rows.
        call_share: Share of opportunities with recorded sales calls.
        plants: Records planted for each per-record task type (lead qualification, wrong
            stage, activity priority, invalid config, quote approval); enough for the task
            builder's answered instances with room to spare.
        per_type: Task instances per business task type.
        per_privacy: Task instances per confidentiality task type.
    """

    name: str
    reps: int
    leads: int
    opportunities: int
    call_share: float
    plants: int
    per_type: int
    per_privacy: int


PRO_SCALES: dict[str, ProScale] = {
    "small": ProScale("small", 12, 600, 420, 0.55, 16, 10, 8),
    # Upstream's b2b volumes (its local_data/crmarenapro_b2b_data.db): 1,465 leads,
    # 1,170 opportunities.
    "full": ProScale("full", 28, 1_465, 1_170, 0.5, 115, 100, 80),
}


def check_org_type(org_type: str) -> str:
    """Return ``org_type`` if it is ``b2b`` or ``b2c``.

    Raises:
        ConfigError: For any other value.
    """
    if org_type not in ORG_TYPES:
        raise ConfigError(f"unknown org type {org_type!r} (choose one of: {', '.join(ORG_TYPES)})")
    return org_type


def pro_scale(scale: str) -> ProScale:
    """The Pro preset named ``scale``.

    Raises:
        ConfigError: For a scale the Pro orgs do not offer (``stress`` among them).
    """
    try:
        return PRO_SCALES[scale]
    except KeyError:
        known = " and ".join(PRO_SCALES)
        raise ConfigError(f"CRMArena-Pro orgs come in scales {known}, not {scale!r}") from None


@cache
def pro_schema(org_type: str) -> Schema:
    """crmtui's own 27-object schema of the ``b2b`` or ``b2c`` org."""
    name = f"crmarenapro_{check_org_type(org_type)}_schema.json"
    text = resources.files("crmtui.data").joinpath(name).read_text("utf-8")
    return Schema.from_json(json.loads(text))


def signed_field(org_type: str) -> str:
    """The Contract date a sale is dated by: our signature (b2b) or the customer's (b2c,
    whose schema has no CompanySignedDate)."""
    return "CompanySignedDate" if org_type == "b2b" else "CustomerSignedDate"
