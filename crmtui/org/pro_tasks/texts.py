"""Wording of the generated CRMArena-Pro tasks: policies, instructions, question templates.

The structure follows upstream's Pro rows (a policy block and the context Id or today's date
in ``metadata.required``, a fixed answer-format suffix per task type); every text is our own,
and where upstream leaves a convention unsaid (what counts as a sale, when a quote is invalid,
when to answer None) the text here says it, so each instance is decidable from its words and
the org.
"""

from __future__ import annotations

import re

from crmtui.org.solvers.pro.vocab import ACTIVITIES, COMPETITORS, STAGE_GOALS, STAGES, TOPICS
from crmtui.org.task_texts import DOMAIN_DETAILS

AGENT_SUFFIX = " Return only the Id of the agent."
STAGE_SUFFIX = (
    " Return only the correct stage label among ('Qualification', 'Discovery', 'Quote', "
    "'Negotiation', 'Closed')."
)
TASKS_SUFFIX = " Return only the Ids of the tasks."
CONFIG_SUFFIX = " Return only the Id of the knowledge article the configuration violates."
APPROVAL_SUFFIX = (
    " Return only the Id of the knowledge article the quote violates, or None if it violates none."
)
BANT_SUFFIX = (
    " Return only the BANT factors the lead fails to meet ('Budget', 'Authority', 'Need', "
    "'Timeline')."
)

PRO_DOMAIN_DETAILS = (
    DOMAIN_DETAILS
    + """
## Sales Records
- Agents are the Users who own records (OwnerId): service agents own cases, sales agents own \
leads, opportunities and orders.
- Opportunity stages, in order: Qualification, Discovery, Quote, Negotiation, Closed.
- A lead, an opportunity or a call belongs to a period when its CreatedDate falls in it; a \
sale belongs to the period in which its contract was signed.
- Amounts are in US dollars; discounts are percentages."""
)


#: The short Domain Details (``crmtui org build --domain-details short``): about the real
#: file's length (its rows carry about 950 characters), holding only what its text covers,
#: quarters, seasons and "past N" periods, in crmtui's words. Some instances then rest on a
#: convention the text no longer states (which purchases count, how a month is counted).
PRO_DOMAIN_DETAILS_SHORT = """# Domain Details
## Quarters of the Year
- Q1: January 1 to March 31, both days included.
- Q2: April 1 to June 30, both days included.
- Q3: July 1 to September 30, both days included.
- Q4: October 1 to December 31, both days included.
## Seasons
- Winter: December 1 to the end of February, both included; Winter 2021 starts on \
2021-12-01.
- Spring: March 1 to May 31, both days included.
- Summer: June 1 to August 31, both days included.
- Autumn/Fall: September 1 to November 30, both days included.
## Time Periods
- All dates and times are UTC.
- Past N days, weeks, months or quarters: the period of that length that ends when today \
begins; the past 2 quarters are the six months before today.
- A month with significantly more cases than other months: the month with more cases than \
every other month of the period."""
#: The Domain Details variants a Pro task set can carry.
DOMAIN_DETAILS_CHOICES = ("full", "short")


def domain_details(kind: str) -> str:
    """The Domain Details text of ``kind`` (``full`` or ``short``).

    Raises:
        ValueError: Another kind.
    """
    if kind == "full":
        return PRO_DOMAIN_DETAILS
    if kind == "short":
        return PRO_DOMAIN_DETAILS_SHORT
    raise ValueError(f"unknown Domain Details {kind!r} (choose full or short)")


def signed_words(signed_field: str) -> str:
    """Who signs the contract that dates a sale, in words with the field name."""
    if signed_field == "CompanySignedDate":
        return "signed by our company (Contract.CompanySignedDate)"
    return "signed by the customer (Contract.CustomerSignedDate)"


