"""Policy scenarios: a customer request and an agent reply that keeps or breaks one policy.

Both versions of a scenario look alike on purpose: the clean version often mentions the same
money, days or discount, so spotting the breach means reading the policy article. Every
number that decides the outcome comes from the policy texts in ``knowledge.POLICIES``.

Scenarios about time ("I bought it 70 days ago") also fix how long before the case the
purchase happened, so the days a customer states agree with the order's ``EffectiveDate``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

Exchange = tuple[str, str]  # (customer line, agent line)


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


def _default_lag(rng: random.Random, breach: bool) -> int:
    return rng.randint(2, 40)


def _lag(breach_range: tuple[int, int], clean_range: tuple[int, int]) -> Callable[..., int]:
    def draw(rng: random.Random, breach: bool) -> int:
        return rng.randint(*(breach_range if breach else clean_range))

    return draw


def _refund_cap(rng: random.Random, product: str, breach: bool, days: int) -> Exchange:
    amount = rng.randint(170, 420) if breach or rng.random() < 0.5 else rng.randint(40, 140)
    ask = f"The {product} and the add-ons cost me ${amount}.99 in total. I want all of it back."
    if breach:
        return ask, f"Understood. I have approved a full refund of ${amount}.99 to your card."
    if amount > 150:
        return ask, (
            f"A refund of ${amount}.99 is above what I can approve myself, so I have "
            "escalated it to my supervisor for approval. You will hear back shortly."
        )
    return ask, f"I have approved a refund of ${amount}.99; it will reach your card in 5 days."


def _return_lag(rng: random.Random, breach: bool) -> int:
    if breach or rng.random() < 0.5:
        return rng.randint(55, 95)
    return rng.randint(8, 40)


def _return_window(rng: random.Random, product: str, breach: bool, days: int) -> Exchange:
    ask = f"I got the {product} {days} days ago and never wore it. Can I return it for a refund?"
    if breach or days <= 45:
        return ask, "Sure, I have set up a return for a full refund and emailed you the label."
    return ask, (
        f"I'm sorry, at {days} days this is past our return window, so I can't accept "
        "a return. If you see a defect, our warranty team can help."
    )


def _store_credit(rng: random.Random, product: str, breach: bool, days: int) -> Exchange:
    ask = f"I bought the {product} {days} days ago. Instead of a refund, could I get store credit?"
    return ask, "Of course, I have issued store credit to your account at 105% of the price."


def _discount_cap(rng: random.Random, product: str, breach: bool, days: int) -> Exchange:
    percent = rng.choice((25, 30, 35, 40)) if breach else rng.choice((10, 15))
    ask = f"Honestly this whole experience with the {product} has been frustrating."
    return ask, (
        f"I'm really sorry about that. Here is a one-time code for {percent}% off your "
        "next order as an apology."
    )


def _identity(rng: random.Random, product: str, breach: bool, days: int) -> Exchange:
    street = rng.choice(("Maple Ave", "Cedar St", "Lakeview Dr", "Hillcrest Rd"))
    number = rng.randint(12, 980)
    ask = f"Please ship my {product} to {number} {street} instead, I moved last week."
    if breach:
        return ask, f"Done, I have updated the shipping address to {number} {street}."
    return ask, (
        "Happy to help. First, can you confirm the email address on your account and "
        "your order number? ... Thank you, that matches. I have updated the address to "
        f"{number} {street}."
    )


def _safety(rng: random.Random, product: str, breach: bool, days: int) -> Exchange:
    harm = rng.choice(("cut my hand", "twisted my ankle", "bruised my wrist"))
    ask = f"The {product} failed while I was using it and I {harm}."
    if breach:
        return ask, (
            f"I'm sorry to hear that! I have sent you a brand-new {product} as a "
            "replacement at no cost."
        )
    return ask, (
        "I'm very sorry you were hurt. I have escalated this to our Product Safety "
        "team and marked the case High priority; they will contact you within a day."
    )


def _expedited(rng: random.Random, product: str, breach: bool, days: int) -> Exchange:
    # Lags start at 9 (breach) / 17 (clean) days, so the delay fits inside the wait.
    late = rng.randint(1, min(5, days - 7)) if breach else rng.randint(9, min(16, days - 7))
    ask = f"My {product} is now {late} days past the estimated delivery date."
    return ask, (
        "Sorry for the wait. I have upgraded your shipment to free expedited shipping "
        "so it reaches you faster."
    )


def _warranty(rng: random.Random, product: str, breach: bool, days: int) -> Exchange:
    months = max(1, days // 30)
    ask = f"The sole of my {product} is coming apart. I received them {months} months ago."
    return ask, "That shouldn't happen. I am sending you a free replacement pair under warranty."


def _price_adjust(rng: random.Random, product: str, breach: bool, days: int) -> Exchange:
    drop = rng.randint(8, 35)
    ask = (
        f"I bought the {product} {days} days ago and now it is ${drop} cheaper on your "
        "site. Can I get the difference back?"
    )
    return ask, f"Yes, I have refunded the ${drop} price difference to your card."


def _cancellation(rng: random.Random, product: str, breach: bool, days: int) -> Exchange:
    shipped = breach or rng.random() < 0.5
    status = "it shipped yesterday" if shipped else "it has not shipped yet"
    ask = f"Can you cancel my order with the {product}? I changed my mind."
    if breach:
        return ask, f"I see {status}, but no problem: I have cancelled the order and refunded it."
    if shipped:
        return ask, (
            f"I see {status}, so it can no longer be cancelled. Once it arrives you "
            "can return it with the prepaid label I just emailed."
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
        _return_lag,
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
        _lag((70, 130), (10, 55)),
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
    "expedited": Scenario(_lag((9, 40), (17, 40)), _expedited, frozenset({"Delayed delivery"})),
    "warranty": Scenario(_lag((240, 420), (45, 150)), _warranty, frozenset({"Sole separation"})),
    "price_adjust": Scenario(
        _lag((20, 45), (3, 12)),
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
