"""The assortment: issue names, product categories, base products and their wording.

Pure data; ``catalog.py`` turns it into products, prices and latent traits.
"""

from __future__ import annotations

from dataclasses import dataclass

ALL_KINDS = frozenset({"shoes", "apparel", "equipment"})

# (name, product kinds it can affect)
ISSUES: tuple[tuple[str, frozenset[str]], ...] = (
    ("Size chart mismatch", frozenset({"shoes", "apparel"})),
    ("Wrong item received", ALL_KINDS),
    ("Delayed delivery", ALL_KINDS),
    ("Cancel order", ALL_KINDS),
    ("Defective zipper", frozenset({"apparel"})),
    ("Sole separation", frozenset({"shoes"})),
    ("Color differs from photos", frozenset({"shoes", "apparel"})),
    ("Damaged in transit", frozenset({"shoes", "equipment"})),
    ("Missing parts", frozenset({"equipment"})),
    ("Refund not received", ALL_KINDS),
    ("Fabric pilling", frozenset({"apparel"})),
    ("Return label request", ALL_KINDS),
)


@dataclass(frozen=True)
class Category:
    """A product category and the product bases sold in it."""

    name: str
    code: str
    kind: str
    gendered: bool
    bases: tuple[str, ...]
    price_range: tuple[int, int]
    # Months (1-12) around which this category's cases cluster.
    season: tuple[int, ...]


CATEGORIES: tuple[Category, ...] = (
    Category(
        "Running Shoes",
        "RUN",
        "shoes",
        True,
        (
            "Road Running Shoes",
            "Trail Running Shoes",
            "Racing Flats",
            "Stability Running Shoes",
            "Cushioned Running Shoes",
        ),
        (79, 189),
        (3, 4, 9),
    ),
    Category(
        "Hiking Footwear",
        "HIK",
        "shoes",
        True,
        (
            "Hiking Boots",
            "Waterproof Hiking Shoes",
            "Trail Sandals",
            "Snow Boots",
            "Approach Shoes",
        ),
        (59, 229),
        (5, 6, 10, 12),
    ),
    Category(
        "Court & Training Shoes",
        "CRT",
        "shoes",
        True,
        (
            "Tennis Shoes",
            "Basketball Shoes",
            "Cross-Training Shoes",
            "Golf Shoes",
            "Classic Court Sneakers",
        ),
        (69, 169),
        (4, 8, 11),
    ),
    Category(
        "Outerwear",
        "OUT",
        "apparel",
        True,
        (
            "Trail Jacket",
            "Rain Shell",
            "Insulated Parka",
            "Fleece Hoodie",
            "Softshell Vest",
            "Windbreaker",
        ),
        (49, 279),
        (1, 10, 11, 12),
    ),
    Category(
        "Activewear Tops",
        "TOP",
        "apparel",
        True,
        ("Running Tank", "Yoga Tank", "Compression Shirt", "Base Layer Top", "Performance Polo"),
        (19, 69),
        (2, 5, 6, 7),
    ),
    Category(
        "Activewear Bottoms",
        "BOT",
        "apparel",
        True,
        ("Running Shorts", "Training Joggers", "Yoga Leggings", "Hiking Pants", "Cycling Shorts"),
        (24, 89),
        (3, 6, 7, 9),
    ),
    Category(
        "Swimwear",
        "SWM",
        "apparel",
        True,
        ("Swim Trunks", "Racing Swimsuit", "Rash Guard"),
        (24, 79),
        (5, 6, 7),
    ),
    Category(
        "Fitness Equipment",
        "FIT",
        "equipment",
        False,
        (
            "Dumbbell Set",
            "Yoga Mat",
            "Resistance Bands",
            "Kettlebell",
            "Foam Roller",
            "Jump Rope",
            "Adjustable Bench",
        ),
        (14, 349),
        (1, 2, 11),
    ),
    Category(
        "Racket Sports",
        "RKT",
        "equipment",
        False,
        ("Tennis Racket", "Badminton Set", "Pickleball Paddle", "Squash Racket"),
        (29, 229),
        (4, 5, 8),
    ),
    Category(
        "Camping Gear",
        "CMP",
        "equipment",
        False,
        (
            "Backpacking Tent",
            "Sleeping Bag",
            "Hiking Backpack",
            "Trekking Poles",
            "Camp Stove",
            "Insulated Water Bottle",
        ),
        (19, 399),
        (4, 6, 7, 8),
    ),
    Category(
        "Accessories",
        "ACC",
        "equipment",
        False,
        (
            "Running Cap",
            "Merino Socks",
            "Winter Gloves",
            "Duffel Bag",
            "Sport Sunglasses",
            "Swim Cap",
        ),
        (9, 129),
        (1, 6, 10, 12),
    ),
)

GENDERS = ("Women's", "Men's", "Kids'")
SERIES = ("Summit", "Apex", "Ridge", "Velocity", "Core", "Elite", "Nimbus", "Cascade", "Zenith")

FEATURES = {
    "shoes": (
        "a responsive foam midsole",
        "a grippy multi-directional outsole",
        "a breathable engineered mesh upper",
        "a cushioned heel counter",
        "a waterproof membrane",
    ),
    "apparel": (
        "moisture-wicking recycled fabric",
        "four-way stretch",
        "flatlock seams",
        "a water-repellent finish",
        "reflective trim for low light",
    ),
    "equipment": (
        "a durable powder-coated finish",
        "non-slip grips",
        "a lightweight aluminum frame",
        "a compact travel design",
        "impact-resistant materials",
    ),
}
