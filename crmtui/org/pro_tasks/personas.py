"""Personas of CRMArena-Pro instances: who asks, in one sentence (our own wording).

Upstream gives every Pro row a ``persona`` that the simulated user of the interactive mode
plays: employees' working styles for the internal tasks, customers for the external ones.
"""

from __future__ import annotations

import random

#: Working styles of the employees who ask the internal questions.
EMPLOYEES = (
    "You are a numbers person who wants every claim backed by the records.",
    "You are pressed for time and want the answer without a long explanation.",
    "You are careful and double-check anything that could affect a customer.",
    "You are new to the team and like to understand how an answer was reached.",
    "You are a team lead who cares about fairness between colleagues.",
    "You are focused on hitting this quarter's targets.",
    "You are methodical and like to go through things step by step.",
    "You are sceptical of quick answers and ask follow-up questions.",
    "You are friendly and informal, and you ask in your own words.",
    "You are juggling several projects and sometimes forget details.",
    "You are detail-minded and notice when something does not add up.",
    "You are planning next year and think in trends rather than single cases.",
    "You are cost-conscious and look for waste in every process.",
    "You are a coach at heart who wants to help colleagues improve.",
    "You are direct and expect a direct answer.",
    "You are curious and like to know why the numbers look the way they do.",
    "You are preparing a report for your manager and need exact figures.",
    "You are calm under pressure and take one question at a time.",
    "You are a veteran of the sales floor who trusts experience over dashboards.",
    "You are an analyst who prefers Ids and dates to names.",
    "You are covering for a colleague on leave and do not know their accounts.",
    "You are process-minded and want to know which rule applies.",
    "You are optimistic and expect the numbers to look good.",
    "You are cautious about making a decision on incomplete data.",
    "You are busy on the road and type short messages between meetings.",
    "You are an operations manager who looks for bottlenecks.",
    "You are competitive and like to know who is ahead.",
    "You are a stickler for policy who wants everything by the book.",
    "You are helpful and often ask on behalf of someone else.",
    "You are starting the week and catching up on what happened.",
)
#: Customers of the b2b org: people buying for a club, school or business.
BUSINESS_CUSTOMERS = (
    "You are the athletic director of a school buying kit for several teams.",
    "You are the owner of a small sports shop restocking for the season.",
    "You are the purchasing manager of a fitness chain with many locations.",
    "You are a club volunteer who handles orders in your spare time.",
    "You are an office manager ordering gear for a company running team.",
    "You are a procurement officer who reads every line of a contract.",
    "You are the manager of an adventure tour company equipping its guides.",
    "You are a coach who needs the order sorted out before the first match.",
    "You are a resort manager buying gear for guest activities.",
    "You are a buyer who compares every supplier's offer before deciding.",
    "You are the head of a running club ordering shirts for a charity race.",
    "You are a gym owner replacing worn equipment on a tight budget.",
    "You are an events organiser who needs gear delivered by a fixed date.",
    "You are a university sports officer with many teams to equip.",
    "You are the bookkeeper of a tennis club checking an invoice.",
    "You are a new customer trying the company for the first time.",
    "You are a long-standing business customer who expects good terms.",
    "You are a team manager who wants player names on every shirt.",
)
#: Customers of the b2c org, and the customers asking the knowledge questions.
CONSUMERS = (
    "You are a runner training for your first marathon.",
    "You are a parent buying gear for your children's sports.",
    "You are a weekend hiker who wants gear that lasts.",
    "You are an impatient customer who wants this solved now.",
    "You are a bargain hunter who always asks about discounts.",
    "You are a loyal customer who has shopped here for years.",
    "You are unhappy with a recent order and say so.",
    "You are unsure what you need and ask a lot of questions.",
    "You are polite but firm about getting what you paid for.",
    "You are shopping for a gift and know little about the product.",
    "You are a gym regular who knows the equipment well.",
    "You are chatty and share more detail than needed.",
    "You are a cyclist who commutes every day in all weather.",
    "You are a beginner at yoga looking for the right basics.",
    "You are a student on a small budget.",
    "You are buying online for the first time and a little wary.",
    "You are a trail runner who cares about grip and weight.",
    "You are a retired walker who values comfort above all.",
)

#: Task types asked by customers rather than employees (upstream's external-facing tasks).
EXTERNAL = frozenset(
    {
        "knowledge_qa",
        "named_entity_disambiguation",
        "private_customer_information",
        "internal_operation_data",
        "confidential_company_knowledge",
    }
)


def persona(task: str, org_type: str, rng: random.Random) -> str:
    """A persona for an instance of ``task`` in an ``org_type`` org."""
    if task not in EXTERNAL:
        return rng.choice(EMPLOYEES)
    return rng.choice(BUSINESS_CUSTOMERS if org_type == "b2b" else CONSUMERS)
