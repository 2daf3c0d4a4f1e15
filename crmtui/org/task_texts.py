"""Wording of generated tasks: policies, domain details, question templates and phrases.

The structure follows upstream CRMArena (where today's date sits, the fixed answer-format
suffixes each task type appends, the ``## Given Case`` block of routing questions); the policy
texts, domain details and question phrasings are our own.
"""

from __future__ import annotations

import random
from typing import Any

AGENT_SUFFIX = " Return only the Id of the agent."
PRODUCT_SUFFIX = " Return only the Id of the product from the contact's relevant past transaction."
ARTICLE_SUFFIX = " Return only the Id of the knowledge article or None if no violation is found."
ISSUE_SUFFIX = (
    " The associated product Id is {product_id}."
    " Return only the issue Id of the most reported issue for this product."
)
MONTH_SUFFIX = " The associated product Id is {product_id}. Return only the month name."
STATE_SUFFIX = " Return only the two-letter abbreviation of the most matching state (eg. CA)."

_FIRST_OWNER_RULE = (
    "- A condition on how many cases an agent managed or handled (for example 'agents who "
    "handled more than 2 cases') counts only the cases the agent owned first, that is, cases "
    "assigned to that agent when they were opened: 'Owner Assignment' entries without a "
    "previous owner, dated in the period. Cases the agent received through a transfer do not "
    "count: an agent with 2 cases assigned at opening and 1 case taken over from a colleague "
    "has handled 2 cases, so 'more than 2 cases' leaves that agent out.\n"
)
#: CRMArena-Pro's rule for the same filter: its policy text says the filter "applies to both
#: the first agent that the case was first assigned to and the agent that the case was
#: transferred to" (our wording below).
_RECEIVED_RULE = (
    "- A condition on how many cases an agent managed or handled (for example 'agents who "
    "handled more than 2 cases') counts every case assigned to the agent in the period: the "
    "cases assigned to the agent when they were opened and the cases transferred to the agent "
    "from a colleague ('Owner Assignment' entries naming the agent as the new owner, dated in "
    "the period; a case counts once). An agent with 2 cases assigned at opening and 1 case "
    "taken over from a colleague has handled 3 cases, so 'at least 3 cases' keeps that agent.\n"
)
_HISTORY_RULE = (
    "- Case history shows transfers: a case that stayed with its first agent has exactly one "
    "'Owner Assignment' entry, while a transferred case has two or more.\n"
)

HANDLE_TIME_POLICY = (
    "## Handle Time Policy\n"
    "- Handle time of a case: how long the case stayed open, from the moment it was created "
    "until the moment it was closed.\n"
    + _FIRST_OWNER_RULE
    + "- Transferred cases are left out of handle time: an agent's average handle time is "
    "taken over the closed cases that were never passed on to another agent.\n"
    + _HISTORY_RULE
    + "- Which cases are averaged: cases created in the period that are closed, whenever they "
    "closed (also after the period or after today's date). A case whose history has more than "
    "one 'Owner Assignment' entry is a transferred case even if the transfer came after the "
    "period.\n"
)
TRANSFER_COUNT_POLICY = (
    "## Transfer Count Policy\n"
    "- Transfer count: how many times an agent handed a case over to another agent. A case "
    "moved from agent A to agent B adds one to the count of agent A, not of agent B.\n"
    + _FIRST_OWNER_RULE
    + "- A transfer belongs to the period when its 'Owner Assignment' entry is dated in the "
    "period, whenever the case itself was opened.\n"
    "- Only agents who transferred at least one case in the period are compared.\n" + _HISTORY_RULE
)
#: The two policies with CRMArena-Pro's case-count rule (cases transferred to an agent count).
PRO_HANDLE_TIME_POLICY = HANDLE_TIME_POLICY.replace(_FIRST_OWNER_RULE, _RECEIVED_RULE)
PRO_TRANSFER_COUNT_POLICY = TRANSFER_COUNT_POLICY.replace(_FIRST_OWNER_RULE, _RECEIVED_RULE)
CASE_ROUTING_POLICY = (
    "## Case Routing Policy\n"
    "Choose the agent for a new case by applying these rules in order; a later rule only "
    "decides between the agents an earlier rule left tied.\n"
    "- Issue Expertise: prefer the agent who has closed the most cases about the issue that "
    "best matches the new case.\n"
    "- Product Expertise: among those, prefer the agent who has closed the most cases about the "
    "product the new case concerns.\n"
    "- Workload: among those still tied, prefer the agent with the fewest cases whose Status "
    "is anything other than 'Closed'.\n"
    "- Counts cover the org's whole history: a case counts for the agent who owns it now "
    "(OwnerId); closed means Status 'Closed'; a case's product is the product of its order "
    "item.\n"
)
KNOWLEDGE_QA_REQUIRED = "- Answer the question briefly, using what the knowledge articles say."
ROUTING_INSTRUCTION = (
    "Apply the case routing policy to pick the most suitable agent for the given case."
    + AGENT_SUFFIX
)

