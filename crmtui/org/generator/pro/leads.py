"""Leads: who came in when, which rep owns them, which were converted into customers.

A lead's chance of being converted is its territory's base rate times its rep's skill, so
conversion rates differ clearly by territory and by rep. A converted lead becomes one of the
org's existing customers (its ConvertedAccountId and ConvertedContactId, with the customer's
name), converted on a day after it came in; a lead still open at the end of the data, or lost,
is nobody in the org yet. Leads that get a qualification call (:mod:`.calls`) are open leads.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from crmtui.org.generator.config import fmt_bool, fmt_date, fmt_datetime
from crmtui.org.generator.people import STATES
from crmtui.org.generator.pro.config import SALES_END, SALES_START
from crmtui.org.generator.pro.reshape import INDUSTRIES
from crmtui.org.generator.pro.team import STATE_TERRITORY, FreshIds, Team

Row = dict[str, str | None]

#: Job titles of b2b leads: who can sign a purchase off alone, and who cannot.
DECIDING_TITLES = ("Owner", "Athletic Director", "General Manager", "Head of Procurement")
OTHER_TITLES = ("Assistant Coach", "Team Captain", "Office Manager", "Equipment Assistant")

#: Longest a lead takes to be converted, in days.
MAX_LAG = 150


@dataclass(frozen=True)
class Customer:
    """An existing customer a lead can turn into."""

    account_id: str
    contact_id: str
    first: str
    last: str
    email: str
    state: str
    company: str | None


@dataclass
class LeadRec:
    """One lead as generated."""

    id: str
    rep_id: str
    created: datetime
    state: str
    first: str
    last: str
    company: str | None
    title: str | None
    converted: date | None
    account_id: str | None
    contact_id: str | None
    status: str


def build_leads(
    count: int,
    org_type: str,
    rng: random.Random,
    ids: FreshIds,
    team: Team,
    customers: Sequence[Customer],
    names: tuple[list[str], list[str]],
) -> tuple[list[LeadRec], list[Row]]:
    """Generate Lead rows (and the records the pipeline and calls build on)."""
    firsts, lasts = names
    states = list(STATES)
    weights = [STATES[s][0] for s in states]
    others = sorted(set(STATE_TERRITORY) - set(states))
    free: dict[str, list[Customer]] = defaultdict(list)
    for known in customers:
        free[known.state].append(known)
    spare = list(customers)
    used: set[str] = set()
    span = (SALES_END - SALES_START).days
    leads: list[LeadRec] = []
    for _ in range(count):
        # Business grows: later years bring more leads (a triangular draw leans late).
        day = SALES_START + timedelta(days=int(rng.triangular(0, span, span * 0.8)))
        created = datetime(day.year, day.month, day.day) + timedelta(
            seconds=rng.randint(7 * 3600, 19 * 3600)
        )
        state = (
            rng.choices(states, weights=weights)[0] if rng.random() < 0.9 else rng.choice(others)
        )
        rep = team.pick(rng, state, day)
        rate = team.conversion[STATE_TERRITORY[state]] * rep.skill
        lag = min(MAX_LAG, int(rng.expovariate(1 / 21)) + 1)
        converted = day + timedelta(days=lag)
        customer: Customer | None = None
        if rng.random() < min(0.9, max(0.03, rate)) and converted < SALES_END:
            customer = _take(free.get(state, []), used) or _take(spare, used)
        if customer is not None:
            first, last, company = customer.first, customer.last, customer.company
            status = "Closed"
        else:
            first, last = rng.choice(firsts), rng.choice(lasts)
            company = _company(rng, state, lasts) if org_type == "b2b" else None
            status = _open_status(rng, (SALES_END - day).days)
        title = None
        if org_type == "b2b":
            title = rng.choice(DECIDING_TITLES if rng.random() < 0.55 else OTHER_TITLES)
        leads.append(
            LeadRec(
                ids.next(),
                rep.id,
                created,
                state,
                first,
                last,
                company,
                title,
                converted if customer else None,
                customer.account_id if customer else None,
                customer.contact_id if customer else None,
                status,
            )
        )
    leads.sort(key=lambda lead: lead.created)
    by_contact = customers_by_contact(customers)
    return leads, [_row(lead, org_type, rng, by_contact) for lead in leads]


def customers_by_contact(customers: Sequence[Customer]) -> dict[str, Customer]:
    """Customers keyed by their Contact Id."""
    return {c.contact_id: c for c in customers}


def _take(pool: list[Customer], used: set[str]) -> Customer | None:
    while pool:
        customer = pool.pop()
        if customer.contact_id not in used:
            used.add(customer.contact_id)
            return customer
    return None


def _company(rng: random.Random, state: str, lasts: list[str]) -> str:
    patterns, _ = INDUSTRIES[rng.choice(list(INDUSTRIES))]
    # Outside the states customers come from, a family name stands in for the town.
    city = rng.choice(STATES[state][1]) if state in STATES else rng.choice(lasts)
    return rng.choice(patterns).format(city=city, surname=rng.choice(lasts))


def _open_status(rng: random.Random, age: int) -> str:
    """Status of a lead that was not converted: lost when old, else how far it got."""
    if age > MAX_LAG and rng.random() < 0.6:
        return "Closed"
    if age < 7:
        return "New"
    return rng.choice(("Contacted", "Contacted", "Qualified", "Proposal", "Negotiation"))


def _row(lead: LeadRec, org_type: str, rng: random.Random, by_contact: dict[str, Customer]) -> Row:
    if lead.contact_id is not None:
        email = by_contact[lead.contact_id].email
    else:
        email = f"{lead.first}.{lead.last}".lower().replace("'", "").replace(" ", "")
        email += f"@{rng.choice(('example.com', 'example.org', 'example.net'))}"
    row: Row = {
        "Id": lead.id,
        "FirstName": lead.first,
        "LastName": lead.last,
        "Email": email,
        "Phone": f"({rng.randint(201, 989)}) 555-01{rng.randint(0, 99):02d}",
        "Status": lead.status,
        "CreatedDate": fmt_datetime(lead.created),
        "OwnerId": lead.rep_id,
        "IsConverted": fmt_bool(lead.converted is not None),
        "ConvertedDate": fmt_date(lead.converted) if lead.converted else None,
        "ConvertedAccountId": lead.account_id,
        "ConvertedContactId": lead.contact_id,
    }
    if org_type == "b2b":
        row["Company"] = lead.company
        row["Title"] = lead.title
    return row
