"""Cases and their history: who got each case, transfers, handle time and status.

Latent drivers, in the order they act: a product's popularity and seasonal month weights
pick when cases about it arrive; its issue mix picks the problem; agents who specialise in an
issue are routed more of it and close it faster, leads more of everything; some agents hand
cases on more often; the customer's state scales closure time.

Cases are built in two passes. The first routes every case and decides whether it closes.
Then, for some issues, the two agents with the most closed cases are evened out by handing
a few untransferred old cases of the leader to the runner-up, so the routing policy's later
rules (product expertise, workload) have ties to break. The second pass writes the rows.

No timestamp is ever exactly midnight: cases are created at a whole second between 1 and 59
past some minute, and every later event of the case is a whole number of minutes after
that, so no event sits exactly on a period boundary.
"""

from __future__ import annotations

import calendar
import random
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from itertools import accumulate

from crmtui.org.generator.catalog import ISSUES, Catalog
from crmtui.org.generator.config import CASES_END, CASES_START, ScaleConfig, fmt_datetime
from crmtui.org.generator.ids import IdFactory
from crmtui.org.generator.people import People
from crmtui.org.generator.texts import case_text

Row = dict[str, str | None]

# Typical hours to resolve each issue (same order as ISSUES). Kept within a factor of three
# of each other so a state's closure speed shows through the mix of issues it reports.
BASE_HOURS = (30.0, 40.0, 45.0, 20.0, 55.0, 60.0, 30.0, 45.0, 40.0, 50.0, 45.0, 22.0)
# Longest time a case stays open before closing (the slowest mix of factors, capped).
MAX_HOURS = 900.0
# A transferred case takes longer: each transfer adds this share of the work again and a
# wait in the next agent's queue, so keeping transferred cases in an agent's average handle
# time changes who is fastest or slowest.
TRANSFER_SLOWDOWN = 1.2
TRANSFER_WAIT_HOURS = (24.0, 60.0)
# Older cases that stall (never close): a few everywhere, more with the quickest regional
# teams (see _stall_share).
STALL_BASE = 0.03
STALL_QUICK = 0.8
STALL_MAX = 0.35
# Share of issues whose two most experienced agents are evened out (see module docstring).
TIED_ISSUES = 8
# Only cases at least this old may be handed to another agent when evening out: they close
# well before the end of the data whoever owns them.
SETTLED_DAYS = 60
# Priority weights (Low, Medium, High) per issue.
PRIORITY_WEIGHTS = (
    (5, 4, 1),
    (2, 5, 3),
    (2, 5, 3),
    (4, 4, 2),
    (2, 5, 3),
    (1, 4, 5),
    (5, 4, 1),
    (1, 4, 5),
    (2, 5, 3),
    (1, 4, 5),
    (4, 5, 1),
    (6, 3, 1),
)
PRIORITIES = ("Low", "Medium", "High")
# Cases still open at the end of the data window: the newest stay open.
DATA_CLOSE_LIMIT = datetime(CASES_END.year, CASES_END.month, CASES_END.day, 23, 59)


@dataclass
class CasePlan:
    """What a case is about, decided before orders exist."""

    product: int
    issue: int
    customer: int
    created: datetime
    order_item_id: str = ""
    order_date: date | None = None
    # Planted policy check: (policy key, breached, "chat" or "email") of the customer's first
    # request, (policy key, breached) of a second request in the same conversation, and the
    # purchase lag in days they need (see scenarios.py and conversations.py).
    scenario: tuple[str, bool, str] | None = None
    order_lag: int | None = None
    second: tuple[str, bool] | None = None


@dataclass
class CaseRecord:
    """A generated case with the timeline conversations need."""

    id: str
    plan: CasePlan
    subject: str
    description: str
    status: str
    # (agent index, time assigned), first assignment first
    owners: list[tuple[int, datetime]] = field(default_factory=list)
    closed: datetime | None = None


def _month_slots() -> list[tuple[int, int, float]]:
    """(year, month, share of the month inside the case timeline) for every month of it."""
    slots = []
    for year in range(CASES_START.year, CASES_END.year + 1):
        for month in range(1, 13):
            first = datetime(year, month, 1).date()
            if not CASES_START <= first <= CASES_END:
                continue
            days = calendar.monthrange(year, month)[1]
            inside = CASES_END.day if (year, month) == (CASES_END.year, CASES_END.month) else days
            slots.append((year, month, inside / days))
    return slots


