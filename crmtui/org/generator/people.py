"""Service agents (Users), customers (person Accounts) and their Contacts.

Agents carry latent traits: a personal speed, two or three issue specialties (faster on
them and routed more of them) and a transfer propensity. States carry a closure-speed
factor, so "which state closes cases fastest" has a stable answer.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from faker import Faker

from crmtui.org.generator.catalog import ISSUES
from crmtui.org.generator.config import EMAIL_DOMAIN, ScaleConfig
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

    def skill(self, issue: int) -> float:
        """Handle-time multiplier on ``issue`` (below 1 = faster)."""
        return 0.55 if issue in self.specialties else 1.0


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
        # Round-robin first specialties so every issue has specialists, then one at random.
        specialties = sorted(
            {(2 * index) % issues, (2 * index + 1) % issues, rng.randrange(issues)}
        )
        transfer = _transfer_rate(rng)
        agents.append(Agent(uid, f"{first} {last}", rng.uniform(0.6, 1.7), specialties, transfer))
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

    state_speed = _state_speeds(rng)
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
    return People(agents, customers, state_speed, tables)


def _transfer_rate(rng: random.Random) -> float:
    """Three kinds of agents: those who rarely hand cases on, average ones, and a few who
    pass many along, so "most/fewest transfers" questions have clear answers."""
    tier = rng.random()
    if tier < 0.45:
        return rng.uniform(0.01, 0.06)
    if tier < 0.85:
        return rng.uniform(0.1, 0.22)
    return rng.uniform(0.4, 0.55)


def _state_speeds(rng: random.Random) -> dict[str, float]:
    """Closure-time multipliers: a few reliably fast states, a few slow, most in between."""
    names = list(STATES)
    rng.shuffle(names)
    speeds = {}
    for rank, state in enumerate(names):
        if rank < 3:
            speeds[state] = rng.uniform(0.35, 0.5)
        elif rank >= len(names) - 4:
            speeds[state] = rng.uniform(1.5, 1.9)
        else:
            speeds[state] = rng.uniform(0.75, 1.3)
    return {state: speeds[state] for state in STATES}