DOMAIN_DETAILS = """# Domain Details
## Quarters of the Year
- Q1: from January 1 through March 31, both days included.
- Q2: from April 1 through June 30, both days included.
- Q3: from July 1 through September 30, both days included.
- Q4: from October 1 through December 31, both days included.
## Seasons
- Winter: from December 1 through the last day of February, both included. A winter is \
named after the year of its December: Winter 2021 runs from 2021-12-01 to 2022-02-28.
- Spring: from March 1 through May 31, both days included.
- Summer: from June 1 through August 31, both days included.
- Autumn/Fall: from September 1 through November 30, both days included.
## Time Periods
- All dates and times are UTC.
- Past N days, weeks, months, quarters or years: the period that ends at the start of today's \
date (00:00:00, itself not included) and begins that many units earlier at 00:00:00 \
(included). A week is 7 days; a month is a calendar month, so one month before March 31 is \
the last day of February; a quarter counts as three months, so the past 2 quarters are the \
six months before today; a year is twelve months.
- A named month, quarter or season runs from 00:00:00 of its first day up to 00:00:00 of the \
day after its last day.
- A case belongs to a period when its CreatedDate falls in it; a case history entry (an \
assignment or a transfer) belongs to the period its own CreatedDate falls in.
- Records are read as the org holds them now, including anything dated after the period or \
after today's date: a case created in the period and closed later counts as closed, with its \
real closing time.
## Case Analytics
- A product's cases: the cases whose order item (OrderItemId__c) is an order item of the \
product, whatever their status. Its most reported issue: the issue (IssueId__c) of most of \
those cases created in the period.
- A month with significantly more cases than other months: the month whose number of cases \
is higher than that of every other month in the period. Months are told apart by name only: \
when a period covers part of the same month in two years, both parts count as that month.
- How fast a state closes cases: the average of ClosedDate minus CreatedDate over the closed \
cases created in the period whose account ships to that state (Account.ShippingState). Cases \
that are not closed do not count.
## Purchases
- "Bought N days, weeks or months ago": an order whose EffectiveDate is exactly that day, \
counted back from today's date (N weeks = 7 x N days, "last week" is one week and "a \
fortnight" two; months are calendar months, as above, so "last month" from March 31 is the \
last day of February). Only Activated orders of the contact's account count.
- The customer describes the product in their own words: a product fits when every word \
they describe it with (its kind, who it is for, a feature) appears in its name or its \
description."""

_NUMBER_WORDS = (
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"),
    *("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"),
    "eighteen",
)
_ORDINALS = ("first", "second", "third", "fourth")


def number(n: int, rng: random.Random) -> str:
    """``n`` as digits or, sometimes, as an English word."""
    if n < len(_NUMBER_WORDS) and rng.random() < 0.4:
        return _NUMBER_WORDS[n]
    return str(n)


def today_line(today: str, *, heading: bool = False) -> str:
    """The today's-date line of ``metadata.required`` in either house style."""
    return f"## Today's date: {today}" if heading else f"- Today's date: {today}"


def period_phrase(period: dict[str, Any], rng: random.Random) -> str:
    """A period spec as words with a leading preposition, e.g. ``over the past 3 months``."""
    if period["kind"] == "relative":
        unit, count = period["unit"], period["count"]
        lead = rng.choice(("in the past", "over the past", "in the last", "over the last"))
        if count == 1:
            return f"{lead} {unit}"
        return f"{lead} {number(count, rng)} {unit}s"
    name, year = period["name"], period["year"]
    if name.startswith("Q"):
        ordinal = _ORDINALS[int(name[1]) - 1]
        text = rng.choice(
            (f"{name} {year}", f"{name} of {year}", f"the {ordinal} quarter of {year}")
        )
        return rng.choice(("in ", "during ")) + text
    if name in ("Winter", "Spring", "Summer", "Fall"):
        label = "autumn" if name == "Fall" and rng.random() < 0.3 else name
        text = rng.choice((f"{label} {year}", f"the {label.lower()} of {year}"))
        if text[0].islower() and not text.startswith("the"):
            text = text.capitalize()
        return rng.choice(("in ", "during ")) + text
    return rng.choice(("in ", "during ")) + f"{name} {year}"


