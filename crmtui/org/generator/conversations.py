"""Email threads and live chat transcripts on cases, with planted policy checks.

Ordinary conversations follow every policy. A set of closed cases gets a policy check (see
``scenarios.py``): the customer makes two requests that touch a policy each, the first one
about the case's own problem (a refund, a return, a late parcel) and a second on the side (a
goodwill discount, a new address, a price drop). In about a third of them the agent breaks
the first policy, in a bit more than a third the second one while handling the first by the
book, and in the rest neither, so the policy a conversation is about is not the answer by
itself. ``truth["pvi"]`` records which.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from crmtui.org.generator.cases import CasePlan, CaseRecord
from crmtui.org.generator.catalog import ISSUES, Catalog
from crmtui.org.generator.config import (
    CASES_END,
    COMPANY,
    EMAIL_DOMAIN,
    ORDERS_START,
    ScaleConfig,
    fmt_datetime,
    spread,
)
from crmtui.org.generator.ids import IdFactory
from crmtui.org.generator.people import People
from crmtui.org.generator.scenarios import SCENARIOS

Row = dict[str, str | None]
SUPPORT = f"support@{EMAIL_DOMAIN}"

# issue -> what a (policy-abiding) agent does about it
RESOLUTIONS = {
    "Size chart mismatch": "I have emailed you a free size exchange label; the new size ships "
    "as soon as we scan the return.",
    "Wrong item received": "I have shipped the correct item today and emailed a prepaid label "
    "for the wrong one.",
    "Delayed delivery": "I checked with the carrier: your parcel is moving again and should "
    "arrive within three business days.",
    "Cancel order": "I have checked the order status and updated the order as requested.",
    "Defective zipper": "I have arranged a replacement and a prepaid label for the faulty one.",
    "Sole separation": "I have logged the defect and our warranty team will follow up by email.",
    "Color differs from photos": "I have passed your photos to our product team and emailed "
    "you a prepaid label in case you want to send it back.",
    "Damaged in transit": "I have filed a claim with the carrier and a replacement is on its way.",
    "Missing parts": "I have shipped the missing part separately; it should arrive this week.",
    "Refund not received": "I can see the refund was issued; banks can take up to 5 business "
    "days to show it.",
    "Fabric pilling": "I have recorded the quality issue and emailed you a prepaid return label.",
    "Return label request": "I have emailed you a prepaid return label.",
}
#: What the agent says instead on a case where the customer reported an injury: the safety
#: policy forbids offering a replacement before Product Safety's review, so a stock reply
#: that offers one would break the policy on a case whose planted exchange keeps it.
SAFETY_RESOLUTION = (
    "Our Product Safety team has your report; they will contact you about the next steps."
)


def resolution(record: CaseRecord, issue: str) -> str:
    """The agent's stock reply to the case's issue, kept within the case's planted policy."""
    planted = {p[0] for p in (record.plan.scenario, record.plan.second) if p is not None}
    if "safety" in planted and "replacement" in RESOLUTIONS[issue]:
        return SAFETY_RESOLUTION
    return RESOLUTIONS[issue]


FOLLOW_UPS = (
    "Thanks, that helps.",
    "Okay, I'll keep an eye on my inbox.",
    "Great, thank you for the quick answer.",
    "Got it. Anything else you need from me?",
)
AGENT_CLOSERS = (
    "Is there anything else I can help with?",
    "Please reply if anything else comes up.",
    "Thanks for your patience, and have a great day.",
)


@dataclass
class Conversations:
    """EmailMessage and LiveChatTranscript rows and the policy-check truth."""

    emails: list[Row]
    chats: list[Row]
    pvi: list[dict[str, object]]


def _take(pool: list[int], fits: Callable[[int], bool]) -> int | None:
    """Remove and return the first item of ``pool`` that ``fits``."""
    for position, item in enumerate(pool):
        if fits(item):
            return pool.pop(position)
    return None


#: Shares of planted checks where the agent breaks the first policy, the second one, neither.
OUTCOME_SHARES = (("first", 0.32), ("second", 0.38), ("neither", 0.30))
#: Second requests that follow naturally on a first one (policy key -> possible second keys).
#: At most one of the two is about time since the purchase, so one purchase date fits both.
SECOND_REQUESTS: dict[str, tuple[str, ...]] = {
    "refund_cap": ("discount_cap", "identity", "price_adjust"),
    "return_window": ("discount_cap", "identity"),
    "store_credit": ("discount_cap", "identity"),
    "discount_cap": ("refund_cap", "identity", "price_adjust", "return_window", "store_credit"),
    "identity": ("discount_cap", "refund_cap", "price_adjust"),
    "safety": ("discount_cap", "refund_cap", "identity"),
    "expedited": ("discount_cap", "identity", "refund_cap"),
    "warranty": ("discount_cap", "identity", "refund_cap"),
    "price_adjust": ("discount_cap", "identity", "refund_cap"),
    "cancellation": ("discount_cap", "identity"),
}


