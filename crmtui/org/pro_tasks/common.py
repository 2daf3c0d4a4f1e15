"""What the CRMArena-Pro task samplers share: the facts they draw from, the candidate they
return, and the sales-side period sampler."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from crmtui.org.generator.pro.config import signed_field
from crmtui.org.solvers.periods import Window, named_window, relative_window
from crmtui.org.solvers.pro.index import ProIndex
from crmtui.org.task_facts import Candidate, OrgFacts, PoolExhausted, random_day
from crmtui.org.task_texts import period_phrase


@dataclass
class ProCandidate(Candidate):
    """A candidate instance plus what the asker knows (``facts``): the pieces of the question
    a simulated user holds and can reveal one at a time in a multi-turn dialogue."""

    facts: dict[str, Any] = field(default_factory=dict)


@dataclass
class ProFacts:
    """An org's indexes and truth, and the pools the record-based samplers draw from."""

    org_type: str
    service: OrgFacts
    index: ProIndex
    truth: Mapping[str, Any]
    sales_start: date
    sales_end: date
    tables: Mapping[str, Any]
    first_names: list[str] = field(default_factory=list)
    last_names: list[str] = field(default_factory=list)
    pools: dict[str, Iterator[Any]] = field(default_factory=dict)

    @property
    def signed_field(self) -> str:
        """The Contract field that dates a sale in this org."""
        return signed_field(self.org_type)

    def draw(self, key: str, make: Callable[[], list[Any]], rng: random.Random) -> Any:
        """The next entry of the shuffled pool ``key`` (made by ``make`` on first use).

        Raises:
            PoolExhausted: The pool is used up.
        """
        if key not in self.pools:
            entries = make()
            rng.shuffle(entries)
            self.pools[key] = iter(entries)
        entry = next(self.pools[key], None)
        if entry is None:
            raise PoolExhausted(key)
        return entry


Sampler = Callable[[ProFacts, random.Random, bool], ProCandidate | None]

#: Relative units of the sales questions: (unit, fewest, most).
SALES_UNITS = (("week", 4, 8), ("month", 2, 9), ("quarter", 1, 6))
NAMED_KINDS = ("month", "quarter", "season")
SEASONS = ("Winter", "Spring", "Summer", "Fall")


def quiet_period(
    rng: random.Random, days: list[date], fewest_weeks: int = 2, *, by_day: bool = False
) -> tuple[dict[str, Any], Window, date] | None:
    """A period inside the data in which none of ``days`` falls, with the day it is asked on
    (the day the window ends), or None when the data has no such gap.

    The period is whole weeks (at least ``fewest_weeks``); with ``by_day``, it may also be a
    number of days (a week or more: "the past 10 days"), which dense data has more room for.
    No-answer questions ask about such periods (issue #32): inside the range the answered
    questions cover, so whether a question has an answer cannot be told from its date.
    """
    ordered = sorted(set(days))
    gaps = [
        (before, (after - before).days - 1)
        for before, after in zip(ordered, ordered[1:], strict=False)
    ]
    weekly = [(before, free) for before, free in gaps if free // 7 >= fewest_weeks]
    daily = [(before, free) for before, free in gaps if free >= 7] if by_day else []
    if daily and (not weekly or rng.random() < 0.5):
        before, free = rng.choice(daily)
        unit, count, length = "day", rng.randint(7, min(free, 20)), 1
    elif weekly:
        before, free = rng.choice(weekly)
        unit, count, length = "week", rng.randint(fewest_weeks, min(free // 7, 8)), 7
    else:
        return None
    # The window [today - count units, today) must start after ``before`` and hold no day
    # of ``days``: it ends at most ``free`` days after ``before``, on the next recorded day.
    span = count * length
    earliest = before + timedelta(days=span + 1)
    latest = before + timedelta(days=free + 1)
    today = random_day(rng, earliest, max(earliest, latest))
    period = {"kind": "relative", "unit": unit, "count": count}
    return period, relative_window(today, unit, count), today


def sales_period(
    facts: ProFacts,
    rng: random.Random,
    *,
    want_none: bool,
    units: tuple[tuple[str, int, int], ...] = SALES_UNITS,
    named_share: float = 0.45,
    quiet_days: list[date] | None = None,
    quiet_weeks: int = 2,
) -> tuple[dict[str, Any], Window, date, str]:
    """Draw a period, its window, today's date and the period in words.

    Answered questions ask about a period inside the sales data. No-answer ones, given
    ``quiet_days`` (the days of the records the question counts), ask about weeks inside the
    data in which none of them falls (:func:`quiet_period`); without, or when the data has
    no such weeks, about a period after the data ends, in which nothing was recorded.
    """
    lo, hi = facts.sales_start, facts.sales_end
    if want_none and quiet_days is not None:
        quiet = quiet_period(rng, quiet_days, quiet_weeks)
        if quiet is not None:
            period, window, today = quiet
            return period, window, today, period_phrase(period, rng)
    if rng.random() >= named_share:
        unit, fewest, most = rng.choice(units)
        count = rng.randint(fewest, most)
        if want_none:
            today = random_day(rng, hi + timedelta(days=560), hi + timedelta(days=700))
        else:
            today = random_day(rng, lo + timedelta(days=120), hi)
        period = {"kind": "relative", "unit": unit, "count": count}
        window = relative_window(today, unit, count)
    else:
        kind = rng.choice(NAMED_KINDS)
        year = hi.year + 1 if want_none else rng.randint(lo.year, hi.year)
        if kind == "month":
            name = datetime(year, rng.randint(1, 12), 1).strftime("%B")
        elif kind == "quarter":
            name = rng.choice(("Q1", "Q2", "Q3", "Q4"))
        else:
            name = rng.choice(SEASONS)
        window = named_window(name, year)
        if not want_none and window.start.date() >= hi:
            year -= 1
            window = named_window(name, year)
        period = {"kind": "named", "name": name, "year": year}
        end = window.end.date()
        today = random_day(rng, end, max(end, hi) + timedelta(days=300))
    return period, window, today, period_phrase(period, rng)


def fill(template: str, when: str, **words: str) -> str:
    """A question template filled with a period phrase (``{when}``/``{When}``) and words."""
    return template.format(when=when, When=when[:1].upper() + when[1:], **words)


def as_answer(answer: Any) -> list[Any]:
    """A solver's answer in the Pro row format: a list, ``[None]`` for None."""
    if answer is None:
        return [None]
    if isinstance(answer, list):
        return list(answer)
    return [answer]