def count_clause(n_cases: int, rng: random.Random, *, gerund: bool) -> str:
    """The agent filter: 'handled more than 2 cases' or, gerund, 'handling more than 2 cases'."""
    verbs = ("handling", "managing") if gerund else ("handled", "managed")
    verb = rng.choice(verbs)
    if n_cases == 0:
        return rng.choice((f"{verb} at least one case", f"{verb} any cases"))
    noun = "case" if n_cases == 1 else "cases"
    more = rng.choice(("more than", "over")) if not gerund else "more than"
    return f"{verb} {more} {number(n_cases, rng)} {noun}"


def capitalized(text: str) -> str:
    """``text`` with its first letter upper-cased (leaves the rest alone)."""
    return text[:1].upper() + text[1:]


HANDLE_TIME_TEMPLATES = (
    "Which agent had the {adj} average handle time {when} among agents {gerund}?",
    "{When}, which agent {past} and had the {adj} handle time?",
    "Find the agent with the {adj} handle time who {past} {when}.",
    "Who had the {adj} average handle time {when}, counting only agents who {past}?",
    "Identify the agent with the {adj} handle time {when} among those {gerund}.",
    "Among agents who {past} {when}, who had the {adj} average handle time?",
    "Determine the agent who {past} {when} and had the {adj} average handle time.",
    "{When}, find the agent with the {adj} handle time among those {gerund}.",
    "Which agent, of those who {past} {when}, had the {adj} handle time?",
    "Who was the agent with the {adj} handle time {when} among agents {gerund}?",
    "Looking at agents who {past} {when}, which one had the {adj} average handle time?",
)
HANDLE_TIME_ADJ = {"min": ("shortest", "lowest"), "max": ("longest", "highest")}

TRANSFER_COUNT_TEMPLATES = (
    "Identify the agent with the {adj} {when} among those {gerund}.",
    "Which agent had the {adj} {when} among agents who {past}?",
    "{When}, find the agent who {past} and had the {adj}.",
    "Determine the agent with the {adj} who {past} {when}.",
    "Among agents who {past} {when}, which one had the {adj}?",
    "Who had the {adj} {when}, counting only agents who {past}?",
    "Find the agent with the {adj} {when} among those {gerund}.",
    "{When}, which agent {past} and recorded the {adj}?",
    "Which of the agents who {past} {when} had the {adj}?",
)
TRANSFER_COUNT_ADJ = {
    "min": ("fewest transfers", "lowest number of transfers", "fewest case transfers"),
    "max": ("most transfers", "highest number of transfers", "most case transfers"),
}

#: Best-region questions: (how the question opens, what the states did) combined three ways.
_REGION_SUBJECTS = ("Which states", "What states", "Which US states")
_REGION_DID = (
    "closed cases the fastest",
    "had the quickest case closures",
    "resolved cases most quickly",
    "had the shortest case closure times",
    "had the fastest case resolution",
    "closed their cases in the least time",
    "showed the quickest turnaround on cases",
    "had the lowest average time to close a case",
    "saw their cases closed the quickest",
)
BEST_REGION_TEMPLATES = (
    *(f"{who} {did} {{when}}?" for who in _REGION_SUBJECTS for did in _REGION_DID),
    *(f"{{When}}, {who.lower()} {did}?" for who in _REGION_SUBJECTS[:2] for did in _REGION_DID),
    "In which states were cases closed the quickest {when}?",
    "In which states did we close cases the fastest {when}?",
    "{When}, in which states were cases resolved most quickly?",
    "Where were cases closed the fastest {when}? Name the states.",
)

TOP_ISSUE_TEMPLATES = (
    "What is the most frequent problem with the {product} {when}?",
    "What was the most commonly reported issue for {product} {when}?",
    "{When}, which problem was reported most often for the {product}?",
    "What has been the most frequent complaint about {product} {when}?",
    "Which issue came up most often with the {product} {when}?",
    "What was the top reported problem for {product} {when}?",
    "For the {product}, what was the most common issue {when}?",
    "What problem did customers report most for the {product} {when}?",
    "Which issue was raised most frequently about {product} {when}?",
    "What has been the main issue with the {product} {when}?",
)