def plan_cases(
    cfg: ScaleConfig, rng: random.Random, catalog: Catalog, people: People
) -> list[CasePlan]:
    """Choose product, issue, customer and creation time for every case, oldest first.

    A case's month follows its product's weights for that year (see ``catalog``), its issue
    the product's issue mix in the era the case falls in.
    """
    products = catalog.products
    popularity = [p.popularity for p in products]
    # Cumulative weights once: rng.choices re-sums plain weights on every call.
    customer_cum = list(accumulate(c.weight for c in people.customers))
    customer_range = range(len(people.customers))
    slots = _month_slots()
    slot_cum: dict[int, list[float]] = {}
    plans = []
    for product_index in rng.choices(range(len(products)), weights=popularity, k=cfg.cases):
        product = products[product_index]
        if product_index not in slot_cum:
            slot_cum[product_index] = list(
                accumulate(
                    share * product.year_months.get(year, product.month_weights)[month - 1]
                    for year, month, share in slots
                )
            )
        year, month, _ = rng.choices(slots, cum_weights=slot_cum[product_index])[0]
        last_day = calendar.monthrange(year, month)[1]
        if (year, month) == (CASES_END.year, CASES_END.month):
            last_day = CASES_END.day
        created = datetime(
            year,
            month,
            rng.randint(1, last_day),
            rng.randint(7, 21),
            rng.randrange(60),
            rng.randint(1, 59),
        )
        mix = product.issues_on(created.date())
        issues = list(mix)
        issue = rng.choices(issues, weights=[mix[i] for i in issues])[0]
        customer = rng.choices(customer_range, cum_weights=customer_cum)[0]
        plans.append(CasePlan(product_index, issue, customer, created))
    plans.sort(key=lambda p: p.created)
    return plans


#: Share of first transfers that go to the triage desk, and how often the desk passes on.
TRIAGE_SHARE = 0.6
TRIAGE_PASS = 0.9


def _route(rng: random.Random, people: People, issue: int, when: datetime) -> list[int]:
    """Agent chain for one case: the first assignee, then each transfer target; only agents
    on the team when the case is opened take part. A first transfer often goes to the triage
    desk, which passes most cases on to a specialist."""
    agents = people.agents
    active = [i for i, a in enumerate(agents) if a.active(when)]
    weights = [agents[i].load * (6.0 if issue in agents[i].specialties else 1.0) for i in active]
    chain = [rng.choices(active, weights=weights)[0]]
    chance = agents[chain[0]].transfer_chance(when) + (
        0.0 if issue in agents[chain[0]].specialties else 0.08
    )
    while len(chain) < 4 and rng.random() < chance:
        current = chain[-1]
        desk = [i for i in active if agents[i].triage and i != current]
        if len(chain) == 1 and desk and not agents[current].triage and rng.random() < TRIAGE_SHARE:
            chain.append(rng.choice(desk))
            chance = TRIAGE_PASS
            continue
        experts = [
            i
            for i in active
            if issue in agents[i].specialties and i != current and not agents[i].triage
        ]
        pool = experts or [i for i in active if i != current]
        # Passed-on cases go mostly to the quickest hands, so the agents fastest on their
        # own cases are the ones whose average a transferred case would change.
        chain.append(rng.choices(pool, weights=[agents[i].speed ** -2 for i in pool])[0])
        chance = agents[chain[-1]].transfer_chance(when) * 0.4
    return chain


@dataclass
class _Routed:
    """First-pass decisions for one case."""

    chain: list[int]
    noise: float
    stalls: bool
    closed: datetime | None = None
    # Hours a transferred case waits in the next agent's queue, per transfer.
    wait: float = 0.0


def _hours(plan: CasePlan, people: People, routed: _Routed) -> float:
    customer = people.customers[plan.customer]
    last = people.agents[routed.chain[-1]]
    region = people.state_factor(customer.state, plan.created.year, plan.created.month)
    transfers = len(routed.chain) - 1
    hours = (
        BASE_HOURS[plan.issue]
        * last.speed
        * last.skill(plan.issue)
        * region
        * routed.noise
        * (1.0 + TRANSFER_SLOWDOWN * transfers)
    )
    # The wait in each queue is the regional team's too, so state speed still shows.
    return min(hours + routed.wait * region * transfers, MAX_HOURS)


