"""Deterministic generator of crmtui's built-in sample org ("Trailpeak Outfitters").

``generate(seed, scale)`` returns every row of the 16 CRMArena objects as text, in the org
file layout, plus ``truth``: latent facts the task builder needs that the tables do not
state directly (question/answer pairs, planted policy breaches, unseen case texts).

The same seed and scale always give identical tables: all randomness flows from one
``random.Random(seed)`` and one per-instance seeded Faker.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from faker import Faker

from crmtui.data.schema import builtin_schema
from crmtui.errors import ConfigError
from crmtui.org.generator.cases import CaseRecord, build_cases, plan_cases
from crmtui.org.generator.catalog import ISSUES, Catalog, build_catalog
from crmtui.org.generator.config import COMPANY, SCALES, ScaleConfig, scale_config
from crmtui.org.generator.conversations import build_conversations, plant_policy_checks
from crmtui.org.generator.ids import IdFactory
from crmtui.org.generator.knowledge import build_knowledge
from crmtui.org.generator.orders import build_orders
from crmtui.org.generator.people import People, build_people
from crmtui.org.generator.texts import case_text

__all__ = ["COMPANY", "SCALES", "GeneratedOrg", "generate"]

Row = dict[str, str | None]


@dataclass
class GeneratedOrg:
    """A generated org: its tables (text values, org layout) and latent ground truth.

    Attributes:
        seed: Seed it was generated from.
        scale: Scale preset name.
        tables: Object name -> rows; every row has exactly ``Id`` + the object's fields.
        truth: ``company``, ``kqa``, ``pvi``, ``ncr``, ``products``, ``data_end`` (see
            :func:`generate`).
    """

    seed: int
    scale: str
    tables: dict[str, list[Row]]
    truth: dict[str, Any] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        """Rows per object."""
        return {name: len(rows) for name, rows in self.tables.items()}


def generate(
    seed: int = 7, scale: str = "small", *, config: ScaleConfig | None = None
) -> GeneratedOrg:
    """Generate the sample org.

    Args:
        seed: Any integer; the same seed and scale give identical tables.
        scale: ``small`` (default, a few thousand rows), ``full`` (the paper's volumes) or
            ``stress`` (ten times full).
        config: Volumes to use instead of the scale's preset (the CRMArena-Pro generator
            plants more compliant policy checks); ``scale`` still names the result.

    Returns:
        The tables and ``truth``::

            {"company": str,
             "kqa": [{"question", "answer", "article_id", "kind", "basis"?}],
             "pvi": [{"case_id", "article_id" (None = no breach), "evidence_ids",
                      "policy"}],                   # the policy the conversation tests
             "ncr": [{"subject", "description", "issue_id", "product_id",  # unseen cases
                      "mention", "contact_id"?}],  # how it names the product; who wrote it
             "products": {product_id: {"name", "keywords"}},
             "data_end": "YYYY-MM-DD"}                                     # last case day

    Raises:
        ConfigError: For an unknown scale or a seed that is not an integer.
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ConfigError(f"seed must be an integer, got {seed!r}")
    cfg = config if config is not None else scale_config(scale)
    rng = random.Random(seed)
    fake = Faker("en_US")
    fake.seed_instance(seed)
    schema = builtin_schema()
    ids = {obj.name: IdFactory(obj.key_prefix or "000", rng) for obj in schema}

    catalog = build_catalog(cfg, rng, ids)
    people = build_people(cfg, rng, fake, ids)
    plans = plan_cases(cfg, rng, catalog, people)
    plant_policy_checks(cfg, rng, plans)
    order_tables = build_orders(cfg, rng, ids, catalog, people, plans)
    records, case_tables = build_cases(cfg, rng, ids, catalog, people, plans)
    knowledge = build_knowledge(rng, ids["Knowledge__kav"], catalog)
    talk = build_conversations(cfg, rng, ids, records, catalog, people, knowledge.policy_ids)

    produced: dict[str, list[Row]] = {
        **catalog.tables,
        **people.tables,
        **order_tables,
        **case_tables,
        "Knowledge__kav": knowledge.rows,
        "EmailMessage": talk.emails,
        "LiveChatTranscript": talk.chats,
    }
    tables = {obj.name: produced[obj.name] for obj in schema}
    truth = {
        "company": COMPANY,
        "kqa": knowledge.kqa,
        "pvi": talk.pvi,
        "ncr": _new_cases(cfg, rng, catalog, records, people, order_tables),
        "products": {
            p.id: {"name": p.name, "keywords": list(p.keywords)} for p in catalog.products
        },
        "data_end": max(r.plan.created for r in records).date().isoformat(),
    }
    return GeneratedOrg(seed, cfg.name, tables, truth)


