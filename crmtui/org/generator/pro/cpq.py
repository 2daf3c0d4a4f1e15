"""Quote rules (CPQ): drawing an org's rules, keeping ordinary quotes within them, and planting
the one violation a quote-approval instance asks about (an invalid-config instance's quote is
made in :mod:`.misconfig`).

The rules themselves, their articles and the check of a quote live with the solver
(:mod:`crmtui.org.solvers.pro.quotes`); this module only makes data that obeys or breaks them.
Ordinary quotes sit on the rules' edges now and then (a line at exactly its quantity limit or
discount cap, a quote valid for exactly the longest period), so telling a compliant quote from
a violating one takes reading the numbers, not noticing that something is near a limit.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction

from crmtui.org.solvers.pro.quotes import QuoteRules

#: Discount tiers (fewest units, cap in percent) and the longest validity, per org type.
TIERS = {
    "b2b": [(1, Fraction(10)), (50, Fraction(15)), (200, Fraction(20))],
    "b2c": [(1, Fraction(5)), (2, Fraction(10)), (4, Fraction(15))],
}
VALIDITY_DAYS = {"b2b": 30, "b2c": 14}
#: Share of the products in no pair rule and without a most that have a least, and the
#: leasts drawn (b2b team orders are made in runs; b2c products sold in twos and threes).
LEAST_SHARE = 0.15
LEASTS = {"b2b": (6, 8, 10, 12, 20, 24), "b2c": (2, 2, 3)}
#: Share of a compliant quote's limited products quoted at exactly their limit.
AT_LIMIT_SHARE = 0.5

EXCLUSIVE_REASONS = (
    "a supplier agreement forbids selling the two on one order",
    "both are made on one production line that cannot fill both for one order",
    "the second is being phased in to replace the first",
)
COMPANION_REASONS = (
    "the two are sold as one kit under a supplier agreement",
    "the first is only offered as part of a bundle with the second",
    "a sponsorship agreement ties the first to the second",
)


@dataclass
class Line:
    """One planned quote line: product, units, discount in percent."""

    product_id: str
    quantity: int
    discount: Fraction


def make_rules(
    products: list[tuple[str, str, str]], org_type: str, rng: random.Random
) -> tuple[QuoteRules, dict[tuple[str, str], str]]:
    """Draw an org's quote rules over ``products`` (Id, name, category), with the reasons the
    exclusive and companion rules give. A product takes part in at most one pair rule, so
    keeping to one rule never breaks another; a least goes only to products in no pair rule
    and without a most."""
    by_name: dict[str, int] = {}
    for _, name, _ in products:
        by_name[name] = by_name.get(name, 0) + 1
    # A rule names a product by its name, so only products whose name is unique are used.
    usable = [p for p in products if by_name[p[1]] == 1]
    rng.shuffle(usable)
    rules = QuoteRules(tiers=list(TIERS[org_type]), validity_days=VALIDITY_DAYS[org_type])
    reasons: dict[tuple[str, str], str] = {}
    paired: set[str] = set()
    n_pairs = max(3, len(usable) // 12)
    # Products that replace each other: the same model for men and women first (Men's and
    # Women's Racing Flats), then products of one category.
    groups: dict[str, list[str]] = {}
    for pid, name, _ in usable:
        groups.setdefault(_model(name), []).append(pid)
    for pid, _, category in usable:
        groups.setdefault(f"category:{category}", []).append(pid)
    for members in groups.values():
        if len(rules.exclusive) >= n_pairs:
            break
        free = [p for p in members if p not in paired]
        if len(free) >= 2:
            a, b = free[0], free[1]
            rules.exclusive.append((a, b))
            reasons[(a, b)] = rng.choice(EXCLUSIVE_REASONS)
            paired.update((a, b))
    free = [p for p, _, _ in usable if p not in paired]
    for a, b in zip(free[: 2 * n_pairs : 2], free[1 : 2 * n_pairs : 2], strict=False):
        rules.companions[a] = b
        reasons[(a, b)] = rng.choice(COMPANION_REASONS)
        paired.update((a, b))
    for pid, _, _ in usable:
        if rng.random() < 0.35:
            if org_type == "b2b":
                rules.limits[pid] = rng.choice(range(40, 310, 10))
            else:
                rules.limits[pid] = rng.randint(2, 6)
    for pid, _, _ in usable:
        if pid not in rules.limits and pid not in paired and rng.random() < LEAST_SHARE:
            rules.minimums[pid] = rng.choice(LEASTS[org_type])
    # A kit's companion is exempt from its unit limit (the companion article says so): at
    # least one companion has a limit, so some kit can go over it.
    rules.kits = True
    companions = list(rules.companions.values())
    if companions and not any(b in rules.limits for b in companions):
        rules.limits[companions[0]] = 60 if org_type == "b2b" else 3
    return rules, reasons


def _model(name: str) -> str:
    """A product's model: its name without the Men's/Women's in front."""
    for prefix in ("Men's ", "Women's "):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def comply(lines: list[Line], rules: QuoteRules, rng: random.Random) -> list[Line]:
    """``lines`` changed as little as needed to obey every rule, sometimes landing on a limit."""
    out: list[Line] = []
    seen: set[str] = set()
    for line in lines:
        if line.product_id not in seen:
            seen.add(line.product_id)
            out.append(line)
    for a, b in rules.exclusive:
        if a in seen and b in seen:
            out = [x for x in out if x.product_id != b]
            seen.discard(b)
    for a, b in rules.companions.items():
        if a in seen and b not in seen:
            quantity = next(x.quantity for x in out if x.product_id == a)
            out.append(Line(b, quantity, Fraction(0)))
            seen.add(b)
    for line in out:
        limit = rules.limits.get(line.product_id)
        # Clipped to the limit, or often placed exactly on it (a reading that takes ">=" for
        # "more than" then finds a breach that is not there).
        if limit is not None and (line.quantity > limit or rng.random() < AT_LIMIT_SHARE):
            line.quantity = limit
        cap = rules.cap(Fraction(line.quantity))
        if line.discount > cap or rng.random() < 0.1:
            line.discount = cap
    for line in out:
        # Raised to a least: the cap only grows with the units, so the discount stays within.
        line.quantity = max(line.quantity, rules.minimums.get(line.product_id, 0))
    return out


