"""Product catalogue: categories, products, issues and price books.

Every product carries latent traits the analyst tasks measure, plus a popularity that skews
case volume:

* an issue mix that changes over time: the product's history is cut into eras of five to
  fourteen months (a bad batch of soles, a carrier's bad season, a size chart that was wrong
  until someone fixed it), each with its own dominant problem, so "the most reported issue in
  a period" has a clear answer that is usually not the product's all-time top issue;
* month weights per year: a mild seasonal rise around the category's months, and each year a
  strong peak in a month of its own (that year's promotion, and the cases that follow its
  sales), so "the month with significantly more cases" in a window has a clear answer that is
  usually not the product's all-time busiest month.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import cached_property

from crmtui.org.generator.assortment import CATEGORIES, FEATURES, GENDERS, ISSUES, SERIES, Category
from crmtui.org.generator.config import (
    CASES_END,
    CASES_START,
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
    # (first day of the era, issue weights in it), oldest first; see the module docstring.
    issue_eras: list[tuple[date, dict[int, float]]] = field(default_factory=list)
    # year -> weights of its twelve months
    year_months: dict[int, list[float]] = field(default_factory=dict)
    # What its description says it is built with ("a cushioned heel counter").
    feature: str = ""

    @property
    def noun(self) -> str:
        """The last word of the name, lower-cased: what kind of thing it is ("jacket")."""
        return self.name.split()[-1].lower()

    def issues_on(self, day: date) -> dict[int, float]:
        """Issue weights of the era ``day`` falls in (the overall mix without eras)."""
        weights = self.issue_weights
        for start, era in self.issue_eras:
            if start > day:
                break
            weights = era
        return weights


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

    def same_kind(self, index: int) -> list[int]:
        """Indexes of the other products whose name ends with the same word ("... Jacket")."""
        return [i for i in self._kinds[self.products[index].noun] if i != index]

    @cached_property
    def _kinds(self) -> dict[str, list[int]]:
        kinds: dict[str, list[int]] = {}
        for index, product in enumerate(self.products):
            kinds.setdefault(product.noun, []).append(index)
        return kinds

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


def _era_weights(
    rng: random.Random, applicable: list[int], avoid: set[int]
) -> tuple[int, dict[int, float]]:
    """One era's issue mix: a dominant problem (none an earlier era had), a second, the rest."""
    dominant = rng.choice([i for i in applicable if i not in avoid] or applicable)
    second = rng.choice([i for i in applicable if i != dominant])
    weights = {i: 1.0 for i in applicable}
    weights[dominant] = rng.uniform(7.0, 10.0)
    weights[second] = rng.uniform(2.0, 3.5)
    return dominant, weights


def _issue_eras(rng: random.Random, applicable: list[int]) -> list[tuple[date, dict[int, float]]]:
    """Eras of five to fourteen months covering the case timeline, each with its own mix."""
    eras: list[tuple[date, dict[int, float]]] = []
    start = date(CASES_START.year, CASES_START.month, 1)
    used: set[int] = set()
    while start <= CASES_END:
        dominant, weights = _era_weights(rng, applicable, used)
        used.add(dominant)
        eras.append((start, weights))
        months = start.year * 12 + start.month - 1 + rng.randint(5, 14)
        start = date(months // 12, months % 12 + 1, 1)
    return eras


def _year_months(rng: random.Random, season: tuple[int, ...]) -> tuple[dict[int, list[float]], int]:
    """Month weights per year: a mild seasonal rise and a strong peak that moves each year."""
    base = [1.0] * 12
    for month in season:
        base[month - 1] += 0.6
    years: dict[int, list[float]] = {}
    peak = 0
    for year in range(CASES_START.year, CASES_END.year + 1):
        # Each year's peak lands on a month no earlier year of this product peaked in.
        used = {max(range(12), key=w.__getitem__) + 1 for w in years.values()}
        peak = rng.choice([m for m in range(1, 13) if m not in used] or list(range(1, 13)))
        months = list(base)
        months[peak - 1] = rng.uniform(8.0, 11.0)
        months[peak % 12] += 1.5
        months[(peak - 2) % 12] += 1.0
        years[year] = months
    return years, peak


def _traits(
    rng: random.Random, cat: Category
) -> tuple[
    dict[int, float],
    list[float],
    list[int],
    list[tuple[date, dict[int, float]]],
    dict[int, list[float]],
]:
    applicable = [i for i, (_, kinds) in enumerate(ISSUES) if cat.kind in kinds]
    eras = _issue_eras(rng, applicable)
    # The overall mix (for texts of cases not in the org): the eras' mixes averaged.
    overall = {i: sum(w[i] for _, w in eras) / len(eras) for i in applicable}
    years, _ = _year_months(rng, cat.season)
    months = [sum(w[m] for w in years.values()) / len(years) for m in range(12)]
    peaks = sorted({max(range(12), key=w.__getitem__) + 1 for w in years.values()})
    return overall, months, peaks, eras, years


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
        issue_weights, months, peaks, eras, years = _traits(rng, cat)
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
            issue_eras=eras,
            year_months=years,
        )
        products.append(product)
        feature = product.feature = rng.choice(FEATURES[cat.kind])
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