def sales_amount_policy(signed_field: str) -> str:
    """The sales amount policy of an org."""
    return (
        "## Sales Amount Policy\n"
        "- An agent's sales amount for a period: the total value of the opportunities the agent "
        "owns (Opportunity.OwnerId) whose contract (Opportunity.ContractID__c) was "
        f"{signed_words(signed_field)} in the period.\n"
        "- An opportunity's value: the sum of the TotalPrice of its line items "
        "(OpportunityLineItem), which is also its Amount.\n"
        "- Agents with at least one such sale in the period are compared."
    )


def sales_cycle_policy(signed_field: str) -> str:
    """The sales cycle policy of an org."""
    return (
        "## Sales Cycle Policy\n"
        "- The sales cycle of an opportunity: the number of days from the date it was created "
        "(the date part of Opportunity.CreatedDate) to the date its contract "
        f"(Opportunity.ContractID__c) was {signed_words(signed_field)}.\n"
        "- An agent's average sales cycle for a period: the average over the opportunities the "
        "agent owns whose contract was signed in the period. Agents with at least one such "
        "opportunity are compared."
    )


CONVERSION_POLICY = (
    "## Conversion Rate Policy\n"
    "- An agent's conversion rate for a period: of the leads the agent owns (Lead.OwnerId) "
    "that were created in the period, the share that were converted (IsConverted true) with a "
    "ConvertedDate inside the same period.\n"
    "- Agents with at least one lead created in the period are compared; a higher rate is "
    "better."
)

LEAD_ROUTING_POLICY = (
    "## Lead Routing Policy\n"
    "Route a new lead by applying these rules in order; a later rule only decides between the "
    "agents an earlier rule left tied.\n"
    "- Territory: the candidates are the agents associated with the territory "
    "(UserTerritory2Association) whose Description lists the lead's state.\n"
    "- Quote success: prefer the candidates with the most quotes in Status 'Accepted'; a quote "
    "counts for the agent who owns its opportunity. Count the org's whole history.\n"
    "- Workload: among those still tied, prefer the agent with the fewest open leads "
    "(Lead.OwnerId; IsConverted false and Status other than 'Closed')."
)


def activity_guide() -> str:
    """The activity-priority guide: the activities (task Subjects) of each stage."""
    lines = [
        "## Activity priority guide",
        "Each stage of an opportunity has its own activities; a task's Subject names one of "
        "them. A task belongs to the stage whose list holds its Subject.",
    ]
    for stage in STAGES:
        lines.append(f"{stage}: {STAGE_GOALS[stage]}.")
        lines += [f"    - {' / '.join(activity)}" for activity in ACTIVITIES[stage]]
    return "\n".join(lines)


CONFIG_GUIDE = (
    "## Invalid configuration guide\n"
    "- Check the quote's products and quantities (QuoteLineItem) against the knowledge "
    "articles on quoting rules."
)
APPROVAL_GUIDE = (
    "## Quote approval guide\n"
    "- Check the quote's discounts (QuoteLineItem.Discount) and its dates against the knowledge "
    "articles on quote approval."
)
BANT_GUIDE = (
    "## Lead qualification guide\n"
    "- Read the voice call transcripts with the lead (VoiceCallTranscript__c.LeadId__c) and "
    "the knowledge article on lead qualification."
)


def insight_guide() -> str:
    """How sales insight questions are counted."""
    return (
        "## Sales Insight Mining\n"
        "- Sales discussions are the voice call transcripts about an opportunity "
        "(VoiceCallTranscript__c with OpportunityId__c set); a discussion belongs to a period "
        "when its CreatedDate does.\n"
        "- Over a period, count discussions: one that names a competitor, or makes remarks of "
        "one sentiment about a subtopic, counts once for it, however often it does.\n"
        f"- Competitors: {', '.join(COMPETITORS)}.\n"
        f"- Subtopics of sales discussions: {', '.join(TOPICS)}.\n"
        "- About one opportunity: list the competitor of every mention, or the subtopic of "
        "every remark of the sentiment asked for, in the order its discussions make them "
        "(oldest first), separated by commas; one made again is listed again."
    )


