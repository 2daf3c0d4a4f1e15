"""Scale presets and value formatting shared by the generator modules."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, datetime
from functools import lru_cache

from crmtui.errors import ConfigError

COMPANY = "Trailpeak Outfitters"
EMAIL_DOMAIN = "trailpeakoutfitters.example"

# The case timeline: upstream's org starts in January 2020 and ends in late May 2024.
CASES_START = date(2020, 1, 1)
CASES_END = date(2024, 5, 26)
# Orders begin half a year earlier so the first cases have purchases to refer to.
ORDERS_START = date(2019, 7, 1)


@dataclass(frozen=True)
class ScaleConfig:
    """Row volumes of one scale preset.

    Attributes:
        name: Preset name (``small``, ``full``, ``stress``).
        agents: Users (service agents).
        products: Product2 rows.
        accounts: Person accounts (one Contact each).
        orders: Order rows (one per case plus background purchases).
        order_items: Target total of OrderItem rows.
        cases: Case rows.
        pricebooks: Dated price books; the standard price book comes on top.
        emails: Target total of EmailMessage rows.
        chat_share: Share of cases that have a live chat transcript.
        task_pool: Size of the question pools in ``truth`` (kqa, ncr).
        pvi_cases: Cases whose conversations are planted for policy checks.
        pvi_breach_share: Share of those planted as breaches (the rest comply).
        repeat_share: Share of follow-up orders that the customer follows with a third
            purchase of the same kind and feature four to ten days later (0 in CRMArena's
            orgs; the CRMArena-Pro generator plants them, see
            :mod:`crmtui.org.generator.orders`).
    """

    name: str
    agents: int
    products: int
    accounts: int
    orders: int
    order_items: int
    cases: int
    pricebooks: int
    emails: int
    chat_share: float
    task_pool: int
    pvi_cases: int
    pvi_breach_share: float = 0.7
    repeat_share: float = 0.0


SCALES: dict[str, ScaleConfig] = {
    "small": ScaleConfig("small", 20, 40, 250, 600, 1_500, 500, 12, 1_000, 0.4, 40, 40),
    # The paper's volumes: 977 cases, 2,071 orders, ~71k items, ~22k entries, 3,234 emails.
    "full": ScaleConfig("full", 40, 200, 1_000, 2_071, 71_000, 977, 109, 3_234, 0.4, 400, 200),
    "stress": ScaleConfig(
        "stress", 80, 400, 10_000, 20_710, 710_000, 9_770, 549, 32_340, 0.4, 400, 400
    ),
}


def scale_config(scale: str) -> ScaleConfig:
    """The preset named ``scale``.

    Raises:
        ConfigError: For an unknown scale name.
    """
    try:
        return SCALES[scale]
    except KeyError:
        known = ", ".join(SCALES)
        raise ConfigError(f"unknown org scale {scale!r} (choose one of: {known})") from None


def fmt_datetime(value: datetime) -> str:
    """Salesforce datetime text, e.g. ``2024-05-26T06:58:00.000+0000`` (UTC)."""
    return value.strftime("%Y-%m-%dT%H:%M:%S.000+0000")


def fmt_date(value: date) -> str:
    """ISO date text, e.g. ``2024-05-26``."""
    return value.isoformat()


@lru_cache(maxsize=65536)
def fmt_number(value: float) -> str:
    """Number text the way upstream stores it: ``2.0``, ``59.99``."""
    return repr(float(round(value, 2)))


def fmt_bool(value: bool) -> str:
    """Boolean text: ``'1'`` or ``'0'``."""
    return "1" if value else "0"


def spread(
    total: int, slots: int, rng: random.Random, *, minimum: int = 0, maximum: int | None = None
) -> list[int]:
    """Split ``total`` into ``slots`` uneven non-negative counts that sum to ``total``.

    Every slot gets ``minimum`` first (when the total allows); the rest lands on slots
    drawn with random weights, so some slots get many and some few. ``maximum`` caps a slot;
    overflow moves to the next slot with room.
    """
    if slots <= 0:
        return []
    base = minimum if minimum * slots <= total else 0
    counts = [base] * slots
    weights = [rng.uniform(0.3, 1.7) for _ in range(slots)]
    for slot in rng.choices(range(slots), weights=weights, k=total - base * slots):
        counts[slot] += 1
    if maximum is not None:
        extra = 0
        for index, count in enumerate(counts):
            if count > maximum:
                extra += count - maximum
                counts[index] = maximum
        index = 0
        while extra and index < slots:
            room = maximum - counts[index]
            moved = min(room, extra)
            counts[index] += moved
            extra -= moved
            index += 1
    return counts
