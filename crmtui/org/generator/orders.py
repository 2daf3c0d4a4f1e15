"""Orders and order items: one purchase behind every case plus background purchases.

Each case's order is dated a few days to weeks before the case and contains the product the
case is about, so ``Case.OrderItemId__c`` always points at a real purchase of the case's
account. Prices come from the dated price book in force on the order date.

Some customers come back a day to three days after a purchase for another one of the same
kind (a second pair of shoes, a jacket for someone else): some orders get such a follow-up
(counted among the background purchases), holding a product whose name ends with the same
word as one of the first order's. Asked for "the jacket I bought five days ago", only the
order of exactly that day answers; a jacket from the day before is a careless guess.

In CRMArena-Pro's orgs (``cfg.repeat_share``) customers who bought twice within three days
often come back four to seven days after the second purchase and order the same things
again in another make: for each product of that purchase, another one of its kind, built
with the same feature, for the same wearer. Asked about the second purchase, the latest
purchase their words fit is then the repeat, so only the day they point at finds the
product they mean (issue #32: "the latest fitting purchase" is a careless guess too).
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta

from crmtui.org.generator.assortment import GENDERS
from crmtui.org.generator.cases import CasePlan
from crmtui.org.generator.catalog import ISSUES, Catalog
from crmtui.org.generator.config import (
    CASES_END,
    ORDERS_START,
    ScaleConfig,
    fmt_date,
    fmt_number,
    spread,
)
from crmtui.org.generator.ids import IdFactory
from crmtui.org.generator.people import People

Row = dict[str, str | None]
# Mostly single items; pre-formatted because this is the hottest loop at large scales.
QUANTITIES = tuple(fmt_number(q) for q in (1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 3.0))


# Days from purchase to case, for issues whose story needs a particular wait: cancelling
# happens right away, a "late delivery" complaint needs the delivery estimate to have passed.
ISSUE_LAGS = {"Cancel order": (1, 3), "Delayed delivery": (9, 30)}
#: Background orders that are follow-ups (a purchase of the same kind one to three days after
#: an earlier order of the customer), as a share of the other background orders.
FOLLOW_UP_SHARE = 0.4
#: Follow-ups holding, where the catalogue has one, a product of the same kind and feature.
SAME_FEATURE_SHARE = 0.8
#: Days from the second of two close purchases to its repeat (``cfg.repeat_share``): past
#: the three days that make purchases close, within the week most questions look back.
REPEAT_DAYS = (4, 7)


def _background_date(rng: random.Random, days: int) -> date:
    # Holiday shopping: November and December get extra purchases.
    while True:
        day = ORDERS_START + timedelta(days=rng.randrange(days))
        if day.month in (11, 12) or rng.random() < 0.75:
            return day


def build_orders(
    cfg: ScaleConfig,
    rng: random.Random,
    ids: dict[str, IdFactory],
    catalog: Catalog,
    people: People,
    plans: list[CasePlan],
) -> dict[str, list[Row]]:
    """Generate Order and OrderItem rows and set ``order_item_id`` on every plan."""
    days = (CASES_END - ORDERS_START).days + 1
    weights = [c.weight for c in people.customers]
    # (date, customer index, plan index or -1, position of the order it follows or -1)
    specs: list[tuple[date, int, int, int]] = []
    for index, plan in enumerate(plans):
        lag = plan.order_lag
        if lag is None:
            lag = rng.randint(*ISSUE_LAGS.get(ISSUES[plan.issue][0], (2, 40)))
        plan.order_date = max(plan.created.date() - timedelta(days=lag), ORDERS_START)
        specs.append((plan.order_date, plan.customer, index, -1))
    background = max(cfg.orders - len(specs), 0)
    follow_ups = round(background * FOLLOW_UP_SHARE / (1 + FOLLOW_UP_SHARE))
    # Repeats come out of the same volume, so an org keeps its scale's order count.
    repeats = min(round(follow_ups * cfg.repeat_share), background - follow_ups)
    firsts = background - follow_ups - repeats
    customer_picks = rng.choices(range(len(people.customers)), weights=weights, k=firsts)
    specs += [(_background_date(rng, days), customer, -1, -1) for customer in customer_picks]
    # Any purchase may be followed by another of the same kind, a case's purchase included.
    for day, customer, _, _ in rng.sample(specs, min(follow_ups, len(specs))):
        later = min(day + timedelta(days=rng.randint(1, 3)), CASES_END)
        specs.append((later, customer, -1, -2))
    specs.sort()
    # A follow-up points at the latest earlier order of its customer (its first purchase).
    last_order: dict[int, int] = {}
    linked: list[tuple[date, int, int, int]] = []
    for position, (day, customer, plan_index, follow) in enumerate(specs):
        partner = last_order.get(customer, -1) if follow == -2 else -1
        linked.append((day, customer, plan_index, partner))
        last_order[customer] = position
    specs = linked
    repeat_of: dict[int, int] = {}
    if repeats:
        specs, repeat_of = _with_repeats(specs, rng, repeats)

    n_products = len(catalog.products)
    sizes = spread(cfg.order_items, len(specs), rng, minimum=1, maximum=n_products)
    order_ids = ids["Order"].take(len(specs))
    item_ids = ids["OrderItem"]
    product_ids = [p.id for p in catalog.products]
    prices = [
        [(entry_id, fmt_number(price)) for entry_id, price in book] for book in catalog.entries
    ]
    draw = rng.random
    orders: list[Row] = []
    items: list[Row] = []
    picked: list[list[int]] = []
    for slot, ((day, customer, plan_index, partner), order_id, size) in enumerate(
        zip(specs, order_ids, sizes, strict=True)
    ):
        book = catalog.book_for(datetime(day.year, day.month, day.day))
        draft = plan_index < 0 and rng.random() < 0.08
        orders.append(
            {
                "Id": order_id,
                "AccountId": people.customers[customer].account_id,
                "EffectiveDate": fmt_date(day),
                "Pricebook2Id": catalog.book_ids[book],
                "Status": "Draft" if draft else "Activated",
            }
        )
        picks = rng.sample(range(n_products), size)
        if plan_index >= 0:
            wanted = plans[plan_index].product
            if wanted in picks:
                picks.remove(wanted)
            else:
                picks.pop()
            picks.insert(0, wanted)
        if partner >= 0:
            _same_kind(rng, catalog, picked[partner], picks)
        elif slot in repeat_of:
            _again(rng, catalog, picked[repeat_of[slot]], picks)
        picked.append(picks)
        book_entries = prices[book]
        for position, product_index in enumerate(picks):
            entry_id, price = book_entries[product_index]
            item_id = item_ids.next()
            if position == 0 and plan_index >= 0:
                plans[plan_index].order_item_id = item_id
            items.append(
                {
                    "Id": item_id,
                    "OrderId": order_id,
                    "PriceBookEntryId": entry_id,
                    "Product2Id": product_ids[product_index],
                    "Quantity": QUANTITIES[int(draw() * len(QUANTITIES))],
                    "UnitPrice": price,
                }
            )
    return {"Order": orders, "OrderItem": items}


def _with_repeats(
    specs: list[tuple[date, int, int, int]], rng: random.Random, count: int
) -> tuple[list[tuple[date, int, int, int]], dict[int, int]]:
    """``specs`` (in date order; a follow-up's last field is its partner's position) with
    ``count`` repeat purchases added, each :data:`REPEAT_DAYS` after the second of two
    purchases of a customer at most three days apart (after other purchases when there are
    fewer such pairs than ``count``).

    Returns:
        The specs, still in date order with the partners' positions renumbered, and repeat
        position -> the position of the purchase it repeats.
    """
    days: dict[int, list[date]] = {}
    for day, customer, _, _ in specs:
        days.setdefault(customer, []).append(day)
    seconds = [
        i
        for i, (day, customer, _, _) in enumerate(specs)
        if any(0 < (day - other).days <= 3 for other in days[customer])
    ]
    chosen = rng.sample(seconds, min(count, len(seconds)))
    if len(chosen) < count:
        # Not that many close purchases: other purchases are repeated too, so the org keeps
        # its order count.
        taken = set(chosen)
        others = [i for i in range(len(specs)) if i not in taken]
        chosen += rng.sample(others, min(count - len(chosen), len(others)))
    chosen.sort()
    # (spec, the position it repeats or -1); sorted stably by day and customer.
    merged = [(spec, -1) for spec in specs]
    for i in chosen:
        day, customer = specs[i][0], specs[i][1]
        later = min(day + timedelta(days=rng.randint(*REPEAT_DAYS)), CASES_END)
        merged.append(((later, customer, -1, -1), i))
    order = sorted(range(len(merged)), key=lambda k: merged[k][0][:2])
    renumbered = {old: new for new, old in enumerate(order)}
    out: list[tuple[date, int, int, int]] = []
    repeat_of: dict[int, int] = {}
    for new, old in enumerate(order):
        (day, customer, plan_index, partner), source = merged[old]
        out.append((day, customer, plan_index, renumbered[partner] if partner >= 0 else -1))
        if source >= 0:
            repeat_of[new] = renumbered[source]
    return out, repeat_of


def _again(rng: random.Random, catalog: Catalog, source: list[int], picks: list[int]) -> None:
    """Fill a repeat order with, for each product of the order it repeats (as many as it
    holds), another product of the same kind, feature and base kind for the same wearer
    where the catalogue has one (the words that described the first fit it too), else of
    the same kind and feature."""
    chosen: list[int] = []
    for index in source:
        if len(chosen) == len(picks):
            break
        product = catalog.products[index]
        alike = [
            other
            for other in catalog.same_kind(index)
            if catalog.products[other].feature == product.feature and other not in chosen
        ]
        closest = [
            other
            for other in alike
            if catalog.products[other].base == product.base
            and _wearer(catalog.products[other].name) == _wearer(product.name)
        ]
        if closest or alike:
            chosen.append(rng.choice(closest or alike))
    rest = [index for index in picks if index not in chosen]
    picks[:] = (chosen + rest)[: len(picks)]


def _wearer(name: str) -> str | None:
    """Whom a product is for when its name says so ("Women's"), else None."""
    first = name.split()[0]
    return first if first in GENDERS else None


def _same_kind(rng: random.Random, catalog: Catalog, first: list[int], picks: list[int]) -> None:
    """Make a follow-up order hold another product of a kind the first order held, mostly one
    built with the same feature (a second pair of cushioned shoes): described by what the
    two share, only the day tells the purchases apart."""
    options = [
        (index, other)
        for index in first
        for other in catalog.same_kind(index)
        if other not in picks and other not in first
    ]
    alike = [
        (index, other)
        for index, other in options
        if catalog.products[other].feature == catalog.products[index].feature
    ]
    if alike and rng.random() < SAME_FEATURE_SHARE:
        options = alike
    if options:
        picks[-1] = rng.choice(options)[1]
