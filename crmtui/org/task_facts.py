"""What task generation needs to know about an org, gathered once, plus shared sampling helpers.

Samplers (:mod:`crmtui.org.task_samplers`) draw task parameters from these facts; a candidate
is then kept or dropped by :mod:`crmtui.org.tasks` according to its solver's answer.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from itertools import accumulate
from typing import Any

from crmtui.errors import CrmtuiError
from crmtui.org.solvers.common import Answer, OrderRec, OrgIndex, Tables, index_tables
from crmtui.org.solvers.periods import Window, named_window, relative_window


class TaskBuildError(CrmtuiError):
    """Tasks could not be built from a generated org (missing data, too few answerable cases)."""


class PoolExhausted(Exception):
    """A sampler drawing from a finite pool of truth entries has none left."""


@dataclass
class Candidate:
    """One proposed task instance, with the solver run that gives its gold answer."""

    query: str
    required: str
    answer: Answer
    solver: str
    params: dict[str, Any]
    evidence: list[str]
    context: dict[str, Any] = field(default_factory=dict)
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class OrgFacts:
    """An org's tables and truth, indexed, with the lists samplers draw from."""

    index: OrgIndex
    truth: Mapping[str, Any]
    data_start: date
    data_end: date
    product_names: dict[str, str]
    product_texts: dict[str, str]
    case_products: list[str]
    activated_orders: list[OrderRec]
    contacts_by_account: dict[str, list[str]]
    # Caches of the samplers: products a keyword finds; cumulative product weights by power.
    keyword_hits: dict[str, list[str]] = field(default_factory=dict)
    _busy_weights: dict[float, list[float]] = field(default_factory=dict)
    _purchases: dict[str, list[tuple[date, str]]] | None = None
    cache: dict[str, Any] = field(default_factory=dict)

    def purchases(self, account_id: str) -> list[tuple[date, str]]:
        """(EffectiveDate, product) of every item of the account's Activated orders."""
        if self._purchases is None:
            grouped: dict[str, list[tuple[date, str]]] = defaultdict(list)
            for order in self.activated_orders:
                day = date.fromisoformat(str(order.effective_date)[:10])
                for _, product in self.index.order_items_by_order.get(order.id, ()):
                    if product and order.account_id:
                        grouped[order.account_id].append((day, product))
            self._purchases = dict(grouped)
        return self._purchases.get(account_id, [])

    def followed_orders(self) -> list[OrderRec]:
        """Activated orders with another Activated order of the same account within three
        days (a purchase a careless reading of "N days ago" could take for this one)."""
        if "followed" not in self.cache:
            by_account: dict[str, list[date]] = defaultdict(list)
            for order in self.activated_orders:
                by_account[order.account_id or ""].append(_day(order))
            self.cache["followed"] = [
                order
                for order in self.activated_orders
                if any(
                    0 < abs((other - _day(order)).days) <= 3
                    for other in by_account[order.account_id or ""]
                )
            ]
        return self.cache["followed"]  # type: ignore[no-any-return]

    def name_noun(self, product_id: str) -> str:
        """The last word of the product's name, lower-cased ("jacket")."""
        name = self.product_names.get(product_id, "")
        return name.lower().split()[-1] if name.strip() else ""

    def busy_product(self, rng: random.Random, power: float = 1.0) -> str:
        """A product with cases, drawn in proportion to its case count raised to ``power``
        (1: busy products dominate; lower: quieter products get asked about too)."""
        if power not in self._busy_weights:
            counts = [self.index.product_case_count(pid) ** power for pid in self.case_products]
            self._busy_weights[power] = list(accumulate(counts))
        return rng.choices(self.case_products, cum_weights=self._busy_weights[power])[0]


def gather_facts(tables: Tables, truth: Mapping[str, Any]) -> OrgFacts:
    """Index ``tables`` and collect the lists the samplers need.

    Raises:
        TaskBuildError: When the org has no cases or the truth record lacks ``data_end``.
    """
    index = index_tables(tables)
    created = [case.created for case in index.cases if case.created is not None]
    if not created:
        raise TaskBuildError("the org has no cases with a CreatedDate; cannot build tasks")
    try:
        data_end = date.fromisoformat(str(truth["data_end"]))
    except (KeyError, ValueError):
        raise TaskBuildError("the generator's truth record has no valid 'data_end' date") from None
    truth_products = truth.get("products", {})
    names: dict[str, str] = {}
    texts: dict[str, str] = {}
    for row in tables.get("Product2", ()):
        pid = str(row["Id"])
        names[pid] = truth_products.get(pid, {}).get("name") or row.get("Name") or pid
        texts[pid] = " ".join(filter(None, (row.get("Name"), row.get("Description")))).lower()
    for pid, info in truth_products.items():
        names.setdefault(pid, info.get("name") or pid)
        texts.setdefault(pid, (info.get("name") or "").lower())
    case_products = sorted(
        pid for pid in index.order_items_by_product if index.product_case_count(pid)
    )
    contacts: dict[str, list[str]] = defaultdict(list)
    for contact_id, account_id in sorted(index.contact_accounts.items()):
        if account_id:
            contacts[account_id].append(contact_id)
    activated = sorted(
        (o for o in index.orders.values() if o.status == "Activated" and o.effective_date),
        key=lambda o: o.id,
    )
    return OrgFacts(
        index=index,
        truth=truth,
        data_start=min(created).date(),
        data_end=data_end,
        product_names=names,
        product_texts=texts,
        case_products=case_products,
        activated_orders=activated,
        contacts_by_account=dict(contacts),
    )