def _new_cases(
    cfg: ScaleConfig,
    rng: random.Random,
    catalog: Catalog,
    records: list[CaseRecord],
    people: People,
    order_tables: dict[str, list[Row]],
) -> list[dict[str, str]]:
    """Texts for cases that are not in the org, written like the org's own case texts but
    never with a subject line any org case has, so the issue cannot be looked up.

    Each names its product so that it can be told apart: by its full name, or loosely ("my
    new trail jacket") when the customer who writes it bought exactly one of the products
    the loose words fit; the entry then names that customer (``contact_id``)."""
    existing = {r.subject for r in records}
    products = catalog.products
    popularity = [p.popularity for p in products]
    buyers = _buyers(catalog, people, order_tables)
    out: list[dict[str, str]] = []
    for _ in range(cfg.task_pool * 20):
        if len(out) >= cfg.task_pool:
            break
        # Half the new cases concern a popular product, half any product at all.
        if rng.random() < 0.5:
            index = rng.choices(range(len(products)), weights=popularity)[0]
        else:
            index = rng.randrange(len(products))
        product = products[index]
        issues = list(product.issue_weights)
        issue = rng.choices(issues, weights=[product.issue_weights[i] for i in issues])[0]
        mention, contact = _mention(rng, catalog, index, buyers)
        subject, description = case_text(
            rng, ISSUES[issue][0], product.name, base=product.base, item=mention
        )
        if subject in existing:
            continue
        existing.add(subject)
        entry = {
            "subject": subject,
            "description": description,
            "issue_id": catalog.issue_ids[issue],
            "product_id": product.id,
            "mention": mention,
        }
        if contact is not None:
            entry["contact_id"] = contact
        out.append(entry)
    return out


#: Share of new cases that name their product loosely (the rest give its full name).
LOOSE_MENTION_SHARE = 0.4


def _mention(
    rng: random.Random, catalog: Catalog, index: int, buyers: dict[int, list[tuple[str, set[int]]]]
) -> tuple[str, str | None]:
    """How a new case names product ``index``, and the contact that makes a loose name
    unambiguous (None for the full name)."""
    product = catalog.products[index]
    if rng.random() < LOOSE_MENTION_SHARE:
        kind = product.base.lower().split()
        loose = " ".join(rng.choice((kind, kind[-2:])) if len(kind) > 2 else kind)
        tail = loose.split()
        fitting = {
            i
            for i, p in enumerate(catalog.products)
            if p.name.lower().split()[-len(tail) :] == tail
        }
        # A customer who bought this product and none of the others the words fit.
        only = [
            contact for contact, bought in buyers.get(index, ()) if not (bought & fitting) - {index}
        ]
        if only:
            words = loose if rng.random() < 0.6 else f"new {loose}"
            return words, rng.choice(only)
    return product.name, None


def _buyers(
    catalog: Catalog, people: People, order_tables: dict[str, list[Row]]
) -> dict[int, list[tuple[str, set[int]]]]:
    """Product index -> (contact Id, every product index the contact's account ordered)."""
    index_of = {p.id: i for i, p in enumerate(catalog.products)}
    account_contact = {c.account_id: c.contact_id for c in people.customers}
    order_account = {o["Id"]: o["AccountId"] for o in order_tables["Order"]}
    bought: dict[str, set[int]] = defaultdict(set)
    for item in order_tables["OrderItem"]:
        account = order_account.get(item["OrderId"])
        if account:
            bought[account].add(index_of[str(item["Product2Id"])])
    out: dict[int, list[tuple[str, set[int]]]] = defaultdict(list)
    for account, products in sorted(bought.items()):
        contact = account_contact.get(account)
        for index in sorted(products) if contact else ():
            out[index].append((contact, products))  # type: ignore[arg-type]
    return out
