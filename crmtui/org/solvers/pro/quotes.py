"""Quote rules (CPQ): the invalid_config and quote_approval solvers, and the rules they apply.

The rules are the org's own knowledge articles, read back from their text: three articles on
product configuration (quantity limits, products that cannot share a quote, products that need
a companion product) and two on approval (discount limits by quantity, how long a quote may
stay valid). :func:`parse_rules` reads them from ``Knowledge__kav``; :func:`violations` says
which a quote breaks; :func:`quote_policy` answers with the article a quote violates. The
generator writes the articles with :func:`rule_articles`, so what an agent reads is exactly
what the solver applies.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from fractions import Fraction

from crmtui.org.solvers.common import SolverError, SolverResult, evidence_list
from crmtui.org.solvers.pro.index import ProIndex, QuoteRec, Tables, pro_index

#: Rule kind -> the title of the article that states it.
TITLES = {
    "quantity": "Quoting Rules: Quantity Limits per Product",
    "exclusive": "Quoting Rules: Products That Cannot Share a Quote",
    "companion": "Quoting Rules: Products Sold Only With a Companion",
    "discount": "Quote Approval: Discount Limits",
    "validity": "Quote Approval: How Long a Quote Stays Valid",
}
CONFIG_KINDS = ("quantity", "exclusive", "companion")
#: The companion article's sentence that exempts a kit's companion from its unit limit.
KIT_CLAUSE = (
    " A companion quoted on the same quote as the product it completes is part of that "
    "product's kit: on that quote, the companion's unit limit in the article on quantity "
    "limits does not apply."
)
PRICING_KINDS = ("discount", "validity")

_LIMIT = re.compile(r"^- (?P<name>.+): at most (?P<n>\d+) units per quote\.?$")
_MINIMUM = re.compile(r"^- (?P<name>.+): at least (?P<n>\d+) units per quote\.?$")
#: The companion article's kit clause: a companion quoted with its product is exempt from
#: its own unit limit on that quote.
_KIT = re.compile(r"companion's unit limit .*? does not apply")
_EXCLUSIVE = re.compile(r"^- (?P<a>.+) cannot be combined with (?P<b>.+?)(?:: .*)?$")
_COMPANION = re.compile(r"^- (?P<a>.+) must be quoted together with (?P<b>.+?)(?:: .*)?$")
_TIER = re.compile(
    r"^- (?P<lo>\d+)(?: to (?P<hi>\d+))? units?(?P<more> or more)?: at most (?P<cap>[\d.]+)% off"
)
_VALIDITY = re.compile(r"no more than (?P<days>\d+) days after")


@dataclass
class QuoteRules:
    """The quote rules of one org.

    Attributes:
        limits: Product Id -> most units one quote may hold.
        minimums: Product Id -> fewest units a quote holding the product must hold.
        exclusive: Pairs of product Ids that may not share a quote.
        companions: Product Id -> the product Id it must be quoted with.
        tiers: ``(fewest units, cap in percent)`` sorted by units: a line of ``q`` units may
            be discounted by at most the cap of the last tier whose fewest units is ``<= q``.
        validity_days: Most days from a quote's CreatedDate to its ExpirationDate.
        kits: Whether a companion quoted together with the product it completes is exempt
            from its own unit limit on that quote (the companion article says so).
    """

    limits: dict[str, int] = field(default_factory=dict)
    minimums: dict[str, int] = field(default_factory=dict)
    exclusive: list[tuple[str, str]] = field(default_factory=list)
    companions: dict[str, str] = field(default_factory=dict)
    tiers: list[tuple[int, Fraction]] = field(default_factory=list)
    validity_days: int = 30
    kits: bool = False

    def exempt(self, product_id: str, present: Collection[str]) -> bool:
        """Whether ``product_id``'s unit limit does not apply on a quote holding ``present``:
        it is the companion of a product on the quote, and the kit clause holds."""
        return self.kits and any(
            b == product_id and a in present for a, b in self.companions.items()
        )

    def cap(self, quantity: Fraction) -> Fraction:
        """Largest discount (percent) allowed on a line of ``quantity`` units."""
        allowed = Fraction(0)
        for fewest, cap in self.tiers:
            if quantity >= fewest:
                allowed = cap
        return allowed


def parse_rules(index: ProIndex) -> QuoteRules:
    """Read the quote rules from the org's knowledge articles.

    Raises:
        SolverError: An article is missing or names a product the org does not have.
    """
    by_name: dict[str, str] = {}
    for pid, name in sorted(index.product_names.items()):
        by_name.setdefault(name, pid)

    def product(name: str) -> str:
        if name not in by_name:
            raise SolverError(f"a quote rule names an unknown product {name!r}")
        return by_name[name]

    def lines(kind: str) -> list[str]:
        found = index.articles.get(TITLES[kind])
        if found is None:
            raise SolverError(f"the org has no article {TITLES[kind]!r}")
        return [line.strip() for line in found[1].splitlines()]

    rules = QuoteRules()
    for line in lines("quantity"):
        if m := _LIMIT.match(line):
            rules.limits[product(m["name"])] = int(m["n"])
        elif m := _MINIMUM.match(line):
            rules.minimums[product(m["name"])] = int(m["n"])
    for line in lines("exclusive"):
        if m := _EXCLUSIVE.match(line):
            rules.exclusive.append((product(m["a"]), product(m["b"])))
    for line in lines("companion"):
        if m := _COMPANION.match(line):
            rules.companions[product(m["a"])] = product(m["b"])
    rules.kits = _KIT.search(" ".join(lines("companion"))) is not None
    for line in lines("discount"):
        if m := _TIER.match(line):
            rules.tiers.append((int(m["lo"]), Fraction(m["cap"])))
    rules.tiers.sort()
    days = _VALIDITY.search(" ".join(lines("validity")))
    if days is None:
        raise SolverError("the quote validity article states no number of days")
    rules.validity_days = int(days["days"])
    return rules


def violations(rules: QuoteRules, quote: QuoteRec) -> dict[str, list[str]]:
    """The rule kinds ``quote`` breaks, each with the Ids of the lines that break it."""
    units: Counter[str] = Counter()
    lines_of: dict[str, list[str]] = {}
    for line in quote.lines:
        if line.product_id:
            units[line.product_id] += line.quantity  # type: ignore[assignment]
            lines_of.setdefault(line.product_id, []).append(line.id)
    found: dict[str, list[str]] = {}
    for pid, limit in rules.limits.items():
        if units.get(pid, 0) > limit and not rules.exempt(pid, units):
            found.setdefault("quantity", []).extend(lines_of[pid])
    for pid, least in rules.minimums.items():
        if 0 < units.get(pid, 0) < least:
            found.setdefault("quantity", []).extend(lines_of[pid])
    for a, b in rules.exclusive:
        if a in units and b in units:
            found.setdefault("exclusive", []).extend(lines_of[a] + lines_of[b])
    for a, b in rules.companions.items():
        if a in units and b not in units:
            found.setdefault("companion", []).extend(lines_of[a])
    for line in quote.lines:
        if line.discount > rules.cap(line.quantity):
            found.setdefault("discount", []).append(line.id)
    created, expires = quote.created, quote.expires
    if created and expires and (expires - created).total_seconds() > rules.validity_days * 86_400:
        found["validity"] = []
    return found


def quote_policy(tables: Tables | ProIndex, quote_id: str) -> SolverResult:
    """The knowledge article the quote violates (a sorted list when several), or None.

    Raises:
        SolverError: No such quote, or the org's rule articles cannot be read.
    """
    index = pro_index(tables)
    quote = index.quotes.get(quote_id)
    if quote is None:
        raise SolverError(f"no quote {quote_id!r}")
    rules = index.extra.get("quote_rules")
    if rules is None:
        rules = index.extra["quote_rules"] = parse_rules(index)
    broken = violations(rules, quote)
    articles = sorted(index.articles[TITLES[kind]][0] for kind in broken)
    evidence = [quote_id, *articles, *(i for ids in broken.values() for i in ids)]
    answer: str | list[str] | None = None
    if len(articles) == 1:
        answer = articles[0]
    elif articles:
        answer = articles
    return SolverResult(answer, evidence_list(evidence), {"kinds": sorted(broken)})


def _tier_line(lo: int, hi: int | None, cap: Fraction) -> str:
    percent = f"{float(cap):g}"
    if hi is None:
        return f"- {lo} units or more: at most {percent}% off"
    if hi == lo:
        return f"- {lo} unit{'s' if lo != 1 else ''}: at most {percent}% off"
    return f"- {lo} to {hi} units: at most {percent}% off"


def rule_articles(
    rules: QuoteRules, names: dict[str, str], reasons: dict[tuple[str, str], str]
) -> dict[str, tuple[str, str]]:
    """The text of the five rule articles: kind -> (summary, body).

    Args:
        rules: The rules to state.
        names: Product Id -> product name.
        reasons: ``(a, b)`` product pair -> why the exclusive or companion rule exists.
    """
    bounds_of = [(names[pid], f"at most {n}") for pid, n in rules.limits.items()]
    bounds_of += [(names[pid], f"at least {n}") for pid, n in rules.minimums.items()]
    limits = "\n".join(f"- {name}: {bound} units per quote" for name, bound in sorted(bounds_of))
    exclusive = "\n".join(
        f"- {names[a]} cannot be combined with {names[b]}: {reasons[(a, b)]}"
        for a, b in rules.exclusive
    )
    companions = "\n".join(
        f"- {names[a]} must be quoted together with {names[b]}: {reasons[(a, b)]}"
        for a, b in rules.companions.items()
    )
    bounds = [lo for lo, _ in rules.tiers[1:]] + [None]
    tiers = "\n".join(
        _tier_line(lo, None if nxt is None else nxt - 1, cap)
        for (lo, cap), nxt in zip(rules.tiers, bounds, strict=True)
    )
    return {
        "quantity": (
            "Products that may only be quoted in limited numbers.",
            "Some products are made in small batches, so one quote may hold only so many units "
            "of them; others are made to order in runs, so a quote holding them must hold at "
            "least a few units. A quote holding more units of one of these products than its "
            "limit, or fewer than its least, is an invalid configuration. The units are those "
            "of all the quote's lines for the product together. (A companion quoted in a kit "
            "may be exempt from its limit: see the article on companion products.)"
            f"\n{limits}",
        ),
        "exclusive": (
            "Pairs of products that may not appear on the same quote.",
            "The two products of each pair below may not be on the same quote, for the reason "
            "given: a quote that holds both is an invalid configuration; quote one or the "
            f"other.\n{exclusive}",
        ),
        "companion": (
            "Products that are only sold together with another product.",
            "Each product below is only sold together with its companion, for the reason given: "
            "a quote holding it without the companion on the same quote is an invalid "
            "configuration." + KIT_CLAUSE * rules.kits + f"\n{companions}",
        ),
        "discount": (
            "How large a discount a quote line may carry, by the line's number of units.",
            "Sales representatives may discount a quote line up to the limit for its number "
            "of units (the line's Quantity). A line discounted beyond its limit needs a new "
            f"quote; it cannot be approved.\n{tiers}",
        ),
        "validity": (
            "How long quoted prices may be held for a customer.",
            f"A quote must expire no more than {rules.validity_days} days after it was created "
            "(ExpirationDate minus CreatedDate), so prices are never promised for longer. A "
            "quote valid for longer cannot be approved.",
        ),
    }
