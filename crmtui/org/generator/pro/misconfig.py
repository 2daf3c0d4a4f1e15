"""Quotes an invalid-config question asks about: one configuration rule broken, or none, each
with decoys that a careless reading of the rule articles misreads (issue #32).

A question's gold names one article, or None. A careless reading passes only when it gives
exactly that, so each decoy makes one careless reading name an article the careful reading
does not:

* **a least over two lines** (the limit per line): a product with a least quoted on two lines,
  each under the least, the two together at or above it. Held to the least line by line, the
  quote breaks the quantity article; read as the article says (all lines together), it
  does not.
* **a kit over its companion's limit** (the companion rule ignored): a product and its
  companion on one quote, the companion above its unit limit. The companion article exempts
  a kit's companion from that limit; a reading that skips the article finds a breach.
* **a product at exactly its limit** (``>=`` for "more than"): one product at exactly its most
  units, or at exactly its least. (A quantity breach needs none: that reading names the
  quantity article there too.)

A planted quantity breach is always spread over lines of the product, each within the limit,
so holding each line to the limit alone misses it; a planted companion breach is missed by a
reading that skips the companion article.
"""

from __future__ import annotations

import random
from fractions import Fraction

from crmtui.org.generator.pro.cpq import Line, partners
from crmtui.org.solvers.pro.quotes import QuoteRules

#: How often each decoy goes into a quote that can carry it.
SPLIT_DECOY = 0.85
KIT_DECOY = 0.85
EDGE_DECOY = 0.9


def config_quote(
    kind: str | None, lines: list[Line], rules: QuoteRules, rng: random.Random
) -> list[Line]:
    """Compliant ``lines`` changed to break exactly the rule ``kind`` (quantity, exclusive,
    companion; None: none), with decoys.

    The caller checks the result against the rules: a draw that breaks more (or less) than
    ``kind`` is drawn again.
    """
    out = [Line(x.product_id, x.quantity, x.discount) for x in lines]
    if kind == "quantity":
        _split_breach(out, rules, rng)
    elif kind == "exclusive":
        a, b = rng.choice(rules.exclusive)
        for pid in (a, b):
            _add(out, pid, rules, rng)
    elif kind == "companion":
        a, b = rng.choice(list(rules.companions.items()))
        out = [x for x in out if x.product_id != b]
        _add(out, a, rules, rng)
    elif kind is not None:
        raise ValueError(f"not a configuration rule: {kind!r}")
    if kind == "quantity":
        return out
    if rng.random() < SPLIT_DECOY:
        _split_least(out, rules, rng)
    if kind != "companion" and rng.random() < KIT_DECOY:
        _kit_over(out, rules, rng)
    if rng.random() < EDGE_DECOY:
        _at_most(out, rules, rng)
    return out


def _present(lines: list[Line]) -> set[str]:
    return {x.product_id for x in lines}


def _add(lines: list[Line], pid: str, rules: QuoteRules, rng: random.Random) -> None:
    """Put ``pid`` on the quote (when it is not there) in a number of units its own limits
    allow."""
    if pid in _present(lines):
        return
    units = lines[0].quantity if lines else rng.randint(1, 3)
    units = max(units, rules.minimums.get(pid, 0))
    units = min(units, rules.limits.get(pid, units))
    lines.append(Line(pid, units, Fraction(0)))


def _split_breach(lines: list[Line], rules: QuoteRules, rng: random.Random) -> None:
    """A product over its most units, on lines each within it."""
    options = sorted(p for p in rules.limits if p not in partners(rules))
    pid = rng.choice(options)
    limit = rules.limits[pid]
    discount = next((x.discount for x in lines if x.product_id == pid), Fraction(0))
    lines[:] = [x for x in lines if x.product_id != pid]
    total = limit + rng.choice((1, 1, 2, 3, max(1, limit // 10), max(2, limit // 5)))
    parts = max(2, -(-total // limit))
    for k in range(parts):
        units = total // parts + (k < total % parts)
        lines.append(Line(pid, units, min(discount, rules.cap(Fraction(units)))))


def _split_least(lines: list[Line], rules: QuoteRules, rng: random.Random) -> None:
    """A product with a least on two lines, each under it, together at or above it."""
    present = _present(lines)
    options = sorted(p for p, n in rules.minimums.items() if n >= 2 and p not in present)
    if not options:
        return
    pid = rng.choice(options)
    least = rules.minimums[pid]
    total = least if rng.random() < 0.5 else rng.randint(least, 2 * least - 2)
    for units in (total // 2, total - total // 2):
        lines.append(Line(pid, units, Fraction(0)))


def _kit_over(lines: list[Line], rules: QuoteRules, rng: random.Random) -> None:
    """A product and its companion, the companion above its unit limit (exempt in a kit)."""
    present = _present(lines)
    kits = sorted(
        (a, b)
        for a, b in rules.companions.items()
        if b in rules.limits and (a in present or b not in present)
    )
    if not kits or not rules.kits:
        return
    a, b = rng.choice(kits)
    _add(lines, a, rules, rng)
    limit = rules.limits[b]
    lines[:] = [x for x in lines if x.product_id != b]
    extra = rng.choice((1, 2, max(1, limit // 10), max(2, limit // 4)))
    lines.append(Line(b, limit + extra, Fraction(0)))


def _at_most(lines: list[Line], rules: QuoteRules, rng: random.Random) -> None:
    """One product at exactly its most units (one of the quote's, or one added)."""
    exempt = {b for a, b in rules.companions.items() if a in _present(lines)}
    counts: dict[str, int] = {}
    for x in lines:
        counts[x.product_id] = counts.get(x.product_id, 0) + 1
    held = [
        x
        for x in lines
        if x.product_id in rules.limits and x.product_id not in exempt and counts[x.product_id] == 1
    ]
    if held:
        line = rng.choice(held)
        line.quantity = rules.limits[line.product_id]
        line.discount = min(line.discount, rules.cap(Fraction(line.quantity)))
        return
    present = _present(lines)
    options = sorted(p for p in rules.limits if p not in partners(rules) and p not in present)
    if options:
        pid = rng.choice(options)
        lines.append(Line(pid, rules.limits[pid], Fraction(0)))
