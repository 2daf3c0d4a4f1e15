"""The named-entity sampler: a customer asks for "the <description> I bought <interval> ago".

Split from :mod:`crmtui.org.task_samplers` (same signature as its samplers). The question's
wording is the customer's: a description of the product in their own words, an interval the
way people say it; the gold is the reference solver's answer for the purchase day the
interval points at, among the products the description fits.
"""

from __future__ import annotations

import random
import re
from datetime import date, datetime, timedelta

from crmtui.org import task_texts as texts
from crmtui.org.solvers import named_entity
from crmtui.org.solvers.common import OrderRec
from crmtui.org.solvers.periods import add_months, shift_back
from crmtui.org.task_facts import Candidate, OrgFacts

__all__ = ["sample_named_entity"]

#: Share of answered questions asked, where the org allows, about a purchase whose description
#: also fits another purchase of a day or three away (issue #32: the date must matter).
LOOSE_SHARE = 0.9


def sample_named_entity(facts: OrgFacts, rng: random.Random, want_none: bool) -> Candidate | None:
    """A customer asking for "the <description> I bought <interval> ago".

    For an answer, the interval leads back to a real Activated order of the contact's account
    holding the product described, and often the account bought something of the same kind a
    day or three before or after. Mostly (:data:`LOOSE_SHARE`) the customer's words fit that
    other purchase too ("the cushioned shoes" when they bought two pairs of cushioned shoes
    two days apart): only the day tells them apart, so reading the date loosely fails. A
    month question is kept only when the month's length matters (a month back is not 30 days
    back). For no answer, the customer is slightly off:
    they did buy it, one to three days from the day they name, or (for a month) exactly 30
    days back.
    """
    if not facts.activated_orders:
        return None
    if "loose" not in facts.cache:
        facts.cache["loose"] = [
            (order, pairs)
            for order in facts.followed_orders()
            if (pairs := _loose_kin(facts, order))
        ]
    loose = facts.cache["loose"]
    phrase: str | None = None
    product_id: str | None
    # Mostly an order holding a product of a kind the customer bought more of within three
    # days: something a reading of "about N days ago" or of the kind alone could take for it.
    if "kin" not in facts.cache:
        facts.cache["kin"] = [
            (order, kin)
            for order in facts.followed_orders()
            if (kin := _bought_with_kin(facts, order))
        ]
    kin_orders = facts.cache["kin"]
    if loose and not want_none and rng.random() < LOOSE_SHARE:
        order, pairs = rng.choice(loose)
        product_id, other = rng.choice(pairs)
        phrase = _loose_phrase(facts, product_id, other, rng)
        if phrase is None:
            return None
    elif kin_orders and rng.random() < 0.75:
        order, kin = rng.choice(kin_orders)
        product_id = rng.choice(kin)
    else:
        order = rng.choice(facts.activated_orders)
        product_id = None
    contacts = facts.contacts_by_account.get(order.account_id or "")
    items = facts.index.order_items_by_order.get(order.id)
    if not contacts or not items:
        return None
    contact_id = rng.choice(contacts)
    bought = date.fromisoformat(str(order.effective_date))
    if product_id is None:
        product_id = rng.choice(items)[1]
    if phrase is None:
        phrase = _description(facts, product_id, rng)
    if product_id is None or phrase is None:
        return None
    intervals = texts.PURCHASE_INTERVALS
    unit, count, phrasings, _ = rng.choices(intervals, weights=[i[3] for i in intervals])[0]
    if want_none and unit == "month" and rng.random() < 0.8:
        # "A month ago" read as 30 days would find it.
        today = bought + timedelta(days=30 * count)
    elif want_none:
        today = _forward(bought, unit, count) + timedelta(days=rng.choice((-3, -2, -1, 1, 2, 3)))
    else:
        today = _forward(bought, unit, count)
        if today < facts.data_start:
            return None
    if unit == "month" and _forward(today, unit, -count) == today - timedelta(days=30 * count):
        return None  # a 30-day month: the careless reading would land on the same day
    purchase = shift_back(datetime(today.year, today.month, today.day), unit, count)
    candidates = _products_fitting(facts, phrase)
    result = named_entity(facts.index, contact_id, purchase, candidates)
    query = rng.choice(texts.NAMED_ENTITY_TEMPLATES).format(item=phrase, ago=rng.choice(phrasings))
    required = f"- Contact Id interacting: {contact_id}\n{texts.today_line(today.isoformat())}"
    return Candidate(
        query + texts.PRODUCT_SUFFIX,
        required,
        result.answer,
        "named_entity",
        {
            "contact_id": contact_id,
            "purchase_date": purchase.date().isoformat(),
            "product_ids": candidates,
        },
        result.evidence,
        {"today": today.isoformat(), "phrase": phrase, "interval": [unit, count]},
        result.detail,
    )


def _bought_with_kin(facts: OrgFacts, order: OrderRec) -> list[str]:
    """Products of ``order`` whose kind (last name word) its account also bought as another
    product within three days of it."""
    day = date.fromisoformat(str(order.effective_date))
    nearby = [
        (p, facts.name_noun(p))
        for d, p in facts.purchases(order.account_id or "")
        if abs((d - day).days) <= 3
    ]
    found = []
    for _, product in facts.index.order_items_by_order.get(order.id, ()):
        noun = facts.name_noun(product or "")
        if product and any(other != product and kind == noun for other, kind in nearby):
            found.append(product)
    return found