def context_line(label: str, record_id: str) -> str:
    """The context Id line, in upstream's words (``- Lead Id to be considered is: ...``)."""
    return f"- {label} Id to be considered is: {record_id}"


SALES_AMOUNT_TEMPLATES = (
    "Which agent had the {adj} total sales amount {when}?",
    "{When}, which agent recorded the {adj} sales total?",
    "Identify the agent with the {adj} sales amount {when}.",
    "Who had the {adj} total sales among the agents {when}?",
)
SALES_AMOUNT_ADJ = {"max": ("highest", "largest"), "min": ("lowest", "smallest")}
SALES_CYCLE_TEMPLATES = (
    "Which agent had the {adj} average sales cycle {when}?",
    "{When}, which agent took the {adj2} on average to close deals?",
    "Identify the agent whose deals took the {adj2} on average from opening to signature {when}.",
    "Who had the {adj} average time to close opportunities {when}?",
)
SALES_CYCLE_ADJ = {"min": ("shortest", "quickest"), "max": ("longest", "slowest")}
SALES_CYCLE_ADJ2 = {"min": ("least time", "fewest days"), "max": ("most time", "most days")}
CONVERSION_TEMPLATES = (
    "Which agent had the {adj} lead conversion rate {when}?",
    "{When}, who converted leads at the {adj} rate?",
    "Identify the agent with the {adj} rate of converting leads {when}.",
    "Who had the {adj} lead conversion rate among the agents {when}?",
)
CONVERSION_ADJ = {"max": ("highest", "best"), "min": ("lowest", "worst")}


def _phrasings(*parts: tuple[str, ...]) -> tuple[str, ...]:
    """Every joining of one piece of each part, in order: many phrasings of one question from
    a few pieces (the real file words each record-based question dozens of ways)."""
    out: tuple[str, ...] = ("",)
    for part in parts:
        out = tuple(head + piece for head in out for piece in part)
    return out


#: Lead-ins a colleague puts before a question about one record.
_LEAD_INS = ("", "Quick check. ", "Could you look into this? ")