def _day(order: OrderRec) -> date:
    return date.fromisoformat(str(order.effective_date)[:10])


def random_day(rng: random.Random, lo: date, hi: date) -> date:
    """A uniformly drawn day in ``[lo, hi]``."""
    return lo + timedelta(days=rng.randint(0, max(0, (hi - lo).days)))


#: A period kind a question may ask about: ``("relative", unit, fewest, most)`` ("the past
#: 3 months") or ``("named", kind)`` with kind ``month``, ``quarter`` or ``season``.
PeriodKind = tuple[Any, ...]
#: Period kinds per task type with their weights, after how often the real task file asks
#: about each (the Hugging Face dataset Salesforce/CRMArena; counted from its questions).
#: The task builder drops the
#: draws whose answer would rest on one candidate or a hair's breadth, so short periods are
#: kept a little less often than drawn.
PERIOD_MIXES: dict[str, tuple[tuple[PeriodKind, float], ...]] = {
    "handle_time": (
        (("relative", "week", 2, 6), 18),
        (("relative", "month", 2, 9), 28),
        (("relative", "quarter", 1, 6), 24),
        (("named", "month"), 18),
        (("named", "quarter"), 23),
        (("named", "season"), 19),
    ),
    "transfer_count": (
        (("relative", "day", 1, 1), 1),
        (("relative", "week", 1, 6), 24),
        (("relative", "month", 2, 9), 35),
        (("relative", "quarter", 1, 6), 25),
        (("named", "month"), 14),
        (("named", "quarter"), 12),
        (("named", "season"), 19),
    ),
    "best_region_identification": (
        (("relative", "week", 1, 6), 16),
        (("relative", "month", 2, 9), 24),
        (("relative", "quarter", 1, 6), 21),
        (("relative", "year", 1, 1), 3),
        (("named", "month"), 23),
        (("named", "quarter"), 17),
        (("named", "season"), 26),
    ),
    "top_issue_identification": (
        (("relative", "week", 1, 6), 8),
        (("relative", "month", 2, 12), 29),
        (("relative", "quarter", 1, 6), 25),
        (("relative", "year", 1, 1), 12),
        (("named", "month"), 10),
        (("named", "quarter"), 19),
        (("named", "season"), 26),
    ),
    "monthly_trend_analysis": (
        (("relative", "month", 4, 12), 63),
        (("relative", "quarter", 2, 6), 62),
        (("relative", "year", 1, 1), 4),
    ),
}
SEASONS = ("Winter", "Spring", "Summer", "Fall")


def sample_period(
    facts: OrgFacts,
    rng: random.Random,
    mix: tuple[tuple[PeriodKind, float], ...],
    *,
    late_share: float = 0.0,
) -> tuple[dict[str, Any], Window, date]:
    """Draw a period of one of the kinds in ``mix``, its window and today's date.

    A relative period ends on a today drawn inside the data range (or, with probability
    ``late_share``, up to a year after it). A named period lies inside the data range and
    today falls on or after its end.
    """
    kind = rng.choices([k for k, _ in mix], weights=[w for _, w in mix])[0]
    if kind[0] == "relative":
        _, unit, lo, hi = kind
        count = rng.randint(lo, hi)
        if rng.random() < late_share:
            today = random_day(rng, facts.data_end, facts.data_end + timedelta(days=365))
        else:
            today = random_day(rng, facts.data_start + timedelta(days=45), facts.data_end)
        period = {"kind": "relative", "unit": unit, "count": count}
        return period, relative_window(today, unit, count), today
    named = kind[1]
    year = rng.randint(facts.data_start.year, facts.data_end.year)
    if named == "month":
        name = datetime(year, rng.randint(1, 12), 1).strftime("%B")
    elif named == "quarter":
        name = rng.choice(("Q1", "Q2", "Q3", "Q4"))
    else:
        name = rng.choice(SEASONS)
    window = named_window(name, year)
    # Keep the period inside the data: a question about months with no data at all is dull.
    if window.start.date() >= facts.data_end:
        year -= 1
    elif window.end.date() <= facts.data_start:
        year += 1
    window = named_window(name, year)
    end_day = window.end.date()
    today = random_day(rng, end_day, max(end_day, facts.data_end) + timedelta(days=300))
    return {"kind": "named", "name": name, "year": year}, window, today