MONTHLY_TREND_TEMPLATES = (
    "Is there a month {when} in which {product} cases were significantly higher than in "
    "other months?",
    "{When}, was there a particular month where we received significantly more cases for the "
    "{product} than in the other months?",
    "Did any single month {when} see significantly more {product} cases than the others?",
    "Is there a specific month {when} when the number of cases for {product} clearly exceeded "
    "the other months?",
    "{When}, did one month stand out with significantly more cases about the {product}?",
    "Was there a month {when} with significantly more {product} cases than any other month?",
    "Looking at {product} cases {when}, is there a month with significantly more of them "
    "than the others?",
    "Which month {when}, if any, had significantly more cases for the {product} than the "
    "other months?",
    "Is there a month {when} where cases about the {product} spiked well above the rest?",
)

NAMED_ENTITY_TEMPLATES = (
    "Can you display the {item} I purchased {ago}?",
    "Show me the {item} I bought {ago}.",
    "Display the {item} that I purchased {ago}.",
    "Could you pull up the {item} I ordered {ago}?",
    "Can you find the {item} I bought {ago}?",
    "Please look up the {item} I got {ago}.",
    "Can you show me the {item} I ordered {ago}?",
    "Retrieve the {item} I purchased {ago}.",
    "Pull up the {item} I bought {ago}, please.",
    "I'd like to see the {item} I purchased {ago}.",
    "Could you bring up the {item} that I bought {ago}?",
    "Find the {item} I ordered {ago}.",
)
#: Purchase intervals: (unit, count, ways a customer says it, weight). The weights follow how
#: often the real task file asks about each interval (about one question in six is "a month").
PURCHASE_INTERVALS: tuple[tuple[str, int, tuple[str, ...], float], ...] = (
    ("day", 3, ("3 days ago", "three days ago", "three days back", "three days earlier"), 17),
    ("day", 5, ("5 days ago", "five days ago", "five days back", "five days prior"), 19),
    (
        "week",
        1,
        ("a week ago", "last week", "one week ago", "a week back", "seven days ago"),
        25,
    ),
    (
        "week",
        2,
        ("two weeks ago", "a fortnight ago", "fourteen days ago", "14 days ago", "two weeks back"),
        22,
    ),
    ("month", 1, ("a month ago", "last month", "a month back", "one month ago"), 18),
)
#: Words from product descriptions a customer may describe a product with (each appears in
#: some product's description, see ``generator.assortment.FEATURES``).
DESCRIPTIVE_WORDS = (
    "responsive",
    "grippy",
    "breathable",
    "cushioned",
    "waterproof",
    "moisture-wicking",
    "recycled",
    "stretch",
    "flatlock",
    "water-repellent",
    "reflective",
    "durable",
    "powder-coated",
    "non-slip",
    "lightweight",
    "aluminum",
    "compact",
    "impact-resistant",
)
#: Words of a description that do not describe the product ("the new jacket").
DESCRIPTION_FILLER = frozenset({"the", "a", "an", "my", "new", "that", "for", "of", "pair"})

_POLICY_ASKS = (
    "Did the agent break company policy in this case?",
    "Was any policy breached by the agent handling this case?",
    "Did the agent act against policy here?",
    "Has the agent violated a policy in this case?",
    "Did the agent go against any of our policies in this case?",
    "Did the agent on this case breach a policy?",
    "Was a company policy broken by the agent in this case?",
    "Did the agent's handling of this case violate any policy?",
    "Did the agent break any policy while handling this case?",
)
_ARTICLE_ASKS = (
    "If so, which knowledge article was violated?",
    "If yes, which knowledge article did the agent go against?",
    "If they did, which knowledge article was broken?",
    "If so, name the knowledge article breached.",
    "If yes, which knowledge article states the policy that was broken?",
    "If they did, identify the knowledge article they breached.",
    "If so, which knowledge article's policy was not followed?",
    "If yes, which knowledge article did they contravene?",
)
POLICY_VIOLATION_TEMPLATES = tuple(f"{a} {b}" for a in _POLICY_ASKS for b in _ARTICLE_ASKS)


def routing_contact_line(contact_id: str) -> str:
    """The context line naming the customer of a new case that names its product loosely."""
    return (
        f"- The new case comes from contact {contact_id}. When its words fit several products, "
        "it is about the one among them that this customer ordered.\n"
    )


def routing_query(subject: str, description: str) -> str:
    """The full case-routing question for a new case."""
    return (
        f"{ROUTING_INSTRUCTION}\n## Given Case\n- Case Subject: {subject}\n"
        f"- Case Description: {description}"
    )
