"""Voice call transcripts: qualification calls with leads and sales calls about deals.

Qualification calls state the BANT facts of a lead (a budget in dollars, who signs off, what
they need, in how many months they mean to buy), with the numbers close to the org's
thresholds on either side and often exactly on them, so the lead-qualification task needs the
BANT article read and applied, not guessed from tone; now and then a factor the lead fails
never comes up (not met, by the article). Sales calls carry customer remarks on subtopics
(each remark a line of :data:`~crmtui.org.solvers.pro.vocab.REMARKS`) and mentions of
competitors. Latent patterns: each subtopic leans positive or negative by its own share, and
each competitor's share of mentions drifts over the years (one rising, another fading), so
which competitor dominates depends on the period asked about.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from crmtui.org.generator.config import fmt_datetime
from crmtui.org.generator.pro.config import SALES_END, SALES_START
from crmtui.org.generator.pro.leads import DECIDING_TITLES, OTHER_TITLES, LeadRec
from crmtui.org.generator.pro.pipeline import Deal, Ids
from crmtui.org.solvers.pro.vocab import (
    BANT_FACTORS,
    COMPETITOR_LINES,
    COMPETITORS,
    CONSUMER_REMARKS,
    REMARKS,
    TOPICS,
)

Row = dict[str, str | None]

#: The BANT thresholds per org type: least budget in dollars, most months until buying.
BANT_BUDGET = {"b2b": 5_000, "b2c": 250}
BANT_MONTHS = {"b2b": 6, "b2c": 3}
#: How often each factor is the one a lead fails (upstream: Authority most, Timeline least).
FAIL_WEIGHTS = {"Budget": 26, "Authority": 34, "Need": 22, "Timeline": 18}
#: Share of failing leads that fail two factors.
TWO_FACTOR_SHARE = 0.12
#: How often a met budget or timeline sits exactly on its threshold ("at least", "within"
#: count it as met; a reading with strict thresholds fails the lead).
AT_THRESHOLD = 0.45
#: Share of failing leads whose calls never take up one failing factor (the BANT article
#: wants all four met in the calls, so a factor nobody discussed is not met).
UNASKED_SHARE = 0.3
#: The middle of the sales data in years from its start (subtopic drifts turn around it).
YEARS_MID = (SALES_END - SALES_START).days / 365.25 / 2
ACKS = (
    "Thanks, that's useful to know.",
    "Understood, I'll make a note of that.",
    "Got it.",
    "Thanks for being open about that.",
)


@dataclass
class CallPlan:
    """A lead's BANT facts and which factors they fail."""

    failed: list[str]
    budget: int
    months: int
    authority: bool
    need: bool
    call_ids: list[str] = field(default_factory=list)
    #: A failing factor the calls never take up (None: all four come up).
    unasked: str | None = None

    def facts(self) -> dict[str, object]:
        """The facts as plain values (what a simulated lead would know about itself)."""
        return {
            "budget": self.budget,
            "months": self.months,
            "authority": self.authority,
            "need": self.need,
        }


def plan_bant(org_type: str, rng: random.Random, qualified: bool) -> CallPlan:
    """Draw a lead's BANT facts: all met, or one factor failing (two now and then, as in
    about a tenth of the real file's answered rows)."""
    failed: list[str] = []
    if not qualified:
        weights = dict(FAIL_WEIGHTS)
        for _ in range(2 if rng.random() < TWO_FACTOR_SHARE else 1):
            factor = rng.choices(list(weights), list(weights.values()))[0]
            failed.append(factor)
            del weights[factor]
        failed.sort(key=list(FAIL_WEIGHTS).index)
    least, most = BANT_BUDGET[org_type], BANT_MONTHS[org_type]
    step = 100 if org_type == "b2b" else 10
    if "Budget" in failed:
        budget = least - step * rng.choice((1, 1, 2, 3, 5, 10))
    else:
        budget = least if rng.random() < AT_THRESHOLD else least + step * rng.randint(1, 30)
    if "Timeline" in failed:
        months = most + rng.choice((1, 1, 2, 3))
    else:
        months = most if rng.random() < AT_THRESHOLD else rng.randint(1, most)
    return CallPlan(failed, budget, months, "Authority" not in failed, "Need" not in failed)


