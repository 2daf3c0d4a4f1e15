"""Tasks and Events on opportunities: the work done in each stage, and the work still to do.

A deal carries completed tasks for every stage it went through and, while open, a mix of
completed, in-progress and not-started tasks of its current stage; a meeting (Event) now and
then records a stage's work too. Every Subject names an activity of the stage guide
(:data:`crmtui.org.solvers.pro.vocab.ACTIVITIES`), so the stage a deal has reached can be read
from its completed work. Deals picked for the activity-priority task also get several
not-started tasks that belong to other stages than the one the deal is in.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timedelta

from crmtui.org.generator.config import fmt_bool, fmt_datetime
from crmtui.org.generator.pro.config import SALES_END
from crmtui.org.generator.pro.pipeline import Deal, Ids
from crmtui.org.solvers.pro.vocab import ACTIVITIES, STAGES

Row = dict[str, str | None]
LOCATIONS = ("Video call", "Customer site", "Our showroom", "Phone", "Trade fair booth")
#: How many off-stage tasks a planted deal gets (upstream's answers hold 4 to 7 Ids).
OFF_STAGE_COUNTS = (4, 5, 5, 5, 6, 6, 7)
#: Share of deals whose most advanced stage shows only in a meeting (an Event).
MEETING_ONLY_SHARE = 0.85
#: Share of activity-priority plants that also get not-started tasks of their own stage.
OWN_STAGE_SHARE = 0.85
#: Share of deals with a decoy task (see ``_decoys``).
DECOY_SHARE = 0.8


class _Writer:
    def __init__(self, rng: random.Random, ids: Ids, tables: dict[str, list[Row]]) -> None:
        self.rng = rng
        self.ids = ids
        self.tables = tables

    def task(self, deal: Deal, subject: str, status: str, when: datetime) -> str:
        task_id = self.ids("Task")
        label = deal.customer.company or f"{deal.customer.first} {deal.customer.last}"
        self.tables["Task"].append(
            {
                "Id": task_id,
                "WhatId": deal.id,
                "OwnerId": deal.rep.id,
                "Subject": subject,
                "Description": f"{subject} for {label}.",
                "Status": status,
                "Priority": self.rng.choice(("Low", "Medium", "Medium", "High", "Urgent")),
                "ActivityDate": fmt_datetime(when),
            }
        )
        return task_id

    def event(self, deal: Deal, subject: str, when: datetime) -> None:
        label = deal.customer.company or f"{deal.customer.first} {deal.customer.last}"
        self.tables["Event"].append(
            {
                "Id": self.ids("Event"),
                "WhatId": deal.id,
                "OwnerId": deal.rep.id,
                "Subject": subject,
                "Description": f"Meeting with {label}: {subject.lower()}.",
                "Location": self.rng.choice(LOCATIONS),
                "StartDateTime": fmt_datetime(when),
                "DurationInMinutes": str(self.rng.choice((30, 45, 60, 90))),
                "IsAllDayEvent": fmt_bool(False),
            }
        )


def write_activities(
    deals: list[Deal], off_stage: set[str], rng: random.Random, ids: Ids
) -> dict[str, list[Row]]:
    """Task and Event rows; deals in ``off_stage`` get the planted not-started tasks."""
    tables: dict[str, list[Row]] = {"Task": [], "Event": []}
    writer = _Writer(rng, ids, tables)
    for deal in deals:
        _deal_work(writer, deal, rng, deal.id in off_stage)
    return tables


def _subject(rng: random.Random, stage: str, used: set[str]) -> str:
    options = [a for a in ACTIVITIES[stage] if not used.intersection(a)]
    activity = rng.choice(options or list(ACTIVITIES[stage]))
    subject = rng.choice(activity)
    used.update(activity)
    return subject


def _deal_work(writer: _Writer, deal: Deal, rng: random.Random, off_stage: bool) -> None:
    cycle = deal.cycle
    used: set[str] = set()

    def when(fraction: float, done: bool = True) -> datetime:
        moment = deal.created + timedelta(days=cycle * fraction, minutes=rng.randint(10, 500))
        # Work done happened before the end of the data; planned work may lie after it.
        return min(moment, latest(rng)) if done else moment

    last = min(deal.reached, 3)
    # The most advanced stage's work is often a meeting only, so reading Tasks alone misses
    # it (issue #32: "Events ignored" is a careless shortcut of the stage review).
    top = 4 if deal.outcome == "won" else last
    meeting_only = rng.random() < MEETING_ONLY_SHARE
    for k in range(last + 1):
        done = rng.randint(1, 2)
        current = deal.outcome == "open" and k == last
        if k == top and meeting_only:
            writer.event(deal, _subject(rng, STAGES[k], used), when((k + 0.5) / 5))
        else:
            for n in range(done):
                moment = when((k + n / 3) / 5)
                writer.task(deal, _subject(rng, STAGES[k], used), "Completed", moment)
        if current:
            for status in rng.sample(
                ("In Progress", "Not Started", "Not Started"), rng.randint(0, 2)
            ):
                due = when((k + 1.2) / 5, done=status == "In Progress")
                writer.task(deal, _subject(rng, STAGES[k], used), status, due)
    if deal.outcome == "won":
        if meeting_only:
            writer.event(deal, _subject_of(rng, 1, used), when(1.0))
        else:
            writer.task(deal, _subject_of(rng, 0, used), "Completed", when(0.98))
        if rng.random() < 0.5:
            writer.task(deal, _subject_of(rng, 1, used), "Completed", when(1.02))
        if rng.random() < 0.5:
            writer.task(deal, _subject_of(rng, 4, used), "Not Started", when(1.2, done=False))
    elif deal.outcome == "lost":
        writer.task(deal, _subject_of(rng, 3, used), "Completed", when(1.01))
    if rng.random() < 0.35:
        top_seen = deal.stage if deal.outcome != "lost" else min(deal.reached, 3)
        k = rng.randint(0, min(top_seen, 4))
        writer.event(deal, _subject(rng, STAGES[k], used), when((k + 0.5) / 5))
    _decoys(writer, deal, rng, used, 4 if deal.outcome != "open" else last, when)
    if off_stage:
        others = [s for s in STAGES if s != deal.recorded]
        for _ in range(rng.choice(OFF_STAGE_COUNTS)):
            stage = rng.choice(others)
            writer.task(deal, _subject(rng, stage, used), "Not Started", when(1.1, done=False))
        # Planned work of the deal's own stage beside it, most of the time: listing every
        # not-started task is a careless reading of the activity-priority question (#32).
        if rng.random() < OWN_STAGE_SHARE:
            for _ in range(rng.randint(1, 2)):
                subject = _subject(rng, deal.recorded, used)
                writer.task(deal, subject, "Not Started", when(1.1, done=False))


def _decoys(
    writer: _Writer,
    deal: Deal,
    rng: random.Random,
    used: set[str],
    reached: int,
    when: Callable[..., datetime],
) -> None:
    """Work that careless stage readings take for progress (issue #32).

    An open deal often has a task of a later stage already in progress (planned, not done:
    it does not move the deal, but counting tasks of any status, or taking the latest
    activity's stage, does); a closed deal often has an earlier stage's task done last (a
    buying-history review after the signature), so its latest activity is not its stage.
    """
    if rng.random() >= DECOY_SHARE:
        return
    if reached < 4:
        stage = STAGES[rng.randint(reached + 1, 4)]
        writer.task(deal, _subject(rng, stage, used), "In Progress", when(1.3))
    else:
        stage = STAGES[rng.randint(0, 2)]
        writer.task(deal, _subject(rng, stage, used), "Completed", when(1.05))


def latest(rng: random.Random) -> datetime:
    """A moment on the last day or two of the data: the latest anything done can be dated."""
    end = datetime(SALES_END.year, SALES_END.month, SALES_END.day)
    return end - timedelta(minutes=rng.randint(60, 2880))


def _subject_of(rng: random.Random, activity: int, used: set[str]) -> str:
    """A subject of the Closed stage's ``activity`` (0 contract, 1 kick-off, 3 win/loss, 4
    follow-up order)."""
    pair = ACTIVITIES["Closed"][activity]
    used.update(pair)
    return rng.choice(pair)
