"""The sales team: territories, sales representatives and who covers which territory.

Latent structure the sales tasks measure: every territory has a base lead-conversion rate
(some regions buy far more readily than others); every representative has a conversion skill,
a pace (how many days their deals take to close), a deal size and a win rate, and some join
the team or leave it over the years, so who is best depends on the period asked about. Each US
state belongs to exactly one territory (Territory2.Description lists them), so a lead's region
always names one territory.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from crmtui.org.generator.config import EMAIL_DOMAIN
from crmtui.org.generator.ids import IdFactory
from crmtui.org.generator.pro.config import SALES_END, SALES_START

Row = dict[str, str | None]

#: Territory name -> the states it covers (all fifty states and DC, each once).
TERRITORIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("California and Hawaii", ("CA", "HI")),
    ("Pacific Northwest", ("WA", "OR", "AK", "ID", "MT")),
    ("Mountain West", ("CO", "UT", "NV", "AZ", "NM", "WY")),
    ("South Central", ("TX", "OK", "AR", "LA", "KS")),
    ("Great Lakes and Plains", ("IL", "IN", "WI", "MI", "OH", "MN", "IA", "MO", "NE", "ND", "SD")),
    ("Southeast", ("FL", "GA", "AL", "MS", "SC", "TN", "KY", "NC")),
    ("Mid-Atlantic", ("NY", "NJ", "PA", "DE", "MD", "DC", "VA", "WV")),
    ("New England", ("MA", "VT", "NH", "ME", "RI", "CT")),
)
STATE_TERRITORY = {
    state: index for index, (_, states) in enumerate(TERRITORIES) for state in states
}


class FreshIds:
    """Ids of one object that never repeat Ids already in the org (the CRMArena generator
    handed out its own from a factory this module cannot continue)."""

    def __init__(self, prefix: str, rng: random.Random, taken: Iterable[str] = ()) -> None:
        self._factory = IdFactory(prefix, rng)
        self._taken = set(taken)

    def next(self) -> str:
        """A new Id."""
        while True:
            value = self._factory.next()
            if value not in self._taken:
                self._taken.add(value)
                return value


@dataclass
class Rep:
    """A sales representative and the traits that drive their pipeline."""

    id: str
    name: str
    territories: list[int]
    skill: float
    pace: float
    size: float
    win: float
    load: float
    joined: date
    left: date | None

    def active(self, day: date) -> bool:
        """Whether the rep works leads and deals on ``day``."""
        return self.joined <= day and (self.left is None or day < self.left)


@dataclass
class Team:
    """Reps, territory traits and the rows they make."""

    reps: list[Rep]
    territory_ids: list[str]
    conversion: list[float]
    tables: dict[str, list[Row]]

    def reps_for(self, state: str, day: date) -> list[Rep]:
        """Reps covering ``state``'s territory on ``day`` (all of them if none is active)."""
        territory = STATE_TERRITORY.get(state, 0)
        covering = [r for r in self.reps if territory in r.territories]
        active = [r for r in covering if r.active(day)]
        return active or covering

    def pick(self, rng: random.Random, state: str, day: date) -> Rep:
        """A rep for work in ``state`` on ``day``, busier reps more often."""
        reps = self.reps_for(state, day)
        return rng.choices(reps, weights=[r.load for r in reps])[0]


def build_team(
    count: int,
    rng: random.Random,
    user_ids: FreshIds,
    names: Sequence[tuple[str, str]],
    territory_ids: FreshIds,
    link_ids: FreshIds,
) -> Team:
    """Generate sales reps (User rows), Territory2 and UserTerritory2Association rows."""
    tables: dict[str, list[Row]] = {"User": [], "Territory2": [], "UserTerritory2Association": []}
    t_ids = [territory_ids.next() for _ in TERRITORIES]
    for tid, (name, states) in zip(t_ids, TERRITORIES, strict=True):
        tables["Territory2"].append({"Id": tid, "Name": name, "Description": ",".join(states)})
    conversion = [rng.uniform(0.15, 0.5) for _ in TERRITORIES]
    coverage = _coverage(count, rng)
    reps: list[Rep] = []
    for index in range(count):
        first, last = names[index]
        covered = coverage[index]
        joined, left = _tenure(rng, index, len(TERRITORIES))
        rep = Rep(
            id=user_ids.next(),
            name=f"{first} {last}",
            territories=covered,
            skill=rng.lognormvariate(0.0, 0.45),
            pace=rng.uniform(0.55, 1.9),
            size=rng.lognormvariate(0.0, 0.5),
            win=rng.uniform(0.3, 0.85),
            load=rng.choice((0.5, 1.0, 1.0, 1.5, 2.5)),
            joined=joined,
            left=left,
        )
        reps.append(rep)
        handle = f"{first}.{last}".lower().replace("'", "").replace(" ", "")
        tables["User"].append(
            {
                "Id": rep.id,
                "Alias": (first[0] + last)[:8].lower().replace("'", ""),
                "Email": f"{handle}@sales.{EMAIL_DOMAIN}",
                "EmailEncodingKey": "UTF-8",
                "FirstName": first,
                "LanguageLocaleKey": "en_US",
                "LastName": last,
                "LocaleSidKey": "en_US",
                "Phone": f"({rng.randint(201, 989)}) 555-01{rng.randint(0, 99):02d}",
                "ProfileId": "Sales User",
                "TimeZoneSidKey": "America/New_York",
                "Username": f"{handle}@sales.{EMAIL_DOMAIN}",
            }
        )
        for territory in covered:
            tables["UserTerritory2Association"].append(
                {"Id": link_ids.next(), "Territory2Id": t_ids[territory], "UserId": rep.id}
            )
    return Team(reps, t_ids, conversion, tables)


def _coverage(count: int, rng: random.Random) -> list[list[int]]:
    """The territories each rep covers: a home territory round robin, then second ones, so
    that every territory has at least two reps (a routing question then has a choice)."""
    n = len(TERRITORIES)
    covered = [[index % n] for index in range(count)]
    for index in range(n, count):
        if rng.random() < 0.3:
            covered[index].append(rng.choice([t for t in range(n) if t != index % n]))
    for territory in range(n):
        while sum(territory in c for c in covered) < 2:
            spare = [c for c in covered if territory not in c and len(c) < 2]
            rng.choice(spare or [c for c in covered if territory not in c]).append(territory)
    return covered


def _tenure(rng: random.Random, index: int, stayers: int) -> tuple[date, date | None]:
    """The first reps are there from the start and stay; later ones join during the years
    and a few leave, so the best rep of one period is not the best of another."""
    span = (SALES_END - SALES_START).days
    if index < stayers or rng.random() < 0.35:
        joined = SALES_START
    else:
        joined = SALES_START + timedelta(days=rng.randint(60, span - 240))
    left = None
    if index >= stayers and rng.random() < 0.25:
        candidate = joined + timedelta(days=rng.randint(400, 1000))
        left = candidate if candidate < SALES_END else None
    return joined, left


def assign_order_owners(
    orders: list[Row], account_states: dict[str, str | None], team: Team, rng: random.Random
) -> list[Row]:
    """Orders with OwnerId set to a rep covering the account's state on the order's day."""
    out = []
    for row in orders:
        state = account_states.get(str(row.get("AccountId"))) or "CA"
        day = date.fromisoformat(str(row["EffectiveDate"])[:10])
        out.append({**row, "OwnerId": team.pick(rng, state, day).id})
    return out
