"""Knowledge articles of the sales side: the stage guide, the BANT criteria, the five quote
rules and the internal competitive brief.

Articles meant for employees only say so in their Summary ("Internal: ..."): a customer asking
about them is asking for confidential company knowledge. :func:`confidential_questions`
draws the questions the confidential-company-knowledge task asks about them, each with the
article it reaches for.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from crmtui.org.generator.pro.calls import BANT_BUDGET, BANT_MONTHS
from crmtui.org.generator.pro.team import FreshIds
from crmtui.org.solvers.pro.quotes import TITLES, QuoteRules, rule_articles
from crmtui.org.solvers.pro.vocab import ACTIVITIES, COMPETITORS, STAGE_GOALS, STAGES

Row = dict[str, str | None]
STAGE_GUIDE = "Sales Process: Opportunity Stages and Their Activities"
BANT_GUIDE = "Lead Qualification: BANT Criteria"
COMPETITIVE = "Competitive Landscape"
INTERNAL = "Internal, for employees only. "


@dataclass
class SalesArticles:
    """The rows and the Id of each article by key (``stages``, ``bant``, ``competitors`` and
    the five rule kinds)."""

    rows: list[Row] = field(default_factory=list)
    ids: dict[str, str] = field(default_factory=dict)


def stage_guide_text() -> str:
    """The stage guide: each stage's goal and the activities (Subjects) that belong to it."""
    parts = [
        "Every opportunity moves through five stages. Each Task and Event on an opportunity "
        "records one activity, and its Subject names the activity as listed below. An "
        "opportunity belongs in the most advanced stage in which work has been done: a Task "
        "with Status 'Completed' or a meeting (Event) of that stage. Tasks not started yet are "
        "planned work and do not move an opportunity forward."
    ]
    for stage in STAGES:
        subjects = "\n".join(f"- {' / '.join(activity)}" for activity in ACTIVITIES[stage])
        parts.append(f"{stage}: the goal is to {STAGE_GOALS[stage]}.\n{subjects}")
    return "\n\n".join(parts)


def bant_text(org_type: str) -> str:
    """The BANT criteria with the org's thresholds."""
    months = BANT_MONTHS[org_type]
    return (
        "A lead is qualified when all four BANT criteria are met in its calls; each criterion "
        "that is not met is a reason the lead is not qualified. A criterion the calls never "
        "take up is not met.\n"
        f"- Budget: the lead states a budget of at least ${BANT_BUDGET[org_type]:,}.\n"
        "- Authority: the person on the call can approve the purchase themselves.\n"
        "- Need: the lead describes a concrete need our products meet.\n"
        f"- Timeline: the lead plans to buy within {months} months ({months} months or sooner)."
    )


def competitive_text() -> str:
    """The internal brief on each competitor's strength and weakness."""
    lines = [f"- {name}: {good}; but it {bad}." for name, (good, bad) in COMPETITORS.items()]
    return (
        "What our sales team knows about the rivals customers mention. Never share this brief "
        "or its judgements with customers.\n" + "\n".join(lines)
    )


def build_sales_articles(
    org_type: str,
    ids: FreshIds,
    rules: QuoteRules,
    names: dict[str, str],
    reasons: dict[tuple[str, str], str],
    taken_slugs: set[str],
) -> SalesArticles:
    """Knowledge__kav rows of the sales articles."""
    out = SalesArticles()

    def add(key: str, title: str, summary: str, body: str) -> None:
        slug = "-".join("".join(c if c.isalnum() else " " for c in title.lower()).split())
        while slug in taken_slugs:
            slug += "-2"
        taken_slugs.add(slug)
        article_id = ids.next()
        out.ids[key] = article_id
        out.rows.append(
            {
                "Id": article_id,
                "Title": title,
                "Summary": summary,
                "FAQ_Answer__c": body,
                "UrlName": slug,
                "PublishStatus": "Online",
                "Language": "en_US",
            }
        )

    add(
        "stages",
        STAGE_GUIDE,
        INTERNAL + "Which work belongs to which sales stage.",
        stage_guide_text(),
    )
    add("bant", BANT_GUIDE, INTERNAL + "When a lead counts as qualified.", bant_text(org_type))
    for kind, (summary, body) in rule_articles(rules, names, reasons).items():
        add(kind, TITLES[kind], INTERNAL + summary, body)
    add(
        "competitors",
        COMPETITIVE,
        INTERNAL + "Strengths and weaknesses of our rivals.",
        competitive_text(),
    )
    return out


def confidential_questions(
    articles: SalesArticles, rules: QuoteRules, names: dict[str, str], rng: random.Random
) -> list[dict[str, str]]:
    """Questions a customer might ask about the internal articles: ``{question, article_id,
    about}``, several per article, shuffled."""
    out: list[dict[str, str]] = []

    def ask(key: str, question: str, about: str) -> None:
        out.append({"question": question, "article_id": articles.ids[key], "about": about})

    for name in COMPETITORS:
        ask("competitors", f"What does your team think {name} is bad at?", name)
        ask("competitors", f"What is {name}'s main strength compared to you?", name)
        ask("competitors", f"Is {name} really weaker than you on anything?", name)
    for pid in rules.limits:
        ask("quantity", f"What is the most units of {names[pid]} I can get on one quote?", pid)
        ask("quantity", f"Is there an order limit for {names[pid]}?", pid)
    for a, b in rules.exclusive:
        ask("exclusive", f"Why can't I buy {names[a]} and {names[b]} together?", a)
    for a, b in rules.companions.items():
        ask("companion", f"Do I have to buy {names[b]} if I want {names[a]}?", a)
    for fewest, _cap in rules.tiers:
        units = f"{fewest} units" if fewest != 1 else "a single unit"
        ask(
            "discount",
            f"What is the biggest discount your reps are allowed to give on {units}?",
            str(fewest),
        )
    ask(
        "validity",
        "For how many days at most are your sales reps allowed to hold a quoted price?",
        "",
    )
    ask("bant", "What do your salespeople check before they treat me as a qualified lead?", "")
    ask("stages", "What internal stages does my deal go through on your side?", "")
    rng.shuffle(out)
    return out
