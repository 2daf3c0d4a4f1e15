"""One sampler per task type: draw parameters, word the question, run the reference solver.

Every sampler has the signature ``(facts, rng, want_none) -> Candidate | None``. ``want_none``
only nudges the draw toward questions without an answer (shorter or later windows, larger
case-count filters); :mod:`crmtui.org.tasks` decides from the solver's answer whether the
candidate is kept. Samplers over the truth pools (KQA, PVI, NCR) draw without replacement.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from datetime import date, datetime, timedelta
from typing import Any

from crmtui.org import task_texts as texts
from crmtui.org.solvers import (
    best_region,
    case_routing,
    handle_time,
    knowledge_qa,
    monthly_trend,
    named_entity,
    policy_violation,
    top_issue,
    transfer_count,
)
from crmtui.org.solvers.common import OrderRec
from crmtui.org.solvers.periods import add_months, shift_back
from crmtui.org.task_facts import (
    PERIOD_MIXES,
    Candidate,
    OrgFacts,
    PoolExhausted,
    sample_period,
)

Sampler = Callable[[OrgFacts, random.Random, bool], Candidate | None]


def _fill(template: str, period_text: str, **fields: str) -> str:
    return template.format(when=period_text, When=texts.capitalized(period_text), **fields)


def _agent_sampler(solver_name: str) -> Sampler:
    """Sampler for handle_time / transfer_count (same parameters, different solver)."""
    is_handle = solver_name == "handle_time"
    solver = handle_time if is_handle else transfer_count
    templates = texts.HANDLE_TIME_TEMPLATES if is_handle else texts.TRANSFER_COUNT_TEMPLATES
    adjectives = texts.HANDLE_TIME_ADJ if is_handle else texts.TRANSFER_COUNT_ADJ
    policy = texts.HANDLE_TIME_POLICY if is_handle else texts.TRANSFER_COUNT_POLICY
    # Transfers are rarer than cases: a "fewest transfers" question seldom has a clear
    # answer (several agents hand on one case each).
    mix = PERIOD_MIXES["handle_time" if is_handle else "transfer_count"]
    fewest_share = 0.5 if is_handle else 0.35

    def sample(facts: OrgFacts, rng: random.Random, want_none: bool) -> Candidate:
        period, window, today = sample_period(
            facts, rng, mix, late_share=0.35 if want_none else 0.05
        )
        n_cases = rng.choice((3, 4, 5, 6)) if want_none else rng.choice((0, 1, 1, 2, 2, 3, 4))
        mode = "min" if rng.random() < fewest_share else "max"
        result = solver(facts.index, window.start, window.end, n_cases, mode)
        query = _fill(
            rng.choice(templates),
            texts.period_phrase(period, rng),
            adj=rng.choice(adjectives[mode]),
            past=texts.count_clause(n_cases, rng, gerund=False),
            gerund=texts.count_clause(n_cases, rng, gerund=True),
        )
        required = f"{policy}\n{texts.today_line(today.isoformat(), heading=True)}"
        params = {**window.as_params(), "n_cases": n_cases, "mode": mode}
        return Candidate(
            query + texts.AGENT_SUFFIX,
            required,
            result.answer,
            solver_name,
            params,
            result.evidence,
            {"today": today.isoformat(), "period": period},
            result.detail,
        )

    return sample


sample_handle_time = _agent_sampler("handle_time")
sample_transfer_count = _agent_sampler("transfer_count")


def sample_best_region(facts: OrgFacts, rng: random.Random, want_none: bool) -> Candidate:
    """A best-region question over a relative or named period."""
    period, window, today = sample_period(facts, rng, PERIOD_MIXES["best_region_identification"])
    result = best_region(facts.index, window.start, window.end)
    query = _fill(rng.choice(texts.BEST_REGION_TEMPLATES), texts.period_phrase(period, rng))
    return Candidate(
        query + texts.STATE_SUFFIX,
        texts.today_line(today.isoformat()),
        result.answer,
        "best_region",
        window.as_params(),
        result.evidence,
        {"today": today.isoformat(), "period": period},
        result.detail,
    )


def sample_top_issue(facts: OrgFacts, rng: random.Random, want_none: bool) -> Candidate:
    """A top-issue question about a product that has cases (or, for no-answer, any product)."""
    # No-answer questions may be about any product; the others about one with cases.
    product_id = (
        rng.choice(list(facts.product_names)) if want_none else facts.busy_product(rng, 0.5)
    )
    period, window, today = sample_period(
        facts,
        rng,
        PERIOD_MIXES["top_issue_identification"],
        late_share=0.3 if want_none else 0.0,
    )
    result = top_issue(facts.index, product_id, window.start, window.end)
    query = _fill(
        rng.choice(texts.TOP_ISSUE_TEMPLATES),
        texts.period_phrase(period, rng),
        product=facts.product_names[product_id],
    )
    return Candidate(
        query + texts.ISSUE_SUFFIX.format(product_id=product_id),
        texts.today_line(today.isoformat()),
        result.answer,
        "top_issue",
        {"product_id": product_id, **window.as_params()},
        result.evidence,
        {"today": today.isoformat(), "period": period},
        result.detail,
    )


def sample_monthly_trend(facts: OrgFacts, rng: random.Random, want_none: bool) -> Candidate:
    """A monthly-trend question over the past months or quarters of a product with cases."""
    product_id = facts.busy_product(rng)
    period, window, today = sample_period(facts, rng, PERIOD_MIXES["monthly_trend_analysis"])
    result = monthly_trend(facts.index, product_id, window.start, window.end)
    query = _fill(
        rng.choice(texts.MONTHLY_TREND_TEMPLATES),
        texts.period_phrase(period, rng),
        product=facts.product_names[product_id],
    )
    return Candidate(
        query + texts.MONTH_SUFFIX.format(product_id=product_id),
        texts.today_line(today.isoformat()),
        result.answer,
        "monthly_trend",
        {"product_id": product_id, **window.as_params()},
        result.evidence,
        {"today": today.isoformat(), "period": period},
        result.detail,
    )


def sample_named_entity(facts: OrgFacts, rng: random.Random, want_none: bool) -> Candidate | None:
    """A customer asking for "the <description> I bought <interval> ago".

    For an answer, the interval leads back to a real Activated order of the contact's account
    holding the product described, and often the account bought something of the same kind a
    day or three before or after. A month question is kept only when the month's length
    matters (a month back is not 30 days back). For no answer, the customer is slightly off:
    they did buy it, one to three days from the day they name, or (for a month) exactly 30
    days back.
    """
    if not facts.activated_orders:
        return None
    # Mostly an order holding a product of a kind the customer bought more of within three
    # days: something a reading of "about N days ago" or of the kind alone could take for it.
    if "kin" not in facts.cache:
        facts.cache["kin"] = [
            (order, kin)
            for order in facts.followed_orders()
            if (kin := _bought_with_kin(facts, order))
        ]
    kin_orders = facts.cache["kin"]
    if kin_orders and rng.random() < 0.75:
        order, kin = rng.choice(kin_orders)
        product_id: str | None = rng.choice(kin)
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


def pool_sampler(kind: str) -> Callable[[OrgFacts, random.Random], Sampler]:
    """Make a sampler factory over the truth pool ``kind`` (kqa, pvi or ncr).

    The factory shuffles the pool once with the given rng; the sampler then hands out entries
    in that order, raising :class:`PoolExhausted` when none is left.
    """

    def factory(facts: OrgFacts, rng: random.Random) -> Sampler:
        entries = list(facts.truth.get(kind, ()))
        rng.shuffle(entries)
        entries = _spread(entries, _pool_key(kind, facts))
        answered: Iterator[dict[str, Any]] = iter(
            [e for e in entries if kind != "pvi" or e.get("article_id")]
        )
        unanswered: Iterator[dict[str, Any]] = iter(
            [e for e in entries if kind == "pvi" and not e.get("article_id")]
        )

        def sample(facts: OrgFacts, rng: random.Random, want_none: bool) -> Candidate:
            entry = next(unanswered if want_none else answered, None)
            if entry is None:
                raise PoolExhausted(kind)
            return _POOL_BUILDERS[kind](facts, rng, entry)

        return sample

    return factory


def _kqa(facts: OrgFacts, rng: random.Random, entry: dict[str, Any]) -> Candidate:
    result = knowledge_qa(facts.truth, entry["question"])
    return Candidate(
        entry["question"],
        texts.KNOWLEDGE_QA_REQUIRED,
        result.answer,
        "knowledge_qa",
        {"question": entry["question"]},
        result.evidence,
    )


def _pvi(facts: OrgFacts, rng: random.Random, entry: dict[str, Any]) -> Candidate:
    result = policy_violation(facts.truth, entry["case_id"])
    # The articles of the policies the conversation takes up, first request first.
    context = {"policies": list(entry.get("policy_articles") or ())}
    return Candidate(
        rng.choice(texts.POLICY_VIOLATION_TEMPLATES) + texts.ARTICLE_SUFFIX,
        f"- Case Id to be considered is: {entry['case_id']}",
        result.answer,
        "policy_violation",
        {"case_id": entry["case_id"]},
        result.evidence,
        context,
    )


def _ncr(facts: OrgFacts, rng: random.Random, entry: dict[str, Any]) -> Candidate:
    result = case_routing(facts.index, entry["issue_id"], entry["product_id"])
    required = texts.CASE_ROUTING_POLICY
    if entry.get("contact_id"):
        required += texts.routing_contact_line(entry["contact_id"])
    context = {"mention": entry["mention"]} if entry.get("mention") else {}
    return Candidate(
        texts.routing_query(entry["subject"], entry["description"]),
        required,
        result.answer,
        "case_routing",
        {"issue_id": entry["issue_id"], "product_id": entry["product_id"]},
        result.evidence,
        context,
        detail=result.detail,
    )


_POOL_BUILDERS = {"kqa": _kqa, "pvi": _pvi, "ncr": _ncr}


def _pool_key(kind: str, facts: OrgFacts) -> Callable[[dict[str, Any]], Any]:
    """What makes two pool entries alike, for taking them round-robin over kinds.

    Knowledge questions spread over answers, policy checks over articles; new cases spread
    over the routing rule that decides them, so each of the three rules decides a good share
    of the routing questions (and, within a rule, over issues).
    """
    if kind == "kqa":
        return lambda e: e.get("kind") or e.get("answer")
    if kind == "pvi":
        return lambda e: e.get("article_id")

    rules: dict[tuple[str, str], Any] = {}

    def rule(entry: dict[str, Any]) -> Any:
        key = (entry["issue_id"], entry["product_id"])
        if key not in rules:
            rules[key] = case_routing(facts.index, *key).detail.get("rule")
        return rules[key]

    return rule


def _spread(
    entries: list[dict[str, Any]], key: Callable[[dict[str, Any]], Any]
) -> list[dict[str, Any]]:
    """Reorder entries round-robin over groups of alike entries, keeping order within groups."""
    groups: dict[Any, list[dict[str, Any]]] = {}
    for entry in entries:
        groups.setdefault(key(entry), []).append(entry)
    queues = list(groups.values())
    out: list[dict[str, Any]] = []
    for depth in range(max((len(q) for q in queues), default=0)):
        out.extend(q[depth] for q in queues if depth < len(q))
    return out
