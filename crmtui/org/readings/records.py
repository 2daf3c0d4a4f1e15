"""Readings of the CRMArena-Pro types about one record: invalid config (IC), quote approval
(QAP) and lead qualification (LQ).

The quote rules are read from the org's own articles, line by line (a limit, a pair, a
companion, a discount tier, a validity period), and applied to the quote's lines; a lead's
BANT facts are read from its call transcripts, against the thresholds of the org's BANT
article. Nothing here comes from the solvers: the patterns are this module's own.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from crmtui.org.readings.pro_rows import CallRow, ProRows
from crmtui.org.readings.rows import OrgRows
from crmtui.org.readings.types import Answers, Reading, answer_key

_LIMIT = re.compile(r"^-\s*(.+?):\s*at most (\d+) units? per quote")
_LEAST = re.compile(r"^-\s*(.+?):\s*at least (\d+) units? per quote")
#: The companion article's kit clause: a companion on a quote with its product is exempt
#: from its unit limit there.
_KIT_CLAUSE = re.compile(r"companion's unit limit\b.*?\bdoes not apply", re.S)
_PAIR = re.compile(r"^-\s*(.+?) cannot be combined with (.+?)(?::|$)")
_NEEDS = re.compile(r"^-\s*(.+?) must be quoted together with (.+?)(?::|$)")
_TIER = re.compile(r"^-\s*(\d+)(?: to \d+)? units?(?: or more)?:\s*at most ([\d.]+)% off")
_DAYS = re.compile(r"no more than (\d+) days after")
#: BANT order, in which a lead's failed factors are listed.
BANT = ("Budget", "Authority", "Need", "Timeline")


@dataclass
class _Rules:
    """The quote rules one org's articles state, each with the Id of its article."""

    limits: dict[str, int] = field(default_factory=dict)
    least: dict[str, int] = field(default_factory=dict)
    kits: bool = False
    pairs: list[tuple[str, str]] = field(default_factory=list)
    needs: dict[str, str] = field(default_factory=dict)
    tiers: list[tuple[int, Fraction]] = field(default_factory=list)
    days: int | None = None
    article: dict[str, str] = field(default_factory=dict)


def _rules(pro: ProRows) -> _Rules:
    ids: dict[str, str] = {}
    for pid, name in sorted(pro.product_names.items()):
        ids.setdefault(name, pid)
    rules = _Rules()
    for article_id, text in sorted(pro.articles.items()):
        for line in (raw.strip() for raw in text.splitlines()):
            if m := _LIMIT.match(line):
                if m[1] in ids:
                    rules.limits[ids[m[1]]] = int(m[2])
                    rules.article["quantity"] = article_id
            elif m := _LEAST.match(line):
                if m[1] in ids:
                    rules.least[ids[m[1]]] = int(m[2])
                    rules.article["quantity"] = article_id
            elif m := _PAIR.match(line):
                if m[1] in ids and m[2] in ids:
                    rules.pairs.append((ids[m[1]], ids[m[2]]))
                    rules.article["exclusive"] = article_id
            elif m := _NEEDS.match(line):
                if m[1] in ids and m[2] in ids:
                    rules.needs[ids[m[1]]] = ids[m[2]]
                    rules.article["companion"] = article_id
                    rules.kits = rules.kits or bool(_KIT_CLAUSE.search(text))
            elif m := _TIER.match(line):
                rules.tiers.append((int(m[1]), Fraction(m[2])))
                rules.article["discount"] = article_id
        if rules.days is None and (m := _DAYS.search(" ".join(text.splitlines()[1:]))):
            rules.days = int(m[1])
            rules.article["validity"] = article_id
    rules.tiers.sort()
    return rules


def _cached_rules(rows: OrgRows, pro: ProRows) -> _Rules:
    key = ("pro-quote-rules", id(pro))
    if key not in rows._cache:
        rows._cache[key] = _rules(pro)
    return rows._cache[key]  # type: ignore[no-any-return]