def plant(kind: str, lines: list[Line], rules: QuoteRules, rng: random.Random) -> list[Line]:
    """Break exactly the pricing rule ``kind`` (discount) in a copy of compliant ``lines``.
    (Validity is broken on the quote's dates, see :func:`validity_days`; the configuration
    rules an invalid-config question asks about, in :mod:`.misconfig`.)"""
    lines = [Line(x.product_id, x.quantity, x.discount) for x in lines]
    if kind != "discount":
        raise ValueError(f"cannot plant {kind!r} in lines")
    line = rng.choice(lines)
    cap = rules.cap(Fraction(line.quantity))
    line.discount = cap + Fraction(rng.choice((1, 1, 2, 3, 5, 8, 10)), 2)
    return lines


def partners(rules: QuoteRules) -> set[str]:
    """Products that take part in a pair rule (cannot share a quote, needs a companion)."""
    pairs = [*rules.exclusive, *rules.companions.items()]
    return {p for pair in pairs for p in pair}


def _units(lines: list[Line], rng: random.Random) -> int:
    return lines[0].quantity if lines else rng.randint(1, 3)


def validity_days(rules: QuoteRules, rng: random.Random, *, broken: bool) -> int:
    """Days a quote stays valid: within the longest period (often exactly on it), or, broken,
    just beyond it."""
    longest = rules.validity_days
    if broken:
        return longest + rng.choice((1, 1, 2, 3, 5, 7, 10))
    return longest if rng.random() < 0.25 else rng.randint(max(3, longest // 3), longest)