def _loose_kin(facts: OrgFacts, order: OrderRec) -> list[tuple[str, str]]:
    """(product, other) pairs: a product of ``order`` and a product of the same kind and
    feature its account bought one to three days away, where no other product bought on the
    order's day shares that kind and feature (so the day decides, and decides alone)."""
    day = date.fromisoformat(str(order.effective_date))
    traits = _traits(facts)
    near: dict[str, list[tuple[str, frozenset[str]]]] = {}
    same_day: dict[str, list[tuple[str, frozenset[str]]]] = {}
    for d, p in facts.purchases(order.account_id or ""):
        gap = abs((d - day).days)
        if gap <= 3:
            noun, features = traits[p]
            (same_day if gap == 0 else near).setdefault(noun, []).append((p, features))
    pairs = []
    for _, product in facts.index.order_items_by_order.get(order.id, ()):
        if not product or product not in traits:
            continue
        noun, features = traits[product]
        for other, theirs in near.get(noun, ()):
            shared = features & theirs
            if other == product or not shared:
                continue
            rivals = [p for p, f in same_day.get(noun, ()) if p != product and shared & f]
            if not rivals:
                pairs.append((product, other))
    return pairs


def _traits(facts: OrgFacts) -> dict[str, tuple[str, frozenset[str]]]:
    """Product Id -> (kind noun, descriptive words of its description), computed once."""
    if "traits" not in facts.cache:
        facts.cache["traits"] = {
            p: (facts.name_noun(p), _features(facts, p)) for p in facts.product_texts
        }
    return facts.cache["traits"]  # type: ignore[no-any-return]


def _features(facts: OrgFacts, product_id: str) -> frozenset[str]:
    """Descriptive words of a product's description (its "built with" feature)."""
    words = set(_WORD.findall(facts.product_texts.get(product_id, "")))
    return frozenset(w for w in texts.DESCRIPTIVE_WORDS if w in words)


def _loose_phrase(facts: OrgFacts, product_id: str, other: str, rng: random.Random) -> str | None:
    """A description that fits both products: a feature they share, the words their kinds
    end with ("trail running shoes" and "road running shoes": "running shoes"), and who they
    are for when that is the same."""
    products = facts.truth.get("products", {})
    kinds = [
        str((products.get(p, {}).get("keywords") or ["", ""])[1]).lower().split()
        for p in (product_id, other)
    ]
    common: list[str] = []
    for a, b in zip(reversed(kinds[0]), reversed(kinds[1]), strict=False):
        if a != b:
            break
        common.insert(0, a)
    parts = common or [facts.name_noun(product_id)]
    traits = _traits(facts)
    parts.insert(0, rng.choice(sorted(traits[product_id][1] & traits[other][1])))
    genders = {facts.product_names.get(p, "").split()[0].lower() for p in (product_id, other)}
    if len(genders) == 1 and genders <= set(_GENDERS) and rng.random() < 0.5:
        parts.insert(0, genders.pop())
    phrase = " ".join(parts)
    # Never simply a piece of a product's name ("waterproof hiking shoes").
    names = [n.lower() for n in facts.product_names.values()]
    return None if any(phrase in name for name in names) else phrase


def _forward(day: date, unit: str, count: int) -> date:
    """``day`` moved ``count`` units ahead (the solver's window then steps back again)."""
    if unit == "month":
        return add_months(datetime(day.year, day.month, day.day), count).date()
    return day + timedelta(days=count * (7 if unit == "week" else 1))


_WORD = re.compile(r"[a-z0-9']+(?:-[a-z0-9']+)*")
_GENDERS = ("women's", "men's", "kids'")


def _description(facts: OrgFacts, product_id: str | None, rng: random.Random) -> str | None:
    """How a customer describes the product: its kind, sometimes who it is for, often a
    feature its description names ("women's water-repellent trail jacket"), never simply a
    piece of its name."""
    info = facts.truth.get("products", {}).get(product_id or "", {})
    name = str(info.get("name", "")).lower()
    keywords = [str(k).lower() for k in info.get("keywords", ()) if k]
    if not name or len(keywords) < 2:
        return None
    kind = keywords[1].split()  # the product's base: "trail running shoes"
    words = set(_WORD.findall(facts.product_texts.get(product_id or "", "")))
    features = [w for w in texts.DESCRIPTIVE_WORDS if w in words and w not in kind]
    gender = name.split()[0] if name.split()[0] in _GENDERS else None
    parts = list(kind)
    if features and rng.random() < 0.8:
        parts.insert(0, rng.choice(features))
    if gender and rng.random() < 0.5:
        parts.insert(0, gender)
    phrase = " ".join(parts)
    if "names" not in facts.cache:
        facts.cache["names"] = [n.lower() for n in facts.product_names.values()]
    if any(phrase in other for other in facts.cache["names"]):
        if not features or any(f in parts for f in features):
            return None
        phrase = f"{rng.choice(features)} {phrase}"
    return phrase


def _products_fitting(facts: OrgFacts, phrase: str) -> list[str]:
    """Products whose name or description holds every word the customer used."""
    if phrase in facts.keyword_hits:
        return facts.keyword_hits[phrase]
    wanted = {w for w in _WORD.findall(phrase) if w not in texts.DESCRIPTION_FILLER}
    if "product_words" not in facts.cache:
        facts.cache["product_words"] = {
            pid: frozenset(_WORD.findall(text)) for pid, text in facts.product_texts.items()
        }
    vocab: dict[str, frozenset[str]] = facts.cache["product_words"]
    facts.keyword_hits[phrase] = sorted(pid for pid, found in vocab.items() if wanted <= found)
    return facts.keyword_hits[phrase]