def _broken(
    rules: _Rules,
    pro: ProRows,
    quote_id: str,
    *,
    per_line: bool = False,
    at_limit: bool = False,
    no_companion: bool = False,
) -> Answers:
    """The articles the quote breaks, as one answer (several joined), () when none.

    ``per_line``: a product's unit limit (most or least) applied to each line alone;
    ``at_limit``: a product at exactly its limit counts as breaking it (``>=`` for ``>``, and
    ``<=`` for ``<`` on a least); ``no_companion``: the companion article left out, its kit
    clause (a companion with its product is exempt from its unit limit) with it.
    """
    lines = pro.quote_lines.get(quote_id, [])
    units: Counter[str] = Counter()
    most: Counter[str] = Counter()
    for line in lines:
        if line.product:
            units[line.product] += line.quantity  # type: ignore[assignment]
            most[line.product] = max(most[line.product], line.quantity)  # type: ignore[assignment]

    def over(value: Fraction, limit: Fraction, *, edge: bool = False) -> bool:
        return value >= limit if edge else value > limit

    fewest: dict[str, int] = {}
    for line in lines:
        if line.product:
            fewest[line.product] = min(fewest.get(line.product, line.quantity), line.quantity)  # type: ignore[arg-type]
    kits = rules.kits and not no_companion
    exempt = {b for a, b in rules.needs.items() if kits and a in units}
    kinds: set[str] = set()
    counted = most if per_line else units
    if any(
        over(Fraction(counted[p]), Fraction(n), edge=at_limit)
        for p, n in rules.limits.items()
        if p in units and p not in exempt
    ):
        kinds.add("quantity")
    low = fewest if per_line else units
    if any(
        over(Fraction(n), Fraction(low[p]), edge=at_limit)
        for p, n in rules.least.items()
        if p in units
    ):
        kinds.add("quantity")
    if any(a in units and b in units for a, b in rules.pairs):
        kinds.add("exclusive")
    if not no_companion and any(a in units and b not in units for a, b in rules.needs.items()):
        kinds.add("companion")
    for line in lines:
        cap = Fraction(0)
        for fewest, percent in rules.tiers:
            if line.quantity >= fewest:
                cap = percent
        if rules.tiers and over(line.discount, cap):
            kinds.add("discount")
    created, expires = pro.quote_dates.get(quote_id, (None, None))
    if rules.days is not None and created and expires:
        held = Fraction(int((expires - created).total_seconds()))
        if over(held, Fraction(rules.days * 86_400)):
            kinds.add("validity")
    articles = sorted({rules.article[k] for k in kinds if k in rules.article})
    return (answer_key(articles),) if articles else ()


def _quote_reader(
    shortcuts: Mapping[str, Callable[[_Rules, ProRows, str], Answers]],
) -> Callable[[OrgRows, Mapping[str, Any], Mapping[str, Any]], Reading]:
    def read(rows: OrgRows, params: Mapping[str, Any], _: Mapping[str, Any]) -> Reading:
        pro = rows.pro
        if pro is None:
            raise ValueError("not a CRMArena-Pro org")
        quote_id = str(params["quote_id"])
        if quote_id not in pro.quote_dates:
            raise KeyError(quote_id)
        rules = _cached_rules(rows, pro)
        return Reading(
            _broken(rules, pro, quote_id),
            {code: how(rules, pro, quote_id) for code, how in shortcuts.items()},
        )

    return read


def _discount_article(rules: _Rules, pro: ProRows, quote_id: str) -> Answers:
    article = rules.article.get("discount")
    return (article,) if article else ()


#: Invalid config (issue #32's shortcuts): the limit per line, ``>=`` for ``>``, no companion.
read_invalid_config = _quote_reader(
    {
        "per_line": lambda r, p, q: _broken(r, p, q, per_line=True),
        "at_limit": lambda r, p, q: _broken(r, p, q, at_limit=True),
        "no_companion": lambda r, p, q: _broken(r, p, q, no_companion=True),
    }
)
read_invalid_config.__doc__ = """The articles an invalid-config quote breaks, read from the
rule articles' lines. Shortcuts ``per_line`` (each line held to the product's limit alone),
``at_limit`` (a product at its unit limit counts as over it), ``no_companion`` (the
companion rule ignored)."""
#: Quote approval: the same rules; shortcut ``discount_article``, always the discount article.
read_quote_approval = _quote_reader({"discount_article": _discount_article})
read_quote_approval.__doc__ = """The articles a quote breaks (approval and configuration
rules alike, as the gold counts them). Shortcut ``discount_article``: always the article on
discount limits."""


