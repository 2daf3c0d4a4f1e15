"""Product catalogue: categories, products, issues and price books.

Every product carries latent traits the analyst tasks measure: an issue mix (one dominant
problem, so "top issue" questions have an answer) and month weights with a seasonal peak (so
"monthly trend" questions have an answer), plus a popularity that skews case volume.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property

from crmtui.org.generator.assortment import CATEGORIES, FEATURES, GENDERS, ISSUES, SERIES, Category
from crmtui.org.generator.config import (
    CASES_END,
    COMPANY,
    ORDERS_START,
    ScaleConfig,
    fmt_bool,
    fmt_datetime,
    fmt_number,
)
from crmtui.org.generator.ids import IdFactory

Row = dict[str, str | None]
# Zipf exponent of product popularity: the busiest dozen products get about half the cases,
# enough for their questions to rest on several cases per window.
POPULARITY_SKEW = 1.0


@dataclass
class Product:
    """A generated product and its latent traits."""

    id: str
    name: str
    base: str
    category: int
    kind: str
    keywords: list[str]
    list_price: float
    issue_weights: dict[int, float]
    month_weights: list[float]
    popularity: float
    peak_months: list[int] = field(default_factory=list)


@dataclass
class Catalog:
    """Everything the catalogue step produces."""

    issue_ids: list[str]
    category_ids: list[str]
    products: list[Product]
    book_ids: list[str]
    # periodic book index -> (first day, day after the last); book 0 is the standard book
    book_spans: list[tuple[datetime, datetime]]
    # entries[book][product] = (entry Id, unit price)
    entries: list[list[tuple[str, float]]]
    tables: dict[str, list[Row]]

    def book_for(self, when: datetime) -> int:
        """Index of the dated price book covering ``when`` (0, the standard book, if none)."""
        index = bisect_right(self._starts, when)
        if index == 0 or when >= self.book_spans[index][1]:
            return 0
        return index

    @cached_property
    def _starts(self) -> list[datetime]:
        # Spans 1.. are contiguous and sorted; bisect over their starts.
        return [span[0] for span in self.book_spans[1:]]


def _price(rng: random.Random, low: int, high: int) -> float:
    return float(rng.randint(low, high)) + (0.99 if rng.random() < 0.8 else 0.0)


def _candidates(rng: random.Random) -> list[list[tuple[str, str]]]:
    """Per category, (name, base) candidates: plain names first, series variants after."""
    out = []
    for cat in CATEGORIES:
        plain, series = [], []
        for base in cat.bases:
            if cat.gendered:
                plain += [(f"{g} {base}", base) for g in GENDERS[:2]]
                series += [(f"{g} {s} {base}", base) for g in GENDERS for s in SERIES]
                series.append((f"{GENDERS[2]} {base}", base))
            else:
                plain.append((f"{SERIES[len(plain) % len(SERIES)]} {base}", base))
                series += [(f"{s} {base}", base) for s in SERIES]
        rng.shuffle(plain)
        rng.shuffle(series)
        seen = {name for name, _ in plain}
        out.append(plain + [c for c in series if c[0] not in seen])
    return out


def _keywords(name: str, base: str) -> list[str]:
    words = [name.lower()]
    for candidate in (base.lower(), base.split()[-1].lower()):
        if candidate not in words:
            words.append(candidate)
    return words


def _traits(rng: random.Random, cat: Category) -> tuple[dict[int, float], list[float], list[int]]:
    applicable = [i for i, (_, kinds) in enumerate(ISSUES) if cat.kind in kinds]
    weights = {i: 1.0 for i in applicable}
    dominant, second = rng.sample(applicable, 2)
    weights[dominant] = rng.uniform(7.0, 10.0)
    weights[second] = rng.uniform(2.5, 4.0)
    # A clear seasonal peak: about 40% of a product's cases arrive in its peak month, so a
    # window around the peak holds several cases of that month and fewer of the others.
    peak = rng.choice(cat.season) if rng.random() < 0.8 else rng.randint(1, 12)
    months = [1.0] * 12
    months[peak - 1] = rng.uniform(8.0, 11.0)
    months[peak % 12] += 1.5
    months[(peak - 2) % 12] += 1.0
    return weights, months, [peak]


def build_catalog(cfg: ScaleConfig, rng: random.Random, ids: dict[str, IdFactory]) -> Catalog:
    """Generate issues, categories, products, the category links and price books."""
    tables: dict[str, list[Row]] = {}
    issue_ids = ids["Issue__c"].take(len(ISSUES))
    tables["Issue__c"] = [{"Id": i, "Name": n} for i, (n, _) in zip(issue_ids, ISSUES, strict=True)]

    # ProductCatalog is not one of the 16 objects, but CatalogId should still look real.
    catalog_id = IdFactory("0ZS", rng).next()
    category_ids = ids["ProductCategory"].take(len(CATEGORIES) + 1)
    tables["ProductCategory"] = [
        {"Id": cid, "CatalogId": catalog_id, "Name": cat.name}
        for cid, cat in zip(category_ids, CATEGORIES, strict=False)
    ] + [{"Id": category_ids[-1], "CatalogId": catalog_id, "Name": "Best Sellers"}]

    pools = _candidates(rng)
    chosen: list[tuple[int, str, str]] = []
    cursor = [0] * len(CATEGORIES)
    while len(chosen) < cfg.products:
        progressed = False
        for ci, pool in enumerate(pools):
            if len(chosen) < cfg.products and cursor[ci] < len(pool):
                chosen.append((ci, *pool[cursor[ci]]))
                cursor[ci] += 1
                progressed = True
        if not progressed:
            break

    products: list[Product] = []
    product_rows: list[Row] = []
    links: list[Row] = []
    ranks = list(range(1, len(chosen) + 1))
    rng.shuffle(ranks)
    for (ci, name, base), rank, pid in zip(
        chosen, ranks, ids["Product2"].take(len(chosen)), strict=True
    ):
        cat = CATEGORIES[ci]
        issue_weights, months, peaks = _traits(rng, cat)
        product = Product(
            id=pid,
            name=name,
            base=base,
            category=ci,
            kind=cat.kind,
            keywords=_keywords(name, base),
            list_price=_price(rng, *cat.price_range),
            issue_weights=issue_weights,
            month_weights=months,
            popularity=1.0 / rank**POPULARITY_SKEW,
            peak_months=peaks,
        )
        products.append(product)
        feature = rng.choice(FEATURES[cat.kind])
        product_rows.append(
            {
                "Id": pid,
                "Description": f"The {name} from the {COMPANY} {cat.name.lower()} range, "
                f"built with {feature}.",
                "External_ID__c": f"TP-{cat.code}-{len(products):05d}",
                "IsActive": fmt_bool(rng.random() < 0.92),
                "Name": name,
            }
        )
        links.append({"Id": "", "ProductCategoryId": category_ids[ci], "ProductId": pid})
        if product.popularity > 0.25:
            links.append({"Id": "", "ProductCategoryId": category_ids[-1], "ProductId": pid})
    for link in links:
        link["Id"] = ids["ProductCategoryProduct"].next()
    tables["Product2"] = product_rows
    tables["ProductCategoryProduct"] = links

    book_ids, spans, entries = _price_books(cfg, rng, ids, products, tables)
    return Catalog(issue_ids, category_ids, products, book_ids, spans, entries, tables)


def _price_books(
    cfg: ScaleConfig,
    rng: random.Random,
    ids: dict[str, IdFactory],
    products: list[Product],
    tables: dict[str, list[Row]],
) -> tuple[list[str], list[tuple[datetime, datetime]], list[list[tuple[str, float]]]]:
    start = datetime(ORDERS_START.year, ORDERS_START.month, ORDERS_START.day)
    end = datetime(CASES_END.year, CASES_END.month, CASES_END.day) + timedelta(days=36)
    length = (end - start) / cfg.pricebooks
    spans = [(start, end)] + [
        (start + length * i, start + length * (i + 1)) for i in range(cfg.pricebooks)
    ]
    book_ids = ids["Pricebook2"].take(len(spans))
    books: list[Row] = [
        {
            "Id": book_ids[0],
            "Description": f"List prices for every {COMPANY} product.",
            "IsActive": "1",
            "Name": "Standard Price Book",
            "ValidFrom": None,
            "ValidTo": None,
        }
    ]
    for index in range(1, len(spans)):
        first, after = spans[index]
        first = first.replace(hour=0, minute=0, second=0, microsecond=0)
        last = (after - timedelta(seconds=1)).replace(microsecond=0)
        books.append(
            {
                "Id": book_ids[index],
                "Description": f"Online prices and seasonal markdowns from {first:%B %d, %Y} "
                f"to {last:%B %d, %Y}.",
                "IsActive": fmt_bool(after.date() > CASES_END),
                "Name": f"Online Price Book {first:%Y-%m-%d}",
                "ValidFrom": fmt_datetime(first),
                "ValidTo": fmt_datetime(last),
            }
        )
    tables["Pricebook2"] = books
    entry_rows: list[Row] = []
    entries: list[list[tuple[str, float]]] = []
    factors = (1.0, 1.0, 1.0, 0.9, 0.85, 0.8, 0.75)
    entry_ids = ids["PricebookEntry"]
    for index, book_id in enumerate(book_ids):
        per_category = [1.0 if index == 0 else rng.choice(factors) for _ in CATEGORIES]
        row_entries = []
        for product in products:
            price = product.list_price * per_category[product.category]
            if price != product.list_price:
                price = float(int(price)) + 0.99
            entry_id = entry_ids.next()
            row_entries.append((entry_id, price))
            entry_rows.append(
                {
                    "Id": entry_id,
                    "Pricebook2Id": book_id,
                    "Product2Id": product.id,
                    "UnitPrice": fmt_number(price),
                }
            )
        entries.append(row_entries)
    tables["PricebookEntry"] = entry_rows
    return book_ids, spans, entries
