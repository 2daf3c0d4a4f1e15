"""Knowledge articles: store policies, general FAQs, category guides and product care sheets.

Each article states facts in plain sentences. ``truth["kqa"]`` lists questions whose short
answers appear in exactly one article, and questions that apply an article's rule to a case
("an order of $62: does it ship free?"), which need the article read, not just found. The
policy articles hold the rules the planted conversations keep or break (see
``conversations.py``).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from crmtui.org.generator.catalog import CATEGORIES, Catalog
from crmtui.org.generator.config import COMPANY
from crmtui.org.generator.ids import IdFactory
from crmtui.org.generator.knowledge_facts import CARE, CATEGORY_GUIDES, MATERIALS
from crmtui.org.generator.reading import reading_questions

Row = dict[str, str | None]
Facts = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Policy:
    """A policy article: the rule, and question/answer facts about it."""

    key: str
    title: str
    summary: str
    body: str
    facts: tuple[tuple[str, str], ...]


POLICIES: tuple[Policy, ...] = (
    Policy(
        "refund_cap",
        "Refund Approval Limits",
        "How large a refund an agent may approve without a supervisor.",
        "Agents may approve refunds of up to $150 per case on their own. Any refund above "
        "$150 must be escalated to a supervisor for approval before it is promised to the "
        "customer.",
        (("Up to what amount can a service agent approve a refund without a supervisor?", "$150"),),
    ),
    Policy(
        "return_window",
        "Return Window",
        "When customers can return items for a refund.",
        "Unworn and unused items can be returned for a full refund within 45 days of "
        "delivery. Returns requested after 45 days are declined; agents may instead point "
        "the customer to the warranty process for defects.",
        (
            (
                "Within how many days of delivery can unworn items be returned for a refund?",
                "45 days",
            ),
        ),
    ),
    Policy(
        "store_credit",
        "Store Credit Requests",
        "Rules for issuing store credit instead of a refund.",
        "Customers who prefer store credit must request it within 60 days of the purchase "
        "date. Store credit is issued at 105% of the item price and never expires.",
        (
            ("Within how many days of purchase must store credit be requested?", "60 days"),
            ("At what percentage of the item price is store credit issued?", "105%"),
        ),
    ),
    Policy(
        "discount_cap",
        "Goodwill Discount Limits",
        "The largest goodwill discount an agent may offer.",
        "To make up for a poor experience, agents may offer a one-time goodwill discount "
        "code of at most 15% off the next order. Larger discounts are not permitted.",
        (("What is the largest goodwill discount an agent may offer?", "15%"),),
    ),
    Policy(
        "identity",
        "Customer Identity Verification",
        "What to check before discussing or changing an order.",
        "Before sharing order details or changing a shipping address, agents must verify "
        "the customer's identity with the email address on the account and the order "
        "number. Never change an address for an unverified caller.",
        (
            (
                "Which two details verify a customer's identity before an order change?",
                "The email address on the account and the order number",
            ),
        ),
    ),
    Policy(
        "safety",
        "Product Safety Escalation",
        "What to do when a customer reports an injury.",
        "If a customer reports an injury or a safety hazard caused by a product, the agent "
        "must escalate the case to the Product Safety team and set the case priority to "
        "High. Agents must not offer a replacement of the same product until the Product "
        "Safety team has reviewed the report.",
        (
            (
                "Which team handles cases where a customer reports an injury?",
                "The Product Safety team",
            ),
        ),
    ),
    Policy(
        "expedited",
        "Shipping Delay Compensation",
        "When to offer free expedited shipping.",
        "A free upgrade to expedited shipping may be offered only when an order is delayed "
        "more than 7 days past its estimated delivery date.",
        (
            (
                "How many days past the estimated delivery must an order be delayed to get free "
                "expedited shipping?",
                "More than 7 days",
            ),
        ),
    ),
    Policy(
        "warranty",
        "Footwear Warranty",
        "Coverage of manufacturing defects in footwear.",
        "Footwear is covered against manufacturing defects such as sole separation for 6 "
        "months from delivery. Claims after 6 months are outside warranty and cannot be "
        "replaced free of charge.",
        (
            (
                "How long is footwear covered against manufacturing defects?",
                "6 months from delivery",
            ),
        ),
    ),
    Policy(
        "price_adjust",
        "Price Adjustments",
        "Refunding the difference when a price drops.",
        "If the price of an item drops within 14 days of purchase, customers can ask for "
        "the difference back once. Requests after 14 days are not eligible.",
        (("Within how many days of purchase is a price adjustment possible?", "14 days"),),
    ),
    Policy(
        "cancellation",
        "Order Cancellation",
        "When an order can still be cancelled.",
        "Orders can be cancelled only before they ship. Once an order has shipped it cannot "
        "be cancelled; it must be returned after delivery instead.",
        (
            (
                "Can an order be cancelled after it has shipped?",
                "No, it must be returned after delivery",
            ),
        ),
    ),
)

FAQS: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = (
    (
        "Shipping Options and Times",
        "Standard shipping takes 5 to 7 business days and expedited shipping takes 2 business "
        "days. Orders over $75 ship free with standard shipping.",
        (
            ("How long does standard shipping take?", "5 to 7 business days"),
            ("Above what order total is standard shipping free?", "$75"),
        ),
    ),
    (
        "Where We Ship",
        f"{COMPANY} ships to the United States and Canada, covering all 50 states. Orders to "
        "Canada take 8 to 12 business days.",
        (("Which countries does the company ship to?", "The United States and Canada"),),
    ),
    (
        "Summit Rewards Loyalty Program",
        "Members of Summit Rewards earn 2 points for every dollar spent. Every 500 points can be "
        "redeemed for a $10 reward.",
        (
            ("How many Summit Rewards points are earned per dollar?", "2 points"),
            ("How many points are needed for a $10 reward?", "500 points"),
        ),
    ),
    (
        "Gift Cards",
        "Gift cards are valid for good: they never expire, and they can be used "
        "online and in stores. Lost gift cards can be replaced with the original receipt.",
        (("Do gift cards expire?", "No, they never expire"),),
    ),
    (
        "Size Exchanges",
        "Size exchanges are free within 30 days of delivery, including return shipping.",
        (("Within how many days of delivery are size exchanges free?", "30 days"),),
    ),
    (
        "Order Tracking",
        "A tracking link is emailed within 24 hours after an order ships.",
        (("How soon after shipping is the tracking link emailed?", "Within 24 hours"),),
    ),
    (
        "Student Discount",
        "Verified students receive 10% off full-price items.",
        (("What discount do verified students receive?", "10% off full-price items"),),
    ),
    (
        "Caring for Waterproof Gear",
        "Re-apply a DWR spray every 20 washes to keep waterproof gear beading water.",
        (("How often should a DWR spray be re-applied to waterproof gear?", "Every 20 washes"),),
    ),
)


def _slug(title: str, used: set[str]) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    base, n = slug, 2
    while slug in used:
        slug, n = f"{base}-{n}", n + 1
    used.add(slug)
    return slug


@dataclass
class Knowledge:
    """Articles, question/answer facts and the policy article Ids by policy key."""

    rows: list[Row]
    kqa: list[dict[str, str]]
    policy_ids: dict[str, str]


def build_knowledge(rng: random.Random, ids: IdFactory, catalog: Catalog) -> Knowledge:
    """Generate Knowledge__kav rows and the kqa question pool.

    Each kqa entry is ``{"question", "answer", "article_id", "kind"}``; ``kind`` is
    ``policy``, ``faq``, ``category`` or ``product`` for facts stated in the article, and
    ``reading`` for questions answered by applying an article's rule to the numbers in the
    question (those add ``basis``, the words of the article the answer follows from).
    """
    rows: list[Row] = []
    kqa: list[dict[str, str]] = []
    used: set[str] = set()
    policy_ids: dict[str, str] = {}

    def add(title: str, summary: str, body: str, facts: Facts, kind: str) -> str:
        article_id = ids.next()
        rows.append(
            {
                "Id": article_id,
                "FAQ_Answer__c": body,
                "Summary": summary,
                "Title": title,
                "UrlName": _slug(title, used),
                "PublishStatus": "Online",
                "Language": "en_US",
            }
        )
        kqa.extend(
            {"question": q, "answer": a, "article_id": article_id, "kind": kind} for q, a in facts
        )
        return article_id

    for policy in POLICIES:
        policy_ids[policy.key] = add(
            f"Policy: {policy.title}", policy.summary, policy.body, policy.facts, "policy"
        )
    faq_ids = {
        title: add(title, f"Frequently asked questions about {title.lower()}.", body, facts, "faq")
        for title, body, facts in FAQS
    }
    for cat in CATEGORIES:
        tech, tips = CATEGORY_GUIDES[cat.name]
        noun = cat.name.lower()
        body = f"{COMPANY} {noun} feature: {tech[0].lower() + tech[1:]}. " + " ".join(
            tip for tip, _, _ in tips
        )
        facts = ((f"What technology features do {COMPANY} {noun} have?", tech),) + tuple(
            (question, answer) for _, question, answer in tips
        )
        add(
            f"{cat.name} Technology and Care Guide",
            f"Using and caring for {noun}.",
            body,
            facts,
            "category",
        )
    for product in catalog.products:
        material = rng.choice(MATERIALS[product.base])
        care = rng.choice(CARE[product.kind])
        body = (
            f"Material: {material}. Care: {care.instruction}. The {product.name} is covered by "
            "our standard warranty."
        )
        add(
            f"{product.name} Care and Materials",
            f"Materials and care instructions for the {product.name}.",
            body,
            (
                (f"What is the {product.name} made of?", material),
                (care.question.format(name=product.name), care.answer),
            ),
            "product",
        )
    for entry in reading_questions(rng):
        source, faq = entry.pop("source", ""), entry.pop("faq", "")
        article_id = policy_ids[source] if source else faq_ids[faq]
        kqa.append({**entry, "article_id": article_id, "kind": "reading"})
    return Knowledge(rows, kqa, policy_ids)