# --- lead qualification ---------------------------------------------------------------

_BUDGET_RULE = re.compile(r"Budget:.*?\$([\d,]+)")
_MONTHS_RULE = re.compile(r"Timeline:.*?within (\d+) months?")
_DOLLARS = re.compile(r"\$([\d,]+)")
_MONTHS = re.compile(r"\b(one|\d+) months?\b")
#: What the rep asks about each factor (the line after it is the lead's reply).
_ASKS = {
    "Budget": ("budget",),
    "Authority": ("sign off", "decide", "approve"),
    "Need": ("looking to solve", "need"),
    "Timeline": ("when are you", "hoping to buy", "timeline"),
}
#: Replies that deny authority or need (someone else decides; nothing is needed).
_NO_AUTHORITY = ("board", "manager", "partner", "parents", "not me", "have to get", "only collect")
_NO_NEED = ("don't need", "no real need", "already have", "just curious", "just browsing")


def _replies(calls: list[CallRow]) -> dict[str, str]:
    """Factor -> the lead's reply to the rep's question about it, over the lead's calls."""
    said: dict[str, str] = {}
    for call in sorted(calls, key=lambda c: (c.created is None, c.created, c.id)):
        lines = [line.partition(": ") for line in call.text.splitlines()]
        for (_, _, asked), (_, _, reply) in zip(lines, lines[1:], strict=False):
            question = asked.lower()
            if not question.endswith("?"):
                continue
            for factor, cues in _ASKS.items():
                if factor not in said and any(cue in question for cue in cues):
                    said[factor] = reply
                    break
    return said


def read_lead_qualification(
    rows: OrgRows, params: Mapping[str, Any], _: Mapping[str, Any]
) -> Reading:
    """The BANT factors a lead fails (in BANT order, one string), read from its calls.

    A factor the calls never take up is not met (the article asks for all four to be met in
    the calls). Shortcuts: ``strict_thresholds``, a budget above (not at least) the least
    and a timeline under (not within) the most months; ``missing_pass``, a factor never
    discussed counts as met (only where one is missing).
    """
    pro = rows.pro
    if pro is None:
        raise ValueError("not a CRMArena-Pro org")
    lead_id = str(params["lead_id"])
    text = next((t for t in pro.articles.values() if _BUDGET_RULE.search(t)), "")
    budget_rule, months_rule = _BUDGET_RULE.search(text), _MONTHS_RULE.search(text)
    if budget_rule is None or months_rule is None:
        raise ValueError("the org has no BANT article")
    least = int(budget_rule[1].replace(",", ""))
    most = int(months_rule[1])
    said = _replies([c for c in pro.calls if c.lead == lead_id])

    def verdict(strict: bool, missing_ok: bool) -> Answers:
        failed = []
        for factor in BANT:
            reply = said.get(factor)
            if reply is None:
                ok = missing_ok
            elif factor == "Budget":
                dollars = _DOLLARS.search(reply)
                amount = int(dollars[1].replace(",", "")) if dollars else 0
                ok = amount > least if strict else amount >= least
            elif factor == "Timeline":
                found = _MONTHS.search(reply)
                months = (1 if found[1] == "one" else int(found[1])) if found else most + 1
                ok = months < most if strict else months <= most
            else:
                cues = _NO_AUTHORITY if factor == "Authority" else _NO_NEED
                ok = not any(cue in reply.lower() for cue in cues)
            if not ok:
                failed.append(factor)
        return (", ".join(failed),) if failed else ()

    shortcuts = {"strict_thresholds": verdict(True, False)}
    if len(said) < len(BANT):
        shortcuts["missing_pass"] = verdict(False, True)
    return Reading(verdict(False, False), shortcuts)
