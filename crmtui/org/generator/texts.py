"""Customer-voice case texts: a Subject and a Description per (issue, product).

The same generator writes the org's case texts and the unseen "new case" texts of the routing
task, so both read alike. Texts are composed from parts (how the customer names the product,
one of several ways to say what went wrong, a detail, sometimes an aside about something
else that is fine, a request), so the issue has to be read from the meaning, not looked up
from an exact subject line. Wording is ours; the choices come from the seeded rng.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class IssueTexts:
    """Ways a customer writes about one issue.

    Attributes:
        subjects: Subject lines; ``{item}`` is how the customer names the product.
        openings: First sentences saying what went wrong.
        details: Second sentences with a detail.
        asks: What the customer wants done.
    """

    subjects: tuple[str, ...]
    openings: tuple[str, ...]
    details: tuple[str, ...]
    asks: tuple[str, ...]


CASE_TEXTS: dict[str, IssueTexts] = {
    "Size chart mismatch": IssueTexts(
        (
            "{Item} runs {direction} compared to the size chart",
            "Size chart seems off for the {item}",
            "Sizing problem with my {item}",
            "{Item} does not fit the size I ordered",
            "Wrong fit on the {item} despite the chart",
            "Is the size guide right for the {item}?",
        ),
        (
            "I ordered a size {size} {item} going by your size chart, but it is clearly too {fit}.",
            "The {item} I received does not match the measurements listed in the size chart.",
            "Followed the size guide for the {item} and picked {size}, and it is far too {fit}.",
            "My usual size {size} in the {item} feels a full size too {fit}.",
        ),
        (
            "My measurements match the chart exactly.",
            "I measured twice before ordering.",
            "Every other brand fits me in this size.",
            "I compared it with an older pair and the difference is obvious.",
        ),
        (
            "Is the chart for this model wrong?",
            "Can I swap it for the right size?",
            "What size should I go for instead?",
        ),
    ),
    "Wrong item received": IssueTexts(
        (
            "Received the wrong item instead of the {item}",
            "Wrong product in my package",
            "Order arrived with something other than the {item}",
            "This is not the {item} I ordered",
            "Mix-up with my {item} order",
            "Got a {other} instead of my {item}",
        ),
        (
            "My order should contain the {item}, but the box had a {other} in it.",
            "I opened the package today and found a {other} instead of the {item} I paid for.",
            "The item delivered is not the {item} I ordered; it looks like someone else's order.",
            "Instead of the {item} ({color}), there was a {other} in the parcel.",
        ),
        (
            "The packing slip still lists the {item}.",
            "The label on the box has my name and address on it.",
            "Nothing in the box resembles what I ordered.",
        ),
        (
            "Please send the correct item.",
            "How do I get the right one?",
            "Could you ship the {item} and tell me what to do with this one?",
        ),
    ),
    "Delayed delivery": IssueTexts(
        (
            "Where is my {item}?",
            "Order still not delivered after {days} days",
            "Late delivery of the {item}",
            "{Item} has not arrived yet",
            "Tracking for my {item} has not moved",
            "Still waiting on my order",
        ),
        (
            "I ordered the {item} {days} days ago and it still has not arrived.",
            "My {item} was supposed to arrive last week and there is no sign of it.",
            "The estimated delivery date for the {item} passed and nobody has updated me.",
            "Tracking has said 'in transit' for {used} days now for my {item}.",
        ),
        (
            "The tracking page has not changed since it left the warehouse.",
            "The carrier's site shows no scans at all.",
            "I was home all week, so no delivery was missed.",
        ),
        (
            "I need it before {event}.",
            "Can you check with the carrier?",
            "When can I expect it?",
        ),
    ),
    "Cancel order": IssueTexts(
        (
            "Please cancel my order for the {item}",
            "Cancel order request - {item}",
            "Need to cancel a recent order",
            "Cancelling the {item}",
            "Cancellation for an order I just placed",
            "Stop my {item} order please",
        ),
        (
            "I placed an order for the {item} by mistake and would like to cancel it.",
            "I no longer need the {item} for {event}, so please cancel my order.",
            "I ordered the {item} twice by accident.",
            "I found the {item} elsewhere and want to cancel my order with you.",
        ),
        (
            "I only placed it {days} days ago.",
            "The order confirmation came through a moment ago.",
            "It should not have shipped yet.",
        ),
        (
            "Please cancel it before it ships.",
            "Could you cancel one of the orders and refund it?",
            "Please confirm once it is cancelled.",
        ),
    ),
    "Defective zipper": IssueTexts(
        (
            "Zipper broke on my {item}",
            "Defective zipper on the {item}",
            "{Item} zipper keeps splitting",
            "Zip stuck on the {item}",
            "{Item}: zipper came apart",
            "Faulty zip on a new {item}",
        ),
        (
            "The main zipper on my {item} separated after only {used} days of light use.",
            "The zipper on the {item} is stuck halfway and the pull came off in my hand.",
            "My new {item} has a zipper that splits open from the bottom whenever I move.",
            "The teeth of the zip on my {item} no longer line up.",
        ),
        (
            "I have worn it a handful of times.",
            "This seems like a manufacturing defect.",
            "I never forced it; it just gave way.",
        ),
        (
            "Can I get a replacement?",
            "Is this covered by the warranty?",
            "What are my options?",
        ),
    ),
    "Sole separation": IssueTexts(
        (
            "Sole coming off my {item}",
            "{Item} sole is separating",
            "Glue failure on the {item}",
            "Outsole peeling away on the {item}",
            "My {item} are falling apart at the sole",
            "Sole detached after a few runs",
        ),
        (
            "The sole on my {item} started peeling away at the toe after about {used} days.",
            "One of my {item} has a sole that is separating from the upper along the side.",
            "The outsole on the left {item} is detaching at the heel.",
            "There is a gap opening between the sole and the upper of my {item}.",
        ),
        (
            "I only use them for {event}.",
            "They are nearly new.",
            "I have kept them dry and clean.",
        ),
        (
            "I would like a replacement pair.",
            "Can this be repaired or replaced?",
            "Is this a known problem with this model?",
        ),
    ),
    "Color differs from photos": IssueTexts(
        (
            "{Item} color is different from the photos",
            "Color mismatch on my {item}",
            "The {item} is not the color I ordered",
            "{Item} looks nothing like the listing",
            "Shade of my {item} is off",
            "Colour of the {item} is wrong",
        ),
        (
            "The {item} I received is a much duller shade than the {color} shown on the website.",
            "I chose the {color} {item}, but in person it looks closer to {other_color}.",
            "The color of my {item} does not match the listing at all; it was sold as {color}.",
            "The {item} arrived in what I would call {other_color}, not {color}.",
        ),
        (
            "The product photos are misleading.",
            "I checked it in daylight to be sure.",
            "It does not go with the rest of my kit now.",
        ),
        (
            "Can I exchange it?",
            "What can you do about this?",
            "Please let me know my options.",
        ),
    ),
    "Damaged in transit": IssueTexts(
        (
            "{Item} arrived damaged",
            "Package crushed - {item} damaged",
            "Damaged item received: {item}",
            "{Item} broken on arrival",
            "Shipping damage to my {item}",
            "My {item} came {damage}",
        ),
        (
            "The box was crushed when it arrived and the {item} inside is {damage}.",
            "My {item} came {damage}; the outer packaging was torn open on one side.",
            "The {item} arrived today {damage}.",
            "When I unpacked the {item} it was {damage}.",
        ),
        (
            "I have photos of the packaging.",
            "The courier left it in the rain by the door.",
            "The box looked like it had been dropped.",
        ),
        (
            "Please send a replacement.",
            "How do I get this sorted out?",
            "Can you arrange a new one?",
        ),
    ),
    "Missing parts": IssueTexts(
        (
            "Parts missing from my {item}",
            "{Item} is incomplete",
            "Missing pieces in the {item} box",
            "{Item} arrived without {part}",
            "Can't use my {item}: part missing",
            "Incomplete {item} delivery",
        ),
        (
            "My {item} arrived without {part}, so I cannot use it.",
            "I unpacked the {item} and {part} is missing from the box.",
            "The {item} is missing {part}.",
            "Everything for the {item} was there except {part}.",
        ),
        (
            "The manual lists it.",
            "I checked all the packaging twice.",
            "The rest looks fine.",
        ),
        (
            "Could you send the part separately?",
            "Can the missing piece be shipped to me?",
            "Please help me get it complete.",
        ),
    ),
    "Refund not received": IssueTexts(
        (
            "Refund for the {item} not received",
            "Still waiting on my refund",
            "Refund missing for the returned {item}",
            "Where is my money for the {item}?",
            "No refund yet for my return",
            "Refund status for the {item}",
        ),
        (
            "I returned the {item} {used} days ago and the refund has not appeared on my card.",
            "Your warehouse confirmed receipt of my returned {item}, but I have not been refunded.",
            "I was told my refund for the {item} was processed, yet nothing has arrived.",
            "I sent the {item} back and the money is still not in my account after {used} days.",
        ),
        (
            "I have the tracking number of the return.",
            "My bank says nothing is pending.",
            "I got an email saying the return was received.",
        ),
        (
            "When will I get it?",
            "Could you check what happened?",
            "Please look into it.",
        ),
    ),
    "Fabric pilling": IssueTexts(
        (
            "{Item} fabric pilling after a few washes",
            "Pilling on my new {item}",
            "Quality issue: {item} is pilling",
            "{Item} already looks worn out",
            "Bobbles all over my {item}",
            "Fabric of the {item} is pilling",
        ),
        (
            "After washing the {item} {washes} times as the label says, the fabric is covered in "
            "pills.",
            "My {item} is pilling under the arms after {washes} washes.",
            "The {item} started pilling within weeks.",
            "Little bobbles have formed all over the {item} already.",
        ),
        (
            "I followed the care instructions.",
            "I wash it cold and never tumble dry it.",
            "My older ones from you never did this.",
        ),
        (
            "Is this normal for this fabric?",
            "Can I get a replacement?",
            "What do you suggest?",
        ),
    ),
    "Return label request": IssueTexts(
        (
            "Need a return label for the {item}",
            "Return label request - {item}",
            "How do I return the {item}?",
            "Sending back my {item}",
            "Prepaid label for a return",
            "Return of the {item}",
        ),
        (
            "I would like to return the {item}.",
            "The {item} is not what I expected, so I want to send it back.",
            "I want to send back the {item} for a refund but cannot find the return label.",
            "I have decided to return the {item}.",
        ),
        (
            "It is unused and still has the tags on.",
            "I still have the original box.",
            "My account page shows no return option.",
        ),
        (
            "Could you email me a prepaid return label?",
            "Please send me a return label.",
            "How do I get a label?",
        ),
    ),
}

# Asides about something else that went fine: they mention another issue's words, so the
# issue has to be read from what is actually wrong. (aside, issue it must not appear with)
ASIDES: tuple[tuple[str, str], ...] = (
    ("Delivery itself was quick, no complaints there.", "Delayed delivery"),
    ("The color is exactly as pictured, which I like.", "Color differs from photos"),
    ("The size is right, so that is not the problem.", "Size chart mismatch"),
    ("The box arrived in perfect condition.", "Damaged in transit"),
    ("Everything listed in the manual was in the box.", "Missing parts"),
    ("I am not asking for a refund.", "Refund not received"),
    ("I do not want to cancel anything.", "Cancel order"),
    ("It is definitely the item I ordered.", "Wrong item received"),
    ("This is my third order with you this year.", ""),
    ("Your chat team was very friendly last time.", ""),
)
OPENERS = ("", "", "", "Hi. ", "Hello. ", "Hi there. ")

FILLS = {
    "direction": ("small", "large"),
    "size": ("S", "M", "L", "XL", "8", "9", "10.5", "11"),
    "color": ("navy", "forest green", "coral", "charcoal", "sky blue", "sunset orange"),
    "other_color": ("grey", "brown", "faded purple", "olive"),
    "event": (
        "a race next weekend",
        "a hiking trip",
        "my training camp",
        "a family vacation",
        "a tournament",
    ),
    "damage": (
        "scratched and dented",
        "torn on one side",
        "bent out of shape",
        "cracked",
        "covered in water stains",
    ),
    "part": (
        "the assembly screws",
        "one of the handles",
        "the carrying strap",
        "the instruction sheet and hex key",
        "the locking pins",
    ),
    "other": (
        "pair of kids' sandals",
        "yoga mat",
        "men's windbreaker",
        "set of tennis balls",
        "swim cap",
    ),
}


def _item(rng: random.Random, product: str, base: str | None) -> str:
    """How the customer names the product: its full name, or more loosely."""
    if base is None or rng.random() < 0.55:
        return product
    loose = base.lower()
    return rng.choice((loose, f"new {loose}", loose.split()[-1]))


def case_text(
    rng: random.Random,
    issue: str,
    product: str,
    days: int | None = None,
    base: str | None = None,
    *,
    item: str | None = None,
) -> tuple[str, str]:
    """A (Subject, Description) pair for a case about ``issue`` on ``product``.

    Args:
        rng: The generator's random source.
        issue: Issue name (a key of :data:`CASE_TEXTS`).
        product: Product name as shown to customers.
        days: Days since the purchase, so "I ordered it 12 days ago" agrees with the order
            date; drawn at random for cases that have no order yet.
        base: The kind of product ("Trail Running Shoes"), for looser mentions of it.
        item: How the customer names the product, when the caller decides it (the new cases
            of routing questions must name it so that it can be told apart).
    """
    parts = CASE_TEXTS[issue]
    fills = {key: rng.choice(values) for key, values in FILLS.items()}
    # The wrong item that arrived is never the same kind of thing as the one ordered.
    others = [o for o in FILLS["other"] if o.split()[-1].rstrip("s") not in product.lower()]
    fills["other"] = rng.choice(others or FILLS["other"])
    fills["fit"] = "tight" if fills["direction"] == "small" else "loose"
    since = days if days is not None else rng.randint(4, 21)
    fills["days"] = str(since)
    # Days of use, in transit or since a return: always within the time since purchase.
    fills["used"] = str(max(1, since - rng.randint(2, 5)))
    fills["washes"] = str(rng.randint(2, 5))
    fills["item"] = item if item is not None else _item(rng, product, base)
    fills["Item"] = fills["item"][:1].upper() + fills["item"][1:]
    subject = rng.choice(parts.subjects).format(**fills)
    sentences = [rng.choice(parts.openings), rng.choice(parts.details)]
    if rng.random() < 0.3:
        aside = rng.choice([text for text, not_with in ASIDES if not_with != issue])
        sentences.insert(rng.randint(1, 2), aside)
    sentences.append(rng.choice(parts.asks))
    description = rng.choice(OPENERS) + " ".join(sentences).format(**fills)
    return subject[:1].upper() + subject[1:], description
