"""Customer-voice case texts: a Subject and a Description per (issue, product).

The same generator writes the org's case texts and the unseen "new case" texts of the routing
task, so both read alike. Templates are ours; the fills come from the seeded rng.
"""

from __future__ import annotations

import random

# issue name -> (subject templates, description templates)
CASE_TEXTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "Size chart mismatch": (
        (
            "{product} runs {direction} compared to the size chart",
            "Size chart seems off for the {product}",
            "Sizing problem with my {product}",
        ),
        (
            "I ordered a size {size} {product} going by your size chart, but it is clearly too "
            "{fit}. My measurements match the chart exactly.",
            "The {product} I received does not match the measurements listed in the size chart. "
            "Size {size} should fit me, yet it feels a full size too {fit}.",
            "Followed the size guide for the {product} and picked {size}. It is far too {fit}; "
            "is the chart for this model wrong?",
        ),
    ),
    "Wrong item received": (
        (
            "Received the wrong item instead of {product}",
            "Wrong product in my package",
            "Order arrived with a different item than the {product}",
        ),
        (
            "My order should contain the {product}, but the box had a {other} in it. The packing "
            "slip still lists the {product}.",
            "I opened the package today and found a {other} instead of the {product} I paid for. "
            "Please send the correct item.",
            "The item delivered is not the {product} I ordered ({color}). It looks like someone "
            "else's order was packed.",
        ),
    ),
    "Delayed delivery": (
        (
            "Where is my {product}? Delivery is late",
            "Order still not delivered after {days} days",
            "Late delivery of {product}",
        ),
        (
            "I ordered the {product} {days} days ago and tracking has not moved since it left the "
            "warehouse. I need it before {event}.",
            "My {product} was supposed to arrive last week. Tracking says 'in transit' for {used} "
            "days now. Can you check with the carrier?",
            "Still waiting on the {product}. The estimated delivery date passed and nobody has "
            "updated me.",
        ),
    ),
    "Cancel order": (
        (
            "Please cancel my order for the {product}",
            "Cancel order request - {product}",
            "Need to cancel a recent order",
        ),
        (
            "I placed an order for the {product} by mistake and would like to cancel it before it "
            "ships.",
            "Please cancel my order with the {product}. I found I no longer need it for {event}.",
            "I ordered the {product} twice by accident. Could you cancel one of the orders and "
            "refund it?",
        ),
    ),
    "Defective zipper": (
        (
            "Zipper broke on my {product}",
            "Defective zipper on the {product}",
            "{product} zipper keeps splitting",
        ),
        (
            "The main zipper on my {product} separated after only {used} days of light use. The "
            "teeth no longer line up.",
            "The zipper on the {product} is stuck halfway and the pull came off in my hand. I have "
            "worn it a handful of times.",
            "My new {product} has a zipper that splits open from the bottom whenever I move. "
            "This seems like a manufacturing defect.",
        ),
    ),
    "Sole separation": (
        (
            "Sole coming off my {product}",
            "{product} sole is separating",
            "Glue failure on the {product}",
        ),
        (
            "The sole on my {product} started peeling away at the toe after about {used} days. I "
            "only use them for {event}.",
            "One of my {product} has a sole that is separating from the upper along the side. "
            "They are nearly new.",
            "The outsole on the left {product} is detaching at the heel. I would like a "
            "replacement pair.",
        ),
    ),
    "Color differs from photos": (
        (
            "{product} color is different from the photos",
            "Color mismatch on my {product}",
            "The {product} is not the color I ordered",
        ),
        (
            "The {product} I received is a much duller shade than the {color} shown on the "
            "website.",
            "I chose the {color} {product}, but in person it looks closer to {other_color}. The "
            "product photos are misleading.",
            "The color of my {product} does not match the listing at all; it was advertised as "
            "{color}.",
        ),
    ),
    "Damaged in transit": (
        (
            "{product} arrived damaged",
            "Package crushed - {product} damaged",
            "Damaged item received: {product}",
        ),
        (
            "The box was crushed when it arrived and the {product} inside is {damage}.",
            "My {product} came {damage}. The outer packaging was torn open on one side.",
            "The {product} arrived today {damage}; I have photos of the packaging.",
        ),
    ),
    "Missing parts": (
        (
            "Parts missing from my {product}",
            "{product} is incomplete",
            "Missing pieces in {product} box",
        ),
        (
            "My {product} arrived without {part}, so I cannot use it.",
            "I unpacked the {product} and {part} is missing from the box. The manual lists it.",
            "The {product} is missing {part}. Could you send the part separately?",
        ),
    ),
    "Refund not received": (
        (
            "Refund for the {product} not received",
            "Still waiting on my refund",
            "Refund missing for returned {product}",
        ),
        (
            "I returned the {product} {used} days ago and the refund has not appeared on my "
            "card yet.",
            "Your warehouse confirmed receipt of my returned {product}, but I have not been "
            "refunded after {used} days.",
            "I was told my refund for the {product} was processed, yet nothing has arrived after "
            "{used} days.",
        ),
    ),
    "Fabric pilling": (
        (
            "{product} fabric pilling after few washes",
            "Pilling on my new {product}",
            "Quality issue: {product} is pilling",
        ),
        (
            "After washing the {product} {washes} times as the label says, the fabric is covered "
            "in pills.",
            "My {product} already looks worn out: the fabric is pilling under the arms after "
            "{washes} washes.",
            "The {product} started pilling within weeks. I followed the care instructions.",
        ),
    ),
    "Return label request": (
        (
            "Need a return label for the {product}",
            "Return label request - {product}",
            "How do I return the {product}?",
        ),
        (
            "I would like to return the {product}; could you email me a prepaid return label?",
            "The {product} is not what I expected. Please send me a return label so I can send "
            "it back.",
            "I want to send back the {product} for a refund but cannot find the return label in "
            "my account.",
        ),
    ),
}

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


def case_text(
    rng: random.Random, issue: str, product: str, days: int | None = None
) -> tuple[str, str]:
    """A (Subject, Description) pair for a case about ``issue`` on ``product``.

    Args:
        rng: The generator's random source.
        issue: Issue name (a key of :data:`CASE_TEXTS`).
        product: Product name as shown to customers.
        days: Days since the purchase, so "I ordered it 12 days ago" agrees with the order
            date; drawn at random for cases that have no order yet.
    """
    subjects, descriptions = CASE_TEXTS[issue]
    fills = {key: rng.choice(values) for key, values in FILLS.items()}
    fills["fit"] = "tight" if fills["direction"] == "small" else "loose"
    since = days if days is not None else rng.randint(4, 21)
    fills["days"] = str(since)
    # Days of use, in transit or since a return: always within the time since purchase.
    fills["used"] = str(max(1, since - rng.randint(2, 5)))
    fills["washes"] = str(rng.randint(2, 5))
    fills["product"] = product
    subject = rng.choice(subjects).format(**fills)
    return subject[0].upper() + subject[1:], rng.choice(descriptions).format(**fills)
