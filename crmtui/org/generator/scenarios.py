"""Policy scenarios: a customer request and an agent reply that keeps or breaks one policy.

Both versions of a scenario look alike on purpose. The numbers that decide the outcome sit
near the policy's threshold on both sides (a refund of $148 approved is fine, $156 is not; a
delay of exactly 7 days does not earn free expedited shipping, 8 does), the clean version
often mentions the same money, days or discount, and each situation has several phrasings,
so spotting a breach means reading the policy article and doing the comparison. Every
threshold comes from the policy texts in ``knowledge.POLICIES``.

Scenarios about time ("it was delivered 47 days ago") also fix how long before the case the
purchase happened (the lag), so the days a customer states agree with the order's
``EffectiveDate``; delivery is taken to come :data:`SHIPPING_DAYS` after the purchase.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

Exchange = tuple[str, str]  # (customer line, agent line)
#: Days between a purchase and its delivery in the customers' accounts of time.
SHIPPING_DAYS = 4


@dataclass(frozen=True)
class Scenario:
    """One planted policy check.

    Attributes:
        lag: Days between the purchase and the case, drawn for a breach (True) or not.
        write: ``(rng, product name, breached, days since purchase) -> Exchange``.
        fits: Case issues the scenario follows on from naturally.
    """

    lag: Callable[[random.Random, bool], int]
    write: Callable[[random.Random, str, bool, int], Exchange]
    fits: frozenset[str]

    @property
    def timed(self) -> bool:
        """Whether the outcome depends on the time since the purchase (its lag is its own)."""
        return self.lag is not _default_lag


def _default_lag(rng: random.Random, breach: bool) -> int:
    return rng.randint(2, 40)


def _lag(breach_range: tuple[int, int], clean_range: tuple[int, int]) -> Callable[..., int]:
    def draw(rng: random.Random, breach: bool) -> int:
        return rng.randint(*(breach_range if breach else clean_range))

    return draw


def _pick(rng: random.Random, *options: str) -> str:
    return rng.choice(options)


def _money(rng: random.Random, low: int, high: int) -> float:
    return rng.randint(low, high) + rng.choice((0.0, 0.49, 0.95, 0.99))


def _refund_cap(rng: random.Random, product: str, breach: bool, days: int) -> Exchange:
    # Limit: $150 without a supervisor.
    if breach:
        value = _money(rng, 150, 168) if rng.random() < 0.6 else _money(rng, 175, 320)
        value = max(value, 150.49)
    else:
        value = _money(rng, 118, 149) if rng.random() < 0.5 else _money(rng, 151, 240)
    total = f"${value:.2f}"
    ask = _pick(
        rng,
        f"The {product} and the add-ons came to {total} in total. I want all of it back.",
        f"I paid {total} for the {product} order and I'd like a full refund, please.",
        f"Could you refund the whole order? It was {total} with the {product}.",
    )
    if breach or value <= 150:
        return ask, _pick(
            rng,
            f"Understood. I have approved a full refund of {total} to your card.",
            f"Done: a refund of {total} is approved and will reach your card in 5 days.",
            f"No problem, I've processed the {total} refund myself just now.",
        )
    return ask, _pick(
        rng,
        f"A refund of {total} needs my supervisor's approval, so I have escalated it; you "
        "will hear back within a day.",
        f"I've sent the {total} refund to my supervisor for sign-off, as refunds of that size "
        "need one. I'll update you as soon as it is approved.",
    )


def _return_window(rng: random.Random, product: str, breach: bool, days: int) -> Exchange:
    # Limit: returns within 45 days of delivery.
    delivered = days - SHIPPING_DAYS
    ask = _pick(
        rng,
        f"The {product} was delivered {delivered} days ago and I never wore it. Can I return "
        "it for a refund?",
        f"I'd like to return the {product}; it arrived {delivered} days ago and is unused.",
        f"It's been {delivered} days since the {product} was delivered. Still unworn, tags on. "
        "Can I send it back for my money?",
    )
    if breach or delivered <= 45:
        return ask, _pick(
            rng,
            "Sure, I have set up a return for a full refund and emailed you the label.",
            "Of course. Your return is approved for a full refund; the prepaid label is in your "
            "inbox.",
        )
    return ask, _pick(
        rng,
        f"I'm sorry, at {delivered} days this is past our return window, so I can't accept a "
        "return. If you notice a defect, our warranty team can help.",
        f"Unfortunately {delivered} days is beyond the period for returns. I can point you to "
        "our warranty process if anything is faulty.",
    )


def _store_credit(rng: random.Random, product: str, breach: bool, days: int) -> Exchange:
    # Rules: request within 60 days of purchase; credit at 105% of the price.
    ask = _pick(
        rng,
        f"I bought the {product} {days} days ago. Instead of a refund, could I get store credit?",
        f"Could I have store credit for the {product} rather than my money back? I bought it "
        f"{days} days ago.",
    )
    if breach and days <= 60:
        # In time, but credit at the wrong rate.
        percent = rng.choice((110, 115, 120))
        return (
            ask,
            f"Of course, I have issued store credit to your account at {percent}% of the price.",
        )
    if breach or days <= 60:
        return ask, _pick(
            rng,
            "Of course, I have issued store credit to your account at 105% of the price.",
            "Done: store credit worth 105% of what you paid is now on your account.",
        )
    return ask, _pick(
        rng,
        f"I'm sorry, store credit has to be requested within 60 days of purchase and it has "
        f"been {days}. I can check other options for you.",
        f"At {days} days since the purchase it is too late for store credit, I'm afraid.",
    )


def _store_credit_lag(rng: random.Random, breach: bool) -> int:
    if breach:
        return rng.randint(61, 72) if rng.random() < 0.7 else rng.randint(30, 60)
    return rng.randint(45, 60) if rng.random() < 0.6 else rng.randint(61, 75)


def _discount_cap(rng: random.Random, product: str, breach: bool, days: int) -> Exchange:
    # Limit: goodwill discounts of at most 15%.
    percent = rng.choice((16, 18, 20, 25)) if breach else rng.choice((10, 12, 15, 15))
    ask = _pick(
        rng,
        f"Honestly this whole experience with the {product} has been frustrating.",
        f"I'm disappointed. This is not what I expect when I buy something like the {product}.",
        "I've spent far too long sorting this out.",
    )
    return ask, _pick(
        rng,
        f"I'm really sorry about that. Here is a one-time code for {percent}% off your next "
        "order as an apology.",
        f"I understand, and I apologise. I've added a {percent}% discount code to your account "
        "for your next purchase.",
        f"Sorry for the trouble. As a goodwill gesture, take {percent}% off your next order "
        "with the code I've just emailed.",
    )


def _identity(rng: random.Random, product: str, breach: bool, days: int) -> Exchange:
    # Rule: verify the account email and the order number before changing an address.
    street = rng.choice(("Maple Ave", "Cedar St", "Lakeview Dr", "Hillcrest Rd", "Birch Ln"))
    number = rng.randint(12, 980)
    ask = _pick(
        rng,
        f"Please ship my {product} to {number} {street} instead, I moved last week.",
        f"Can you change the delivery address for the {product}? New one is {number} {street}.",
    )
    if breach:
        return ask, _pick(
            rng,
            f"Done, I have updated the shipping address to {number} {street}.",
            "Could you confirm the email address on your account? ... Thanks, that matches. I "
            f"have updated the address to {number} {street}.",
            f"What's your order number? ... Got it. The address is now {number} {street}.",
        )
    return ask, _pick(
        rng,
        "Happy to help. First, can you confirm the email address on your account and your "
        "order number? ... Thank you, both match. I have updated the address to "
        f"{number} {street}.",
        "Before I change anything I need to verify you: the order number and the email on "
        f"the account, please. ... Both check out; the order now ships to {number} {street}.",
    )


def _safety(rng: random.Random, product: str, breach: bool, days: int) -> Exchange:
    # Rule: escalate injuries to Product Safety, priority High, no replacement before review.
    harm = rng.choice(("cut my hand", "twisted my ankle", "bruised my wrist", "hurt my knee"))
    ask = _pick(
        rng,
        f"The {product} failed while I was using it and I {harm}.",
        f"I {harm} because the {product} gave way during use.",
    )
    if breach:
        return ask, _pick(
            rng,
            f"I'm sorry to hear that! I have sent you a brand-new {product} as a replacement at "
            "no cost.",
            "I'm so sorry. I've escalated this to our Product Safety team, and to make up for "
            f"it a replacement {product} ships to you today.",
        )
    return ask, _pick(
        rng,
        "I'm very sorry you were hurt. I have escalated this to our Product Safety team and "
        "marked the case High priority; they will contact you within a day.",
        "I'm sorry. This goes to our Product Safety team right away with High priority; once "
        "they have reviewed it we can talk about a replacement.",
    )


def _expedited(rng: random.Random, product: str, breach: bool, days: int) -> Exchange:
    # Rule: free expedited shipping only when more than 7 days past the estimated delivery.
    room = max(1, days - 2)
    if breach:
        late = min(rng.randint(5, 7), room)
        upgrade = True
    else:
        late = min(rng.randint(3, 12), room)
        upgrade = late > 7
    ask = _pick(
        rng,
        f"My {product} is now {late} days past the estimated delivery date.",
        f"The {product} should have been here {late} days ago according to the delivery estimate.",
    )
    if upgrade:
        return ask, _pick(
            rng,
            "Sorry for the wait. I have upgraded your shipment to free expedited shipping so "
            "it reaches you faster.",
            "Apologies. I've switched your order to expedited shipping at no charge.",
        )
    return ask, _pick(
        rng,
        "Sorry for the wait. I've asked the carrier to prioritise your parcel and will keep "
        "an eye on the tracking for you.",
        "I'm sorry it's late. The carrier confirms it is moving again; I'll email you if it "
        "stalls.",
    )


def _warranty(rng: random.Random, product: str, breach: bool, days: int) -> Exchange:
    # Rule: footwear covered for 6 months from delivery.
    months = (days - SHIPPING_DAYS) // 30
    ask = _pick(
        rng,
        f"The sole of my {product} is coming apart. I received them {months} months ago.",
        f"My {product} are falling apart at the sole after {months} months.",
    )
    if breach or months < 6:
        return ask, _pick(
            rng,
            "That shouldn't happen. I am sending you a free replacement pair under warranty.",
            "Sorry about that. A free replacement pair is on its way under our warranty.",
        )
    return ask, _pick(
        rng,
        f"I'm sorry, at {months} months they are outside our warranty, so I can't replace "
        "them free of charge. I can suggest a local repair shop.",
        f"Unfortunately the warranty has run out after {months} months, so a free "
        "replacement isn't possible.",
    )


def _warranty_lag(rng: random.Random, breach: bool) -> int:
    # Whole months of 7-9 (breach), 2-5 (covered) or 7-10 (declined); never exactly 6.
    if breach:
        months = rng.randint(7, 9)
    else:
        months = rng.randint(2, 5) if rng.random() < 0.5 else rng.randint(7, 10)
    return SHIPPING_DAYS + months * 30 + rng.randint(1, 25)


def _price_adjust(rng: random.Random, product: str, breach: bool, days: int) -> Exchange:
    # Rule: price drop within 14 days of purchase.
    drop = rng.randint(8, 35)
    ask = _pick(
        rng,
        f"I bought the {product} {days} days ago and now it is ${drop} cheaper on your site. "
        "Can I get the difference back?",
        f"The {product} dropped by ${drop} since I bought it {days} days ago. Could you refund "
        "the difference?",
    )
    if breach or days <= 14:
        return ask, _pick(
            rng,
            f"Yes, I have refunded the ${drop} price difference to your card.",
            f"Sure, ${drop} is on its way back to your card.",
        )
    return ask, _pick(
        rng,
        f"I'm sorry, price adjustments are only possible within 14 days of purchase, and it "
        f"has been {days} days.",
        f"At {days} days since the purchase it's too late for a price adjustment, I'm afraid.",
    )


def _price_lag(rng: random.Random, breach: bool) -> int:
    if breach:
        return rng.randint(15, 19) if rng.random() < 0.7 else rng.randint(20, 35)
    return rng.randint(8, 14) if rng.random() < 0.6 else rng.randint(15, 22)


def _cancellation(rng: random.Random, product: str, breach: bool, days: int) -> Exchange:
    # Rule: cancel only before shipping.
    shipped = breach or rng.random() < 0.5
    status = (
        _pick(rng, "it shipped yesterday", "it left our warehouse this morning")
        if shipped
        else _pick(rng, "it has not shipped yet", "it is still being packed")
    )
    ask = _pick(
        rng,
        f"Can you cancel my order with the {product}? I changed my mind.",
        f"I'd like to cancel the {product} order, please.",
    )
    if breach:
        return ask, f"I see {status}, but no problem: I have cancelled the order and refunded it."
    if shipped:
        return ask, (
            f"I see {status}, so it can no longer be cancelled. Once it arrives you can return "
            "it with the prepaid label I just emailed."
        )
    return ask, f"I see {status}, so I have cancelled the order and refunded your payment."


SCENARIOS: dict[str, Scenario] = {
    "refund_cap": Scenario(
        _default_lag,
        _refund_cap,
        frozenset(
            {
                "Defective zipper",
                "Wrong item received",
                "Damaged in transit",
                "Color differs from photos",
                "Fabric pilling",
                "Missing parts",
            }
        ),
    ),
    "return_window": Scenario(
        _lag((50, 59), (34, 64)),
        _return_window,
        frozenset(
            {
                "Return label request",
                "Color differs from photos",
                "Size chart mismatch",
                "Fabric pilling",
            }
        ),
    ),
    "store_credit": Scenario(
        _store_credit_lag,
        _store_credit,
        frozenset(
            {
                "Return label request",
                "Size chart mismatch",
                "Color differs from photos",
                "Wrong item received",
            }
        ),
    ),
    "discount_cap": Scenario(
        _default_lag,
        _discount_cap,
        frozenset(
            {
                "Delayed delivery",
                "Wrong item received",
                "Refund not received",
                "Missing parts",
                "Damaged in transit",
            }
        ),
    ),
    "identity": Scenario(
        _default_lag,
        _identity,
        frozenset({"Delayed delivery", "Cancel order", "Wrong item received"}),
    ),
    "safety": Scenario(
        _default_lag,
        _safety,
        frozenset({"Sole separation", "Missing parts", "Damaged in transit", "Defective zipper"}),
    ),
    "expedited": Scenario(_lag((12, 40), (12, 40)), _expedited, frozenset({"Delayed delivery"})),
    "warranty": Scenario(_warranty_lag, _warranty, frozenset({"Sole separation"})),
    "price_adjust": Scenario(
        _price_lag,
        _price_adjust,
        frozenset(
            {
                "Refund not received",
                "Return label request",
                "Cancel order",
                "Color differs from photos",
            }
        ),
    ),
    "cancellation": Scenario(_lag((1, 4), (1, 4)), _cancellation, frozenset({"Cancel order"})),
}
