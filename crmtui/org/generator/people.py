"""Service agents (Users), customers (person Accounts) and their Contacts.

Agents carry latent traits: a workload share (a few leads take most cases, part-timers
few), a personal speed, two to four issue specialties (faster on them and routed more of
them) and a transfer propensity in three clear tiers that drifts from year to year. A few
agents form a triage desk: they open few cases themselves, take cases colleagues pass up and
route most of them on to a specialist, so they hand on many cases while having opened few
("among agents who handled more than N cases" leaves them out).

States carry a closure-speed factor: a lasting one (some regional teams are quick, some
slow; the quickest close cases three to five times faster than the slowest) and a drift per
half year (teams have better and worse seasons), so which state is fastest depends on the
period and many states get their turn.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from faker import Faker

from crmtui.org.generator.catalog import ISSUES
from crmtui.org.generator.config import CASES_END, CASES_START, EMAIL_DOMAIN, ScaleConfig
from crmtui.org.generator.ids import IdFactory

Row = dict[str, str | None]

# state -> (relative customer share, cities)
STATES: dict[str, tuple[float, tuple[str, ...]]] = {
    "CA": (12, ("Los Angeles", "San Diego", "Sacramento", "Oakland", "Fresno")),
    "TX": (9, ("Houston", "Austin", "Dallas", "San Antonio")),
    "FL": (7, ("Miami", "Orlando", "Tampa", "Jacksonville")),
    "NY": (7, ("New York", "Buffalo", "Rochester", "Albany")),
    "PA": (4, ("Philadelphia", "Pittsburgh", "Allentown")),
    "IL": (4, ("Chicago", "Naperville", "Springfield")),
    "OH": (4, ("Columbus", "Cleveland", "Cincinnati")),
    "GA": (3, ("Atlanta", "Savannah", "Athens")),
    "NC": (3, ("Charlotte", "Raleigh", "Asheville")),
    "MI": (3, ("Detroit", "Grand Rapids", "Ann Arbor")),
    "WA": (3, ("Seattle", "Spokane", "Tacoma")),
    "MA": (2.5, ("Boston", "Worcester", "Cambridge")),
    "AZ": (2.5, ("Phoenix", "Tucson", "Flagstaff")),
    "CO": (2.5, ("Denver", "Boulder", "Colorado Springs")),
    "OR": (2, ("Portland", "Eugene", "Bend")),
    "MN": (2, ("Minneapolis", "Saint Paul", "Duluth")),
    "WI": (2, ("Milwaukee", "Madison", "Green Bay")),
    "TN": (2, ("Nashville", "Memphis", "Knoxville")),
    "VA": (2, ("Richmond", "Virginia Beach", "Arlington")),
    "NJ": (2, ("Newark", "Jersey City", "Princeton")),
    "UT": (1.5, ("Salt Lake City", "Provo", "Park City")),
    "NV": (1.5, ("Las Vegas", "Reno", "Henderson")),
    "MO": (1.5, ("Kansas City", "St. Louis", "Springfield")),
    "VT": (1, ("Burlington", "Montpelier")),
}

TIME_ZONES = ("America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles")
CUSTOMER_DOMAINS = ("example.com", "example.net", "example.org", "mail.example.com")


@dataclass
class Agent:
    """A service agent and the traits that drive their case history."""

    id: str
    name: str
    speed: float
    specialties: list[int]
    transfer_rate: float
    load: float = 1.0
    # Tenure: the first day the agent takes cases, and the day after the last (None: stays).
    joined: datetime = datetime.min
    left: datetime | None = None
    # On the triage desk (see the module docstring); year -> drift of the transfer habit.
    triage: bool = False
    habit_drift: dict[int, float] = field(default_factory=dict)

    def transfer_chance(self, when: datetime) -> float:
        """How likely the agent is to hand on a case opened at ``when``."""
        return min(0.9, self.transfer_rate * self.habit_drift.get(when.year, 1.0))

    def skill(self, issue: int) -> float:
        """Handle-time multiplier on ``issue`` (below 1 = faster)."""
        return 0.55 if issue in self.specialties else 1.0

    def active(self, when: datetime) -> bool:
        """Whether the agent takes cases at ``when``."""
        return self.joined <= when and (self.left is None or when < self.left)


@dataclass
class Customer:
    """A person account with its one contact."""

    account_id: str
    contact_id: str
    first_name: str
    last_name: str
    email: str
    state: str
    weight: float


@dataclass
class People:
    """Agents, customers, per-state closure factors and the rows they make."""

    agents: list[Agent]
    customers: list[Customer]
    state_speed: dict[str, float]
    tables: dict[str, list[Row]]
    # (state, year, half) -> how the regional team did in that half year (0: January to
    # June, 1: July to December) against the state's usual speed
    state_drift: dict[tuple[str, int, int], float] = field(default_factory=dict)

    def state_factor(self, state: str, year: int, month: int = 1) -> float:
        """Closure-time multiplier of cases from ``state`` created in ``month`` of ``year``."""
        half = 0 if month <= 6 else 1
        return self.state_speed[state] * self.state_drift.get((state, year, half), 1.0)


def _name_pools(fake: Faker, size: int) -> tuple[list[str], list[str]]:
    # Faker is slow per call; a pool of names combined by the seeded rng scales to any size.
    firsts = sorted({fake.first_name() for _ in range(size)})
    lasts = sorted({fake.last_name() for _ in range(size)})
    return firsts, lasts


def _phone(rng: random.Random) -> str:
    # 555-01xx numbers are reserved for fiction.
    return f"({rng.randint(201, 989)}) 555-01{rng.randint(0, 99):02d}"


def build_people(
    cfg: ScaleConfig, rng: random.Random, fake: Faker, ids: dict[str, IdFactory]
) -> People:
    """Generate Users, Accounts and Contacts."""
    firsts, lasts = _name_pools(fake, 400)
    tables: dict[str, list[Row]] = {"User": [], "Account": [], "Contact": []}

    agents: list[Agent] = []
    used: set[tuple[str, str]] = set()
    issues = len(ISSUES)
    for index, uid in enumerate(ids["User"].take(cfg.agents)):
        while True:
            first, last = rng.choice(firsts), rng.choice(lasts)
            if (first, last) not in used:
                used.add((first, last))
                break
        load = _load(rng)
        # Round-robin first specialties so every issue has specialists, then one at random
        # (two for leads, who have seen more kinds of problems).
        picks = {(2 * index) % issues, (2 * index + 1) % issues, rng.randrange(issues)}
        if load > 2:
            picks.add(rng.randrange(issues))
        transfer = _transfer_rate(rng)
        speed = rng.uniform(0.6, 1.6)
        joined, left = _tenure(rng, index)
        habit = {
            year: rng.lognormvariate(0.0, 0.7)
            for year in range(CASES_START.year, CASES_END.year + 1)
        }
        agents.append(
            Agent(
                uid,
                f"{first} {last}",
                speed,
                sorted(picks),
                transfer,
                load,
                joined,
                left,
                habit_drift=habit,
            )
        )
        handle = f"{first}.{last}".lower().replace("'", "").replace(" ", "")
        tables["User"].append(
            {
                "Id": uid,
                "Alias": (first[0] + last)[:8].lower().replace("'", ""),
                "Email": f"{handle}@{EMAIL_DOMAIN}",
                "EmailEncodingKey": "UTF-8",
                "FirstName": first,
                "LanguageLocaleKey": "en_US",
                "LastName": last,
                "LocaleSidKey": "en_US",
                "Phone": _phone(rng),
                "TimeZoneSidKey": rng.choice(TIME_ZONES),
                "Username": f"{handle}@{EMAIL_DOMAIN}",
            }
        )

    _seat_triage_desk(rng, agents)
    state_speed = _state_speeds(rng)
    # Regional teams have better and worse seasons, so the fastest state depends on the period.
    drift = {
        (state, year, half): rng.lognormvariate(0.0, STATE_DRIFT)
        for state in STATES
        for year in range(CASES_START.year, CASES_END.year + 1)
        for half in (0, 1)
    }
    names = list(STATES)
    shares = [STATES[s][0] for s in names]
    record_type = IdFactory("012", rng).next()
    account_ids = ids["Account"].take(cfg.accounts)
    contact_ids = ids["Contact"].take(cfg.accounts)
    customers = []
    for number, (aid, cid) in enumerate(zip(account_ids, contact_ids, strict=True)):
        first, last = rng.choice(firsts), rng.choice(lasts)
        state = rng.choices(names, weights=shares)[0]
        handle = f"{first}.{last}".lower().replace("'", "").replace(" ", "")
        email = f"{handle}{number % 97}@{rng.choice(CUSTOMER_DOMAINS)}"
        customers.append(Customer(aid, cid, first, last, email, state, rng.paretovariate(1.6)))
        tables["Account"].append(
            {
                "Id": aid,
                "FirstName": first,
                "LastName": last,
                "PersonEmail": email,
                "Phone": _phone(rng),
                "RecordTypeId": record_type,
                "ShippingCity": rng.choice(STATES[state][1]),
                "ShippingState": state,
            }
        )
        tables["Contact"].append(
            {
                "Id": cid,
                "AccountId": aid,
                "Email": email,
                "FirstName": first,
                "LastName": last,
                "OwnerId": rng.choice(agents).id,
            }
        )
    return People(agents, customers, state_speed, tables, drift)


def _tenure(rng: random.Random, index: int) -> tuple[datetime, datetime | None]:
    """When an agent joins and leaves: the team grows over the years and some move on, so
    who handles (and hands on) the most cases depends on the period asked about. The first
    ten agents are there from the start and stay, so every issue always has someone."""
    start = datetime(CASES_START.year, CASES_START.month, CASES_START.day)
    end = datetime(CASES_END.year, CASES_END.month, CASES_END.day)
    if index < 10 or rng.random() < 0.4:
        joined = start
    else:
        joined = start + timedelta(days=rng.randint(90, (end - start).days - 300))
    left = None
    if index >= 10 and rng.random() < 0.25:
        left = joined + timedelta(days=rng.randint(365, 900))
        left = left if left < end else None
    return joined, left


#: Agents on the triage desk: one per this many agents, at least two.
TRIAGE_EVERY = 20


def _seat_triage_desk(rng: random.Random, agents: list[Agent]) -> None:
    """Put a few agents on the triage desk: one who is there from the start and stays, the
    rest drawn among everyone else, so the desk is staffed throughout and who passes on the
    most cases changes over the years."""
    size = max(2, len(agents) // TRIAGE_EVERY)
    founders = [a for i, a in enumerate(agents) if i < 10]
    desk = [rng.choice(founders)]
    desk += rng.sample([a for a in agents if a not in desk], size - 1)
    for agent in desk:
        agent.triage = True
        agent.load = rng.uniform(0.05, 0.12)
        agent.transfer_rate = rng.uniform(0.5, 0.7)


def _load(rng: random.Random) -> float:
    """Workload share: a quarter of the agents are leads who take about three times the
    cases of a regular agent; a fifth work part time."""
    tier = rng.random()
    if tier < 0.25:
        return rng.uniform(2.5, 3.5)
    if tier < 0.8:
        return rng.uniform(0.8, 1.2)
    return rng.uniform(0.3, 0.5)


def _transfer_rate(rng: random.Random) -> float:
    """Three kinds of agents: those who rarely hand cases on, average ones, and some who
    pass most along, so "most/fewest transfers" questions have clear answers."""
    tier = rng.random()
    if tier < 0.35:
        return rng.uniform(0.01, 0.06)
    if tier < 0.8:
        return rng.uniform(0.12, 0.35)
    return rng.uniform(0.45, 0.75)


#: Spread (log sigma) of a state's lasting closure speed, and of its half-year drift.
STATE_SPREAD = 0.25
STATE_DRIFT = 0.7


def _state_speeds(rng: random.Random) -> dict[str, float]:
    """Closure-time multipliers that last: some states' teams are quick, some slow. Which
    state is fastest in a given period depends as much on its team's season (the drift)."""
    return {state: rng.lognormvariate(0.0, STATE_SPREAD) for state in STATES}