def _bant_lines(
    org_type: str, plan: CallPlan, rng: random.Random, company: str | None
) -> dict[str, str]:
    us = f"we at {company}" if company else "I"
    budget = rng.choice(
        (
            f"The budget we have for this is ${plan.budget:,}.",
            f"We can spend up to ${plan.budget:,} on this order.",
            f"Realistically {us} have ${plan.budget:,} for it.",
        )
        if org_type == "b2b"
        else (
            f"My budget for this is ${plan.budget:,}.",
            f"I can spend up to ${plan.budget:,} on it.",
            f"Realistically I have ${plan.budget:,} for it.",
        )
    )
    if plan.authority:
        authority = rng.choice(
            (
                "I make the purchasing decisions here, so this is my call.",
                "I can approve an order like this myself.",
            )
            if org_type == "b2b"
            else ("It's my own money, so the decision is mine.", "I decide on this myself.")
        )
    else:
        authority = rng.choice(
            (
                "I would have to take this to our board; they decide on purchases.",
                "I'm only collecting options, my manager makes the decision.",
            )
            if org_type == "b2b"
            else (
                "My partner decides on purchases like this, not me.",
                "I'd have to get my parents to agree, they are paying.",
            )
        )
    b2b = org_type == "b2b"
    if plan.need:
        need = rng.choice(
            (
                "We need new kit before the season starts.",
                "Our current gear is worn out and has to be replaced.",
                "We are starting a new programme and have nothing for it yet.",
            )
            if b2b
            else (
                "I need proper gear before my first race in the spring.",
                "My old shoes are worn through, so I have to replace them.",
                "I'm taking up hiking and own nothing for it yet.",
            )
        )
    else:
        need = rng.choice(
            (
                "Honestly we don't need anything at the moment; I'm just curious.",
                "We are well stocked, so there is no real need right now.",
            )
            if b2b
            else (
                "Honestly I don't need anything right now; I'm just browsing.",
                "I already have all the gear I need at the moment.",
            )
        )
    months = "one month" if plan.months == 1 else f"{plan.months} months"
    timeline = rng.choice(
        (
            f"We plan to place the order in {months}.",
            f"We'd be ready to buy {months} from now.",
        )
        if b2b
        else (
            f"I'm planning to buy in {months}.",
            f"I'd be ready to order {months} from now.",
        )
    )
    return {"Budget": budget, "Authority": authority, "Need": need, "Timeline": timeline}


def qualification_calls(
    org_type: str,
    lead: LeadRec,
    rep_name: str,
    plan: CallPlan,
    rng: random.Random,
    ids: Ids,
    body_field: str,
) -> list[Row]:
    """One or two calls in which ``lead`` states its BANT facts (all but, now and then, one
    it fails: that factor never comes up)."""
    said = _bant_lines(org_type, plan, rng, lead.company)
    factors = list(BANT_FACTORS)
    rng.shuffle(factors)
    if plan.failed and rng.random() < UNASKED_SHARE:
        plan.unasked = rng.choice(plan.failed)
        factors.remove(plan.unasked)
    parts = [factors] if rng.random() < 0.5 else [factors[:2], factors[2:]]
    rows = []
    when = lead.created + timedelta(days=rng.randint(1, 6), minutes=rng.randint(0, 300))
    rep, them = rep_name.split()[0], lead.first
    who = f"{lead.first} {lead.last}" + (f" ({lead.title}, {lead.company})" if lead.company else "")
    for part in parts:
        lines = [
            f"Qualification call with {who}, by {rep_name}.",
            f"{rep}: Hi {them}, thanks for making time.",
        ]
        lines.append(f"{them}: Sure, happy to talk about the order.")
        for factor in part:
            lines.append(f"{rep}: {_question(factor)}")
            lines.append(f"{them}: {said[factor]}")
        lines.append(f"{rep}: Thanks, I'll be in touch.")
        rows.append(
            _call_row(
                ids, when, lead_id=lead.id, opp_id=None, text=lines, field=body_field, rng=rng
            )
        )
        when += timedelta(days=rng.randint(3, 12))
    plan.call_ids = [str(r["Id"]) for r in rows]
    return rows


def _question(factor: str) -> str:
    return {
        "Budget": "What budget do you have in mind?",
        "Authority": "Who would sign off on the purchase?",
        "Need": "What are you looking to solve?",
        "Timeline": "When are you hoping to buy?",
    }[factor]


def intro_call(lead: LeadRec, rep_name: str, rng: random.Random, ids: Ids, body_field: str) -> Row:
    """A short first call that only sets up the next conversation."""
    rep, them = rep_name.split()[0], lead.first
    lines = [
        f"Introductory call with {lead.first} {lead.last}, by {rep_name}.",
        f"{rep}: Hi {them}, I'm following up on your enquiry.",
        f"{them}: Thanks. Could you send me your catalogue first?",
        f"{rep}: Of course, I'll email it today and call again next week.",
    ]
    when = lead.created + timedelta(days=rng.randint(0, 3), minutes=rng.randint(30, 400))
    return _call_row(ids, when, lead_id=lead.id, opp_id=None, text=lines, field=body_field, rng=rng)