def _outcomes(rng: random.Random, wanted: int, breach_share: float = 0.7) -> list[str]:
    # OUTCOME_SHARES is the CRMArena sample's split (70% breaches); another breach share (the
    # CRMArena-Pro orgs plant fewer) keeps its first/second proportion.
    planted = {name: share for name, share in OUTCOME_SHARES}
    breached = planted["first"] + planted["second"]
    shares = list(OUTCOME_SHARES)
    if abs(breach_share - breached) > 1e-9:
        shares = [
            ("first", breach_share * planted["first"] / breached),
            ("second", breach_share * planted["second"] / breached),
            ("neither", 1.0 - breach_share),
        ]
    counts = [round(wanted * share) for _, share in shares]
    counts[-1] = wanted - sum(counts[:-1])
    out = [name for (name, _), n in zip(shares, counts, strict=True) for _ in range(n)]
    rng.shuffle(out)
    return out


def plant_policy_checks(cfg: ScaleConfig, rng: random.Random, plans: list[CasePlan]) -> None:
    """Choose the cases that get a policy check; set ``scenario``, ``second``, ``order_lag``.

    Runs before orders exist, because time-based scenarios fix how long before the case
    the purchase happened. ``cfg.pvi_breach_share`` of them (70% by default) break one of
    their two requests, split between the first and the second as :data:`OUTCOME_SHARES`
    splits them; first requests cycle so every policy is used.
    """
    # Old enough to be closed by the end of the data, and late enough for long purchase lags.
    latest = CASES_END - timedelta(days=60)
    pool = [i for i, plan in enumerate(plans) if plan.created.date() <= latest]
    rng.shuffle(pool)
    keys = list(SCENARIOS)
    wanted = min(cfg.pvi_cases, len(pool))
    for slot, outcome in enumerate(_outcomes(rng, wanted, cfg.pvi_breach_share)):
        # Scenarios cycle; when a small org has no fitting case left for one, the next
        # scenario in the cycle takes the slot.
        for step in range(len(keys)):
            key = keys[(slot + step) % len(keys)]
            second = rng.choice(SECOND_REQUESTS[key])
            first_breach, second_breach = outcome == "first", outcome == "second"
            # The purchase lag comes from whichever request is about time (if any).
            if SCENARIOS[key].timed or not SCENARIOS[second].timed:
                lag = SCENARIOS[key].lag(rng, first_breach)
            else:
                lag = SCENARIOS[second].lag(rng, second_breach)
            scenario = SCENARIOS[key]

            def fits(index: int, lag: int = lag, issues: frozenset[str] = scenario.fits) -> bool:
                plan = plans[index]
                early_enough = plan.created.date() - timedelta(days=lag) >= ORDERS_START
                return early_enough and ISSUES[plan.issue][0] in issues

            chosen = _take(pool, fits)
            if chosen is not None:
                channel = "chat" if rng.random() < 0.6 else "email"
                plans[chosen].scenario = (key, first_breach, channel)
                plans[chosen].second = (second, second_breach)
                plans[chosen].order_lag = lag
                break


def build_conversations(
    cfg: ScaleConfig,
    rng: random.Random,
    ids: dict[str, IdFactory],
    records: list[CaseRecord],
    catalog: Catalog,
    people: People,
    policy_ids: dict[str, str],
) -> Conversations:
    """Generate emails and chats for all cases and plant the policy scenarios."""
    planted = {
        index: record.plan.scenario
        for index, record in enumerate(records)
        if record.plan.scenario is not None and record.status == "Closed"
    }
    email_cases = sum(1 for p in planted.values() if p[2] == "email")
    counts = spread(max(cfg.emails - 4 * email_cases, 0), len(records), rng, minimum=1)
    out = Conversations([], [], [])
    visitor_ids = IdFactory("571", rng)
    for index, record in enumerate(records):
        scenario = planted.get(index)
        requests: list[tuple[str, bool]] = []
        exchanges: list[tuple[str, str]] = []
        if scenario is not None:
            product_name = catalog.products[record.plan.product].name
            order_date = record.plan.order_date or record.plan.created.date()
            days = (record.plan.created.date() - order_date).days
            requests = [scenario[:2]]
            if record.plan.second is not None:
                requests.append(record.plan.second)
            exchanges = [
                SCENARIOS[key].write(rng, product_name, breached, days)
                for key, breached in requests
            ]
        in_email = exchanges if scenario and scenario[2] == "email" else []
        in_chat = exchanges if scenario and scenario[2] == "chat" else []
        email_evidence = _emails(
            rng, ids["EmailMessage"], record, people, counts[index], in_email, out.emails
        )
        chat_evidence: list[str] = []
        if in_chat or rng.random() < cfg.chat_share:
            chat_evidence = _chat(
                rng, ids["LiveChatTranscript"], visitor_ids, record, people, in_chat, out.chats
            )
        if scenario is not None:
            channel = scenario[2]
            breached = next((key for key, broke in requests if broke), None)
            out.pvi.append(
                {
                    "case_id": record.id,
                    "article_id": policy_ids[breached] if breached else None,
                    "evidence_ids": chat_evidence if channel == "chat" else email_evidence,
                    "policy": requests[0][0],
                    "policies": [key for key, _ in requests],
                    "policy_articles": [policy_ids[key] for key, _ in requests],
                    "breached": breached,
                    "exchanges": [list(pair) for pair in exchanges],
                }
            )
    return out


