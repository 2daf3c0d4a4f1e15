"""Assignment: balance per type, overlap exactly as asked, determinism, no repeats."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crmtui.errors import ConfigError
from crmtui.study.assign import (
    apportion,
    assign,
    choose_pool,
    choose_practice,
    coverage,
    design,
    extend,
)


def pool(types: int, per_type: int) -> dict[int, str]:
    return {t * 100 + n: f"type{t}" for t in range(types) for n in range(per_type)}


def check(types: dict[int, str], names: list[str], shared: float, overlap: int, seed: int) -> None:
    plan = design(types, shared=shared, overlap=overlap, seed=seed)
    result = assign(plan, names, seed=seed, practice=(999,))
    covered = coverage(result)
    # Every instance of the pool is done, shared ones by exactly `overlap` people.
    assert set(covered) == set(types)
    for idx, people in covered.items():
        assert len(people) == (overlap if idx in plan.shared else 1)
        assert len(set(people)) == len(people)
    # The shared share, rounded, and spread over the types.
    assert len(plan.shared) == (round(shared * len(types)) if overlap > 1 else 0)
    # Nobody gets an instance twice; practice comes first.
    for item in result.values():
        assert len(set(item.instances)) == len(item.instances)
        assert item.order[: len(item.practice)] == (999,)
    # Per type and overall, loads differ by at most one.
    for code in set(types.values()):
        loads = [sum(types[i] == code for i in item.instances) for item in result.values()]
        assert max(loads) - min(loads) <= 1, (code, loads)
    totals = [len(item.instances) for item in result.values()]
    assert max(totals) - min(totals) <= 1


def test_six_annotators_ninety_instances_a_third_twice() -> None:
    types = pool(9, 10)
    names = ["ann", "ben", "cat", "dan", "eve", "fay"]
    check(types, names, shared=1 / 3, overlap=2, seed=1)
    plan = design(types, shared=1 / 3, overlap=2, seed=1)
    result = assign(plan, names, seed=1)
    assert len(plan.shared) == 30
    assert sorted(len(item.instances) for item in result.values()) == [20] * 6
    # The shared instances are spread over the nine types (30 / 9: three or four each).
    per_type = Counter(types[idx] for idx in plan.shared)
    assert sorted(per_type.values()) == [3] * 6 + [4] * 3


@settings(max_examples=60, deadline=None)
@given(
    n_types=st.integers(1, 5),
    per_type=st.integers(1, 8),
    n_names=st.integers(1, 7),
    shared=st.floats(0, 1),
    overlap_seed=st.integers(0, 10_000),
    seed=st.integers(0, 2**31),
)
def test_rules_hold_for_any_design(
    n_types: int, per_type: int, n_names: int, shared: float, overlap_seed: int, seed: int
) -> None:
    overlap = 1 + overlap_seed % n_names
    check(pool(n_types, per_type), [f"a{i}" for i in range(n_names)], shared, overlap, seed)


def test_same_seed_same_assignment_other_seed_another() -> None:
    types = pool(4, 6)
    names = ["a", "b", "c"]

    def run(seed: int) -> dict[str, tuple[int, ...]]:
        plan = design(types, shared=0.5, overlap=2, seed=seed)
        return {n: item.instances for n, item in assign(plan, names, seed=seed).items()}

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_each_annotator_has_their_own_order() -> None:
    types = pool(3, 8)
    plan = design(types, shared=1.0, overlap=3, seed=0)
    result = assign(plan, ["a", "b", "c"], seed=0)
    # Everyone has the same 24 instances (all shared by all three), in different orders.
    assert {frozenset(item.instances) for item in result.values()} == {frozenset(types)}
    assert len({item.instances for item in result.values()}) == 3
    assert all(list(item.instances) != sorted(item.instances) for item in result.values())


def test_bad_designs_are_refused() -> None:
    types = pool(2, 4)
    with pytest.raises(ConfigError, match="overlap 3 needs at least 3 annotators"):
        assign(design(types, shared=0.5, overlap=3, seed=0), ["a", "b"], seed=0)
    with pytest.raises(ConfigError, match="named twice"):
        assign(design(types, shared=0, overlap=1, seed=0), ["a", "a"], seed=0)
    with pytest.raises(ConfigError, match="between 0 and 1"):
        design(types, shared=1.5, overlap=2, seed=0)
    with pytest.raises(ConfigError, match="type0 has only 4"):
        choose_pool(types, 5, seed=0)


def test_pool_and_practice_draws() -> None:
    types = pool(3, 10)
    chosen = choose_pool(types, 4, seed=2)
    assert Counter(chosen.values()) == {"type0": 4, "type1": 4, "type2": 4}
    assert chosen == choose_pool(types, 4, seed=2)
    practice = choose_practice(types, list(chosen), 4, seed=2)
    assert len(practice) == 4 and not set(practice) & set(chosen)
    # Round robin over the types: the first three are of three different types.
    assert len({types[idx] for idx in practice[:3]}) == 3
    with pytest.raises(ConfigError, match="left outside"):
        choose_practice(types, list(chosen), 30, seed=2)


def test_apportion_is_exact_and_proportional() -> None:
    assert apportion(30, {"a": 10, "b": 10, "c": 10}) == {"a": 10, "b": 10, "c": 10}
    assert sum(apportion(7, {"a": 5, "b": 5, "c": 5}).values()) == 7
    assert apportion(3, {"a": 1, "b": 9}) == {"a": 0, "b": 3}
    assert apportion(0, {"a": 4}) == {"a": 0}


def test_a_newcomer_adds_overlap_where_there_is_least() -> None:
    types = pool(3, 4)
    plan = design(types, shared=0.5, overlap=2, seed=5)
    existing = assign(plan, ["a", "b"], seed=5)
    before = coverage(existing)
    newcomer = extend(plan, existing, "c", count=6, seed=5)
    assert len(newcomer.instances) == 6 == len(set(newcomer.instances))
    assert Counter(types[idx] for idx in newcomer.instances) == {
        "type0": 2,
        "type1": 2,
        "type2": 2,
    }
    # Six single instances exist, so the newcomer takes exactly those.
    assert all(len(before[idx]) == 1 for idx in newcomer.instances)
    assert existing == assign(plan, ["a", "b"], seed=5)  # nobody else changed
    with pytest.raises(ConfigError, match="already in this study"):
        extend(plan, existing, "a", count=2, seed=5)
