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