LEAD_ROUTING_QUERIES = _phrasings(
    ("", "A new lead just came in. ", "We have a fresh lead. ", "This lead has no owner yet. "),
    (
        "Which agent should this new lead be assigned to?",
        "Who should handle this lead?",
        "To which agent should we route this lead?",
        "Which agent is the right owner for this lead?",
        "Who on the sales team should take this lead?",
        "Which rep should this lead go to?",
        "Who is the best agent to work this lead?",
    ),
)
WRONG_STAGE_QUERIES = _phrasings(
    _LEAD_INS,
    (
        "Does the current stage of this opportunity match the work recorded on it?",
        "Is this opportunity in the right stage given its tasks and meetings?",
        "Is the stage name of this opportunity accurate?",
        "Does this opportunity's stage fit its activities?",
        "Is the stage recorded on this opportunity correct?",
        "Has this opportunity been given the right stage?",
        "Judging by its activities, is this opportunity at the right stage?",
    ),
    (
        " If not, what should the stage be?",
        " If not, which stage is right?",
        " If it is not, what stage should it have?",
        " If not, which stage should it be in?",
        " If not, name the correct stage.",
    ),
)
ACTIVITY_QUERIES = _phrasings(
    _LEAD_INS,
    (
        "Which 'Not Started' tasks of this opportunity",
        "Which of this opportunity's tasks that have not started yet",
        "Which not-started tasks on this opportunity",
        "Which planned tasks of this opportunity (Status 'Not Started')",
        "Which tasks of this opportunity that are still 'Not Started'",
        "Which of the deal's tasks with Status 'Not Started'",
    ),
    (
        " do not belong to its current stage?",
        " are out of step with its current stage?",
        " belong to a stage other than the one it is in?",
        " do not fit the stage the opportunity is in?",
        " are meant for a different stage?",
    ),
)
CONFIG_QUERIES = _phrasings(
    _LEAD_INS,
    (
        "Is the product configuration of this quote",
        "Is the setup of products and quantities on this quote",
        "Is the way this quote is configured",
        "Is the mix of products and quantities in this quote",
        "Is this quote's product setup, its items and amounts,",
        "Is the configuration of this quotation",
    ),
    (
        " against company policy?",
        " in breach of any of our quoting rules?",
        " in conflict with company policy?",
        " out of line with our quoting rules?",
        " against any of our rules for quotes?",
    ),
)
APPROVAL_QUERIES = _phrasings(
    _LEAD_INS,
    (
        "Can this quote be approved as it is, given its discounts and dates?",
        "Do this quote's pricing and validity comply with company policy?",
        "Are this quote's discounts and expiry within policy?",
        "Does this quote meet our approval rules?",
        "Is this quote's pricing acceptable under company policy?",
        "Do the discounts and validity period of this quote follow our rules?",
        "Would this quote pass approval, looking at its discounts and dates?",
    ),
    (
        " If not, which knowledge article does it break?",
        " If not, which article does it violate?",
        " If it does not, which knowledge article applies?",
        " If not, which policy article is it against?",
        " If there is a violation, which knowledge article is it?",
    ),
)
BANT_QUERIES = _phrasings(
    _LEAD_INS,
    (
        "Based on the calls with this lead, is the lead qualified?",
        "Should this lead be treated as qualified after the recent calls?",
        "Is this lead ready to be qualified according to our criteria?",
        "Going by the lead's recent conversations, does it qualify?",
        "After the latest discussions, can we mark this lead as qualified?",
        "Does this lead meet our qualification criteria, judging by its calls?",
        "From what the lead said on its calls, is it a qualified lead?",
    ),
    (
        " If not, which BANT factors are not met?",
        " If not, which of 'Budget', 'Authority', 'Need' or 'Timeline' fall short?",
        " If not, which factors fail?",
        " If it does not, which of the BANT criteria are missing?",
        " If not, which of Budget, Authority, Need and Timeline are the reason?",
    ),
)
INSIGHT_COMPETITOR = (
    "Which competitor was named most often in sales discussions {when}?",
    "{When}, which rival came up in the most sales discussions?",
    "Which competitor did customers bring up most in sales calls {when}?",
)
INSIGHT_TOPIC = (
    "Which subtopic drew the most {sentiment} remarks in sales discussions {when}?",
    "{When}, which subtopic of sales discussions had the most {sentiment} comments about our "
    "offer?",
    "Which subject of our sales calls was discussed {adverb} most often {when}?",
)


def _sentences(phrasings: tuple[str, ...]) -> tuple[str, ...]:
    """Phrasings whose sentences start with a capital letter."""
    return tuple(re.sub(r"(^|[.?] )([a-z])", lambda m: m[1] + m[2].upper(), t) for t in phrasings)


INSIGHT_OPP_COMPETITORS = _sentences(
    _phrasings(
        ("", "Quick check. ", "Could you look into this? ", "Before our next call: "),
        (
            "which competitors came up in the sales discussions",
            "who are we competing against, according to the sales calls",
            "which rivals did the customer mention in the calls",
            "which competing vendors were named in the sales conversations",
            "which other suppliers did the customer bring up during the sales calls",
        ),
        (" of this opportunity?", " about this opportunity?", " for this deal so far?"),
    )
)
INSIGHT_OPP_TOPICS = _sentences(
    _phrasings(
        ("", "Quick check. ", "Could you look into this? ", "Before our next call: "),
        (
            "which subtopics drew {sentiment} remarks in the sales discussions",
            "which subtopics did the customer speak about {adverb} in the calls",
            "what subtopics of the sales calls show a {sentiment} sentiment",
            "which aspects of our offer did the customer view {adverb} in the sales conversations",
            "on which subtopics was the customer {sentiment} during the sales calls",
        ),
        (" of this opportunity?", " about this opportunity?", " for this deal so far?"),
    )
)
ADVERB = {"positive": "positively", "negative": "negatively"}
