"""Knowledge questions that need the article read: a rule applied to the numbers of a case.

"Does an order of $62 ship free?" is answered by the shipping article's "orders over $75 ship
free", but no sentence of it says so. Each kind of question is asked twice per org with fresh
numbers, once on each side of the rule's threshold, and never exactly on it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

Entry = dict[str, str]


def _refund(rng: random.Random, low: bool) -> Entry:
    amount = rng.randint(95, 149) if low else rng.randint(151, 220)
    return {
        "source": "refund_cap",
        "question": f"A customer asks for a refund of ${amount}. May a service agent approve it "
        "without a supervisor?",
        "answer": "Yes, agents may approve refunds of up to $150"
        if low
        else "No, refunds above $150 must be approved by a supervisor",
        "basis": "$150",
    }


def _returns(rng: random.Random, low: bool) -> Entry:
    days = rng.randint(20, 44) if low else rng.randint(46, 70)
    return {
        "source": "return_window",
        "question": f"Unworn trainers were delivered {days} days ago. Can they still be returned "
        "for a full refund?",
        "answer": "Yes, returns are accepted within 45 days of delivery"
        if low
        else "No, returns are only accepted within 45 days of delivery",
        "basis": "45 days",
    }


def _credit(rng: random.Random, low: bool) -> Entry:
    price = rng.randint(20, 60) * 2 + (0 if low else 1)
    return {
        "source": "store_credit",
        "question": f"How much store credit does a customer receive for an item that cost "
        f"${price}?",
        "answer": f"${price * 1.05:.2f}",
        "basis": "105%",
    }


def _discount(rng: random.Random, low: bool) -> Entry:
    percent = rng.choice((5, 10, 12)) if low else rng.choice((18, 20, 25))
    return {
        "source": "discount_cap",
        "question": f"May an agent offer a {percent}% goodwill discount code to an unhappy "
        "customer?",
        "answer": "Yes, goodwill discounts of up to 15% are allowed"
        if low
        else "No, goodwill discounts are limited to 15%",
        "basis": "15%",
    }


def _expedited(rng: random.Random, low: bool) -> Entry:
    days = rng.randint(3, 7) if low else rng.randint(8, 14)
    return {
        "source": "expedited",
        "question": f"An order is {days} days past its estimated delivery date. Can the customer "
        "be given free expedited shipping?",
        "answer": "No, only orders delayed more than 7 days qualify"
        if low
        else "Yes, it is delayed more than 7 days",
        "basis": "more than 7 days",
    }


def _warranty(rng: random.Random, low: bool) -> Entry:
    months = rng.randint(2, 5) if low else rng.randint(7, 11)
    return {
        "source": "warranty",
        "question": f"Hiking boots delivered {months} months ago have a separating sole. Are they "
        "still under warranty?",
        "answer": "Yes, footwear is covered for 6 months from delivery"
        if low
        else "No, the footwear warranty lasts 6 months from delivery",
        "basis": "6 months",
    }


def _price(rng: random.Random, low: bool) -> Entry:
    days = rng.randint(3, 13) if low else rng.randint(15, 30)
    return {
        "source": "price_adjust",
        "question": f"The price of a jacket dropped {days} days after a customer bought it. Can "
        "the customer get the difference back?",
        "answer": "Yes, within 14 days of purchase"
        if low
        else "No, price adjustments are only possible within 14 days of purchase",
        "basis": "14 days",
    }


def _shipping(rng: random.Random, low: bool) -> Entry:
    total = rng.randint(35, 74) if low else rng.randint(76, 140)
    return {
        "faq": "Shipping Options and Times",
        "question": f"Does an order of ${total} ship free with standard shipping?",
        "answer": "No, standard shipping is free only for orders over $75"
        if low
        else "Yes, orders over $75 ship free",
        "basis": "$75",
    }


def _points(rng: random.Random, low: bool) -> Entry:
    spent = rng.randint(20, 200) if low else rng.randint(201, 600)
    return {
        "faq": "Summit Rewards Loyalty Program",
        "question": f"How many Summit Rewards points does a ${spent} purchase earn?",
        "answer": f"{2 * spent} points",
        "basis": "2 points",
    }


def _rewards(rng: random.Random, low: bool) -> Entry:
    points = rng.randint(2, 5) * 500 + rng.choice((0, 120, 350)) + (0 if low else 2000)
    return {
        "faq": "Summit Rewards Loyalty Program",
        "question": f"How many $10 rewards can a member with {points} Summit Rewards points "
        "redeem?",
        "answer": str(points // 500),
        "basis": "500 points",
    }


def _exchange(rng: random.Random, low: bool) -> Entry:
    days = rng.randint(5, 29) if low else rng.randint(31, 50)
    return {
        "faq": "Size Exchanges",
        "question": f"A pair of shoes in the wrong size was delivered {days} days ago. Is "
        "exchanging them for another size still free?",
        "answer": "Yes, size exchanges are free within 30 days of delivery"
        if low
        else "No, size exchanges are free only within 30 days of delivery",
        "basis": "30 days",
    }


READING: tuple[Callable[[random.Random, bool], Entry], ...] = (
    _refund,
    _returns,
    _credit,
    _discount,
    _expedited,
    _warranty,
    _price,
    _shipping,
    _points,
    _rewards,
    _exchange,
)


def reading_questions(rng: random.Random) -> Iterator[Entry]:
    """Two questions per kind, one on each side of its threshold.

    Each entry has ``question``, ``answer``, ``basis`` (words of the article the answer follows
    from) and either ``source`` (a policy key) or ``faq`` (an FAQ article title).
    """
    for make in READING:
        seen: set[str] = set()
        for low in (True, False):
            entry = make(rng, low)
            if entry["question"] not in seen:
                seen.add(entry["question"])
                yield entry