@dataclass
class Market:
    """Latent traits of the sales conversations of one org."""

    negative: dict[str, float]
    base: dict[str, float]
    slope: dict[str, float]
    #: Per subtopic, how its share of negative remarks moves per year (so the most praised
    #: or criticised subtopic of a period is often not the all-time one).
    drift: dict[str, float] = field(default_factory=dict)

    def negative_share(self, topic: str, day: date) -> float:
        """The share of negative remarks on ``topic`` on ``day``."""
        years = (day - SALES_START).days / 365.25
        share = self.negative[topic] + self.drift.get(topic, 0.0) * (years - YEARS_MID)
        return min(0.95, max(0.05, share))

    def competitor_weights(self, day: date) -> list[float]:
        """Each competitor's share of mentions on ``day`` (unnormalised)."""
        years = (day - SALES_START).days / 365.25
        return [self.base[c] * math.exp(self.slope[c] * years) for c in COMPETITORS]


def draw_market(rng: random.Random) -> Market:
    """Draw the subtopics' negative shares and the competitors' drifts."""
    names = list(COMPETITORS)
    slopes = [rng.uniform(-0.1, 0.1) for _ in names]
    rising, fading = rng.sample(range(len(names)), 2)
    # Steep: the competitor of a period is often not the all-time one (issue #32).
    slopes[rising], slopes[fading] = rng.uniform(0.5, 0.8), rng.uniform(-0.8, -0.5)
    negative = {t: rng.uniform(0.1, 0.8) for t in TOPICS}
    # Drawn apart from the org's stream (seeded by what was drawn), so the rest of the org is
    # the same as without drifts.
    local = random.Random(repr(sorted(negative.items())))
    return Market(
        negative=negative,
        base={c: rng.uniform(0.6, 1.6) for c in names},
        slope=dict(zip(names, slopes, strict=True)),
        drift={t: local.choice((-1, 1)) * local.uniform(0.08, 0.2) for t in TOPICS},
    )


def sales_calls(
    deal: Deal, market: Market, rng: random.Random, ids: Ids, body_field: str
) -> list[Row]:
    """One to three calls about ``deal``, spread over its life so far."""
    end = min(deal.created.date() + timedelta(days=deal.cycle), SALES_END - timedelta(days=1))
    span = max(1, (end - deal.created.date()).days)
    rep = deal.rep.name.split()[0]
    c = deal.customer
    rows = []
    names = list(COMPETITORS)
    for _ in range(rng.choice((1, 1, 2, 2, 3))):
        when = deal.created + timedelta(days=rng.randint(0, span), minutes=rng.randint(0, 480))
        lines = [f"Sales call about {c.company or c.first + ' ' + c.last}, by {deal.rep.name}."]
        lines.append(f"{rep}: Thanks for joining, {c.first}. How is the offer looking to you?")
        for topic in rng.sample(TOPICS, rng.randint(2, 3)):
            negative = market.negative_share(topic, when.date())
            sentiment = "negative" if rng.random() < negative else "positive"
            said = (REMARKS if c.company else CONSUMER_REMARKS)[(topic, sentiment)]
            lines.append(f"{c.first}: {rng.choice(said)}")
            lines.append(f"{rep}: {rng.choice(ACKS)}")
        mentions = rng.choice((0, 1, 1, 1, 2))
        weights = market.competitor_weights(when.date())
        for name in _distinct(rng, names, weights, mentions):
            lines.append(f"{c.first}: {rng.choice(COMPETITOR_LINES).format(name=name)}")
            lines.append(f"{rep}: {rng.choice(ACKS)}")
        lines.append(f"{rep}: I'll send a summary by email after this call.")
        rows.append(
            _call_row(
                ids, when, lead_id=None, opp_id=deal.id, text=lines, field=body_field, rng=rng
            )
        )
    return rows


def _distinct(rng: random.Random, names: list[str], weights: list[float], k: int) -> list[str]:
    picked: list[str] = []
    while len(picked) < k:
        name = rng.choices(names, weights=weights)[0]
        if name not in picked:
            picked.append(name)
    return picked


def _call_row(
    ids: Ids,
    when: datetime,
    *,
    lead_id: str | None,
    opp_id: str | None,
    text: list[str],
    field: str,
    rng: random.Random,
) -> Row:
    return {
        "Id": ids("VoiceCallTranscript__c"),
        "CreatedDate": fmt_datetime(when),
        "EndTime__c": fmt_datetime(when + timedelta(minutes=rng.randint(6, 40))),
        "LeadId__c": lead_id,
        "OpportunityId__c": opp_id,
        field: "\n".join(text),
    }


def lead_title(plan: CallPlan, rng: random.Random) -> str:
    """A b2b lead's job title that agrees with what they say about signing off."""
    return rng.choice(DECIDING_TITLES if plan.authority else OTHER_TITLES)