def _owner_at(record: CaseRecord, when: datetime) -> int:
    owner = record.owners[0][0]
    for agent, since in record.owners:
        if since <= when:
            owner = agent
    return owner


def _emails(
    rng: random.Random,
    factory: IdFactory,
    record: CaseRecord,
    people: People,
    count: int,
    exchanges: list[tuple[str, str]],
    out: list[Row],
) -> list[str]:
    """Append the case's email thread; return the Ids of the planted exchanges' emails."""
    customer = people.customers[record.plan.customer]
    issue = ISSUES[record.plan.issue][0]
    lines: list[tuple[str, str]] = [("customer", record.description)]
    for ask, reply in exchanges:
        lines += [("customer", ask), ("agent", reply)]
    lines += [
        ("agent", resolution(record, issue)),
        ("customer", rng.choice(FOLLOW_UPS)),
        ("agent", rng.choice(AGENT_CLOSERS)),
    ]
    total = count + 2 * len(exchanges)
    while len(lines) < total:
        lines += [("customer", rng.choice(FOLLOW_UPS)), ("agent", rng.choice(AGENT_CLOSERS))]
    lines = lines[:total]
    start = record.owners[0][1]
    end = record.closed or start + timedelta(days=3)
    step = (end - start) / (len(lines) + 1)
    made: list[str] = []
    for position, (who, text) in enumerate(lines):
        when = (start + step * (position + 1)).replace(second=0, microsecond=0)
        agent_index = _owner_at(record, when)
        agent = people.agents[agent_index]
        user = people.tables["User"][agent_index]
        email_id = factory.next()
        made.append(email_id)
        subject = record.subject if position == 0 else f"Re: {record.subject}"
        if who == "customer":
            body = f"Hello,\n\n{text}\n\nThanks,\n{customer.first_name}"
            row = {"FromAddress": customer.email, "ToIds": agent.id, "ToAddress": SUPPORT}
        else:
            body = (
                f"Hi {customer.first_name},\n\n{text}\n\nBest regards,\n{agent.name}\n"
                f"{COMPANY} Customer Care"
            )
            row = {
                "FromAddress": user["Email"],
                "ToIds": customer.contact_id,
                "ToAddress": customer.email,
            }
        out.append(
            {
                "Id": email_id,
                "FromAddress": row["FromAddress"],
                "MessageDate": fmt_datetime(when),
                "ParentId": record.id,
                "Subject": subject,
                "TextBody": body,
                "ToIds": row["ToIds"],
                "ToAddress": row["ToAddress"],
            }
        )
    return made[1 : 1 + 2 * len(exchanges)]


def _chat(
    rng: random.Random,
    factory: IdFactory,
    visitors: IdFactory,
    record: CaseRecord,
    people: People,
    exchanges: list[tuple[str, str]],
    out: list[Row],
) -> list[str]:
    """Append one transcript for the case; return its Id."""
    customer = people.customers[record.plan.customer]
    started = record.owners[0][1] + timedelta(minutes=rng.randint(2, 40))
    agent = people.agents[_owner_at(record, started)]
    first = agent.name.split()[0]
    issue = ISSUES[record.plan.issue][0]
    lines = [
        f"{first}: Hi {customer.first_name}, thanks for contacting {COMPANY}. How can I help?",
        f"{customer.first_name}: {record.description}",
    ]
    for ask, reply in exchanges:
        lines += [f"{customer.first_name}: {ask}", f"{first}: {reply}"]
    if not exchanges:
        lines.append(f"{first}: {resolution(record, issue)}")
    lines += [
        f"{customer.first_name}: {rng.choice(FOLLOW_UPS)}",
        f"{first}: {rng.choice(AGENT_CLOSERS)}",
    ]
    chat_id = factory.next()
    ended = started + timedelta(minutes=rng.randint(6, 35))
    out.append(
        {
            "Id": chat_id,
            "AccountId": customer.account_id,
            "Body": f"Chat started {fmt_datetime(started)}\n" + "\n".join(lines),
            "CaseId": record.id,
            "ContactId": customer.contact_id,
            "EndTime": fmt_datetime(ended),
            "LiveChatVisitorId": visitors.next(),
            "OwnerId": agent.id,
        }
    )
    return [chat_id]
