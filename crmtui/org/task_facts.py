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


def random_day(rng: random.Random, lo: date, hi: date) -> date:
    """A uniformly drawn day in ``[lo, hi]``."""
    return lo + timedelta(days=rng.randint(0, max(0, (hi - lo).days)))


#: Relative period units and count ranges the analytics questions use. Windows are long
#: enough that a question usually rests on several cases; the task builder drops the
#: draws whose answer would still rest on one candidate or a hair's breadth.
AGENT_UNITS = (("week", 3, 4), ("month", 2, 9), ("quarter", 1, 6))
TRANSFER_UNITS = (("month", 2, 9), ("quarter", 1, 6))
REGION_UNITS = (("month", 3, 9), ("quarter", 2, 4))
ISSUE_UNITS = (("month", 4, 12), ("quarter", 2, 6))
TREND_UNITS = (("month", 4, 12), ("quarter", 2, 4))
NAMED_KINDS = ("month", "quarter", "season")
#: Named periods long enough for questions about a state's or an agent's average.
LONG_NAMED_KINDS = ("quarter", "season")
SEASONS = ("Winter", "Spring", "Summer", "Fall")


def sample_period(
    facts: OrgFacts,
    rng: random.Random,
    *,
    units: tuple[tuple[str, int, int], ...],
    named_share: float,
    late_share: float = 0.0,
    named_kinds: tuple[str, ...] = NAMED_KINDS,
) -> tuple[dict[str, Any], Window, date]:
    """Draw a period spec, its window and today's date.

    A relative period ends on a today drawn inside the data range (or, with probability
    ``late_share``, up to a year after it). A named period lies inside the data range and
    today falls on or after its end.
    """
    if rng.random() >= named_share:
        unit, lo, hi = rng.choice(units)
        count = rng.randint(lo, hi)
        if rng.random() < late_share:
            today = random_day(rng, facts.data_end, facts.data_end + timedelta(days=365))
        else:
            today = random_day(rng, facts.data_start + timedelta(days=45), facts.data_end)
        period = {"kind": "relative", "unit": unit, "count": count}
        return period, relative_window(today, unit, count), today
    kind = rng.choice(named_kinds)
    year = rng.randint(facts.data_start.year, facts.data_end.year)
    if kind == "month":
        name = datetime(year, rng.randint(1, 12), 1).strftime("%B")
    elif kind == "quarter":
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
