"""Scale presets, value formatting and the count-splitting helper."""

from __future__ import annotations

import random
from datetime import date, datetime

import pytest

from crmtui.errors import ConfigError
from crmtui.org.generator.config import (
    SCALES,
    fmt_bool,
    fmt_date,
    fmt_datetime,
    fmt_number,
    scale_config,
    spread,
)


def test_full_scale_matches_the_paper_volumes() -> None:
    full = SCALES["full"]
    assert (full.cases, full.orders, full.emails, full.order_items) == (977, 2_071, 3_234, 71_000)
    assert (full.pricebooks + 1) * full.products == 22_000
    stress = SCALES["stress"]
    assert stress.cases == 10 * full.cases and stress.order_items == 10 * full.order_items


def test_scale_config_names_the_choices() -> None:
    assert scale_config("small").name == "small"
    with pytest.raises(ConfigError, match="small, full, stress"):
        scale_config("tiny")


def test_value_formats() -> None:
    assert fmt_datetime(datetime(2024, 5, 26, 6, 58)) == "2024-05-26T06:58:00.000+0000"
    assert fmt_date(date(2024, 5, 26)) == "2024-05-26"
    assert fmt_number(2) == "2.0"
    assert fmt_number(59.99) == "59.99"
    assert fmt_number(0.1 + 0.2) == "0.3"
    assert (fmt_bool(True), fmt_bool(False)) == ("1", "0")


@pytest.mark.parametrize(
    ("total", "slots", "minimum", "maximum"),
    [(71_000, 2_071, 1, 200), (1_000, 500, 1, None), (5, 10, 1, None)],
)
def test_spread_hits_the_total_within_bounds(
    total: int, slots: int, minimum: int, maximum: int | None
) -> None:
    counts = spread(total, slots, random.Random(4), minimum=minimum, maximum=maximum)
    assert len(counts) == slots
    assert sum(counts) == total
    if minimum * slots <= total:
        assert min(counts) >= minimum
    if maximum is not None:
        assert max(counts) <= maximum
    assert len(set(counts)) > 1  # uneven on purpose