def _closing(plan: CasePlan, people: People, routed: _Routed) -> datetime | None:
    closed = plan.created + timedelta(minutes=max(30, int(_hours(plan, people, routed) * 60)))
    if closed > DATA_CLOSE_LIMIT or routed.stalls:
        return None
    return closed


def _stall_share(plan: CasePlan, people: People) -> float:
    """Chance that an older case stalls and is never closed. A regional team that closes
    quickly closes the easy cases quickly and parks the hard ones, so the quicker the team
    in its season, the more of its cases stay open: counting open cases as handled until
    today would rule out the fastest state (issue #32)."""
    customer = people.customers[plan.customer]
    region = people.state_factor(customer.state, plan.created.year, plan.created.month)
    return min(STALL_MAX, STALL_BASE + STALL_QUICK * max(0.0, 1.0 - region))


def _route_all(rng: random.Random, people: People, plans: list[CasePlan]) -> list[_Routed]:
    routed = []
    for plan in plans:
        chain = _route(rng, people, plan.issue, plan.created)
        noise = rng.lognormvariate(0.0, 0.3)
        # The newest cases are mostly still open; some older ones stall as well.
        recent = (DATA_CLOSE_LIMIT - plan.created).days < 21
        stall = 0.6 if recent else _stall_share(plan, people)
        # Planted policy checks stay closed: the task asks about a finished conversation.
        stalls = plan.scenario is None and rng.random() < stall
        item = _Routed(chain, noise, stalls, wait=rng.uniform(*TRANSFER_WAIT_HOURS))
        item.closed = _closing(plan, people, item)
        routed.append(item)
    return routed


def _even_out(
    rng: random.Random, people: People, plans: list[CasePlan], routed: list[_Routed]
) -> None:
    """Tie two agents for the most closed cases on a few issues (see module docstring).

    The pair is the issue's leader and the next agent whose workload (open cases) differs
    from the leader's, so the workload rule can break the tie when product expertise does
    not. Cases only move from agents above the pair's level to agents below it.
    """
    settled = DATA_CLOSE_LIMIT - timedelta(days=SETTLED_DAYS)
    closed_by: dict[int, dict[int, list[int]]] = {}
    open_count = [0] * len(people.agents)
    for index, (plan, item) in enumerate(zip(plans, routed, strict=True)):
        if item.closed is not None:
            closed_by.setdefault(plan.issue, {}).setdefault(item.chain[-1], []).append(index)
        else:
            open_count[item.chain[-1]] += 1
    issues = sorted(closed_by)
    for issue in rng.sample(issues, min(TIED_ISSUES, len(issues))):
        owners = closed_by[issue]
        ranked = sorted(owners, key=lambda a: (-len(owners[a]), a))
        if len(ranked) < 2:
            continue
        leader = ranked[0]
        partner = _partner(people, ranked, open_count)
        _tie(rng, people, plans, routed, owners, (leader, partner), settled)


def _partner(people: People, ranked: list[int], open_count: list[int]) -> int:
    """The agent to tie with the issue's leader: one of the next few whose workload (open
    cases) differs from the leader's, preferring one for whom the workload rule does not
    favour the agent with the smaller Id (a tie broken "by the first Id" should be wrong)."""
    leader = ranked[0]
    differing = [a for a in ranked[1:4] if open_count[a] != open_count[leader]]

    def later_id_wins(other: int) -> bool:
        fewer, more = sorted((leader, other), key=lambda a: open_count[a])
        return people.agents[fewer].id > people.agents[more].id

    return next(
        (a for a in differing if later_id_wins(a)), differing[0] if differing else ranked[1]
    )


def _tie(
    rng: random.Random,
    people: People,
    plans: list[CasePlan],
    routed: list[_Routed],
    owners: dict[int, list[int]],
    pair: tuple[int, int],
    settled: datetime,
) -> None:
    """Move closed, untransferred, settled cases until ``pair`` share the top count."""

    def count(agent: int) -> int:
        return len(owners.get(agent, ()))

    for _ in range(len(plans)):
        level = min(count(a) for a in pair)
        high = max(pair, key=count)
        others = [a for a in owners if a not in pair and count(a) >= level]
        if count(high) == level and not others:
            return
        if count(high) > level:
            donor = high
            low_pair = min(pair, key=count)
            # A gap of two or more closes from both ends; a gap of one sends a case away.
            receivers = [low_pair] if count(high) - level >= 2 else []
        else:
            donor = rng.choice(others)
            receivers = []
        if not receivers:
            receivers = [a for a in range(len(people.agents)) if a not in pair]
            receivers = [a for a in receivers if count(a) + 1 < level and a != donor]
        cases = [
            (i, to)
            for i in owners.get(donor, ())
            if len(routed[i].chain) == 1 and plans[i].created <= settled
            for to in receivers
            if people.agents[to].active(plans[i].created)
        ]
        if not cases:
            return
        moved, to = rng.choice(cases)
        owners[donor].remove(moved)
        owners.setdefault(to, []).append(moved)
        routed[moved].chain[-1] = to
        routed[moved].closed = _closing(plans[moved], people, routed[moved])


