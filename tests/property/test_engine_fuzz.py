"""The engine under hostile input: only Salesforce-voiced QueryErrors, never a leak or a crash.

Grammar-aware generation and mutation (``fuzzgen``) plus hypothesis over the literal slots
where Python and SQLite limits lurk. ``scripts/fuzz.py`` runs the same generator for
100,000+ queries with a summary; this is the quick CI share.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crmtui.query import QueryBudget, run

from .fuzzgen import FAILURES, QueryFuzzer, classify

TODAY = dt.date(2024, 5, 1)
# A generous time limit: CI machines are slow, and "slow" is judged by the classifier.
BUDGET = QueryBudget(timeout_s=60.0)


def _outcome(org: Any, text: str) -> tuple[str, str]:
    return classify(lambda t: run(org, t, today=TODAY, budget=BUDGET), text, slow_ms=5000)


def _assert_clean(org: Any, text: str) -> str:
    outcome, detail = _outcome(org, text)
    assert outcome not in FAILURES, f"{outcome}: {detail}\nfor {text[:400]!r}"
    return outcome


@pytest.mark.parametrize("which", ["scan", "fts"])
def test_generated_and_mutated_queries(gen_org: Any, gen_fts_org: Any, which: str) -> None:
    org = gen_fts_org if which == "fts" else gen_org
    fuzzer = QueryFuzzer(org.schema, seed=1411 if which == "fts" else 1412)
    outcomes: dict[str, int] = {}
    for _ in range(600):
        outcome = _assert_clean(org, fuzzer.next())
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    # The generator reaches both sides: answers and refusals of several kinds.
    assert outcomes.get("ok", 0) > 50
    assert len([k for k in outcomes if k.startswith("QueryError:")]) >= 4


NUMERIC_SLOTS = [
    "SELECT Id FROM Case LIMIT {}",
    "SELECT Id FROM Case OFFSET {}",
    "SELECT Id FROM Case WHERE Subject = 'x' AND CreatedDate = LAST_N_DAYS:{}",
    "SELECT Id FROM OrderItem WHERE Quantity > {}",
    "SELECT Id FROM OrderItem WHERE Quantity IN (1, {})",
    "SELECT Status, COUNT(Id) FROM Case GROUP BY Status HAVING COUNT(Id) > {}",
    "FIND {{late}} RETURNING Case(Id LIMIT {})",
    "FIND {{late}} RETURNING Case(Id OFFSET {})",
    "FIND {{late}} LIMIT {}",
    "FIND {{late}} RETURNING OrderItem(Id WHERE Quantity < {})",
]


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(
    slot=st.sampled_from(NUMERIC_SLOTS),
    number=st.one_of(
        st.integers(min_value=-(10**60), max_value=10**60),
        # Past Python's 4,300-digit int() limit (written as text: str() would refuse too).
        st.tuples(st.integers(1, 6000), st.sampled_from("19")).map(lambda t: t[1] * t[0]),
        st.floats(allow_nan=False, allow_infinity=False).map(lambda f: f"{f:f}"),
    ),
)
def test_hostile_numbers_in_every_numeric_slot(gen_fts_org: Any, slot: str, number: Any) -> None:
    _assert_clean(gen_fts_org, slot.format(number))


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(
    year=st.integers(min_value=0, max_value=99999),
    month=st.integers(min_value=0, max_value=13),
    day=st.integers(min_value=0, max_value=32),
    zone=st.sampled_from(["Z", "+14:00", "-14:00", "+99:99", "-00:30"]),
    as_date=st.booleans(),
)
def test_hostile_dates(
    gen_fts_org: Any, year: int, month: int, day: int, zone: str, as_date: bool
) -> None:
    literal = f"{year:04d}-{month:02d}-{day:02d}" + ("" if as_date else f"T23:59:59{zone}")
    field = "EffectiveDate" if as_date else "CreatedDate"
    obj = "Order" if as_date else "Case"
    _assert_clean(gen_fts_org, f"SELECT Id FROM {obj} WHERE {field} >= {literal}")


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(
    text=st.text(
        alphabet=st.characters(codec=None, exclude_categories=()),
        max_size=60,
    ),
    template=st.sampled_from(
        [
            "SELECT Id FROM Case WHERE Subject = '{}'",
            "SELECT Id FROM Case WHERE Subject LIKE '%{}%'",
            "FIND {{{}}} RETURNING Case(Id)",
            "FIND '{}'",
            "SELECT Id FROM Case WHERE {}",
            "{}",
        ]
    ),
)
def test_any_unicode_including_lone_surrogates(gen_org: Any, text: str, template: str) -> None:
    _assert_clean(gen_org, template.format(text))


@pytest.mark.parametrize("depth", [1, 20, 45, 63, 64, 65, 200, 20_000])
def test_nesting_sweep(gen_fts_org: Any, depth: int) -> None:
    leaf = "Status = 'New'"
    inner = leaf
    for level in range(min(depth, 64)):
        kind = level % 3
        inner = f"NOT ({inner})" if kind == 0 else f"({inner} {['AND', 'OR'][kind - 1]} {leaf})"
    for text in (
        "SELECT Id FROM Case WHERE " + inner,
        "SELECT Id FROM Case WHERE " + "(" * depth + leaf + ")" * depth,
        "FIND {late} RETURNING Case(Id WHERE " + "(" * depth + leaf + ")" * depth + ")",
        "FIND {" + "(" * depth + "late" + ")" * depth + "}",
    ):
        _assert_clean(gen_fts_org, text)


@pytest.mark.parametrize("terms", [1, 99, 150, 200, 201, 3000])
@pytest.mark.parametrize("joiner", [" ", " OR ", " AND NOT "])
def test_term_count_sweep(gen_org: Any, gen_fts_org: Any, terms: int, joiner: str) -> None:
    text = "FIND {" + joiner.join(f"word{i}" for i in range(terms)) + "} RETURNING Case(Id)"
    for org in (gen_org, gen_fts_org):
        _assert_clean(org, text)