def build_cases(
    cfg: ScaleConfig,
    rng: random.Random,
    ids: dict[str, IdFactory],
    catalog: Catalog,
    people: People,
    plans: list[CasePlan],
) -> tuple[list[CaseRecord], dict[str, list[Row]]]:
    """Generate Case and CaseHistory__c rows from the plans (orders must be built first)."""
    routed = _route_all(rng, people, plans)
    _even_out(rng, people, plans, routed)
    case_rows: list[Row] = []
    history: list[Row] = []
    records: list[CaseRecord] = []
    history_ids = ids["CaseHistory__c"]
    for plan, item, case_id in zip(plans, routed, ids["Case"].take(len(plans)), strict=True):
        customer = people.customers[plan.customer]
        product = catalog.products[plan.product]
        chain, closed = item.chain, item.closed
        last = people.agents[chain[-1]]
        first_assigned = plan.created + timedelta(minutes=rng.randint(1, 20))
        horizon = closed or min(DATA_CLOSE_LIMIT, plan.created + timedelta(days=10))
        span = max((horizon - first_assigned).total_seconds(), 120.0)
        marks = sorted(rng.uniform(0.1, 0.8) for _ in chain[1:])
        times = [first_assigned] + [
            first_assigned + timedelta(minutes=int(span * m) // 60) for m in marks
        ]
        if closed is not None:
            status = "Closed"
        elif len(chain) > 1 or rng.random() < 0.3:
            status = "Escalated" if rng.random() < 0.4 else "Working"
        else:
            status = "New"
        since = (plan.created.date() - plan.order_date).days if plan.order_date else None
        subject, description = case_text(
            rng, ISSUES[plan.issue][0], product.name, since, base=product.base
        )
        record = CaseRecord(
            case_id,
            plan,
            subject,
            description,
            status,
            list(zip(chain, times, strict=True)),
            closed,
        )
        records.append(record)
        case_rows.append(
            {
                "Id": case_id,
                "AccountId": customer.account_id,
                "ClosedDate": fmt_datetime(closed) if closed else None,
                "ContactId": customer.contact_id,
                "CreatedDate": fmt_datetime(plan.created),
                "Description": description,
                "IssueId__c": catalog.issue_ids[plan.issue],
                "OrderItemId__c": plan.order_item_id,
                "OwnerId": last.id,
                "Priority": _priority(rng, plan),
                "Status": status,
                "Subject": subject,
            }
        )
        history.append(_history(history_ids.next(), case_id, plan.created, "Case Creation"))
        previous: str | None = None
        for agent_index, when in record.owners:
            agent_id = people.agents[agent_index].id
            history.append(
                _history(history_ids.next(), case_id, when, "Owner Assignment", previous, agent_id)
            )
            previous = agent_id
        if closed is not None:
            history.append(_history(history_ids.next(), case_id, closed, "Case Closed"))
    return records, {"Case": case_rows, "CaseHistory__c": history}


def _priority(rng: random.Random, plan: CasePlan) -> str:
    # An agent who follows the safety policy marks the case High; keep the data consistent.
    if plan.scenario is not None and plan.scenario[:2] == ("safety", False):
        return "High"
    return rng.choices(PRIORITIES, weights=PRIORITY_WEIGHTS[plan.issue])[0]


def _history(
    row_id: str,
    case_id: str,
    when: datetime,
    what: str,
    old: str | None = None,
    new: str | None = None,
) -> Row:
    return {
        "Id": row_id,
        "CaseId__c": case_id,
        "CreatedDate": fmt_datetime(when),
        "Field__c": what,
        "NewValue__c": new,
        "OldValue__c": old,
    }
