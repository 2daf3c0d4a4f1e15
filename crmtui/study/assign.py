"""Who does which instance, in which order: pure functions of the pool, the people and a seed.

Rules (each is tested):

* The pool has ``per_type`` instances of every task type (or an explicit list). A share
  ``shared`` of them, spread over the types in proportion, is done by exactly ``overlap``
  annotators; every other instance by exactly one.
* Work is dealt type by type to the annotators with the fewest instances of that type, then
  the fewest overall (ties broken by the seed), so every annotator's count per type differs
  from anyone else's by at most one.
* An annotator joining later (:func:`extend`) takes the instances the fewest annotators
  (seats: a pair of people counts once) have, ties spread over the task types by the seed.
* Nobody gets the same instance twice. Each annotator's counted instances come in their own
  shuffled order; the practice instances (the same for everyone) come first.
* The same inputs and seed always give the same assignment; string seeds keep it the same
  across Python processes (``random.Random`` hashes strings with SHA-512, not ``hash()``).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from crmtui.data.tasktypes import sort_key
from crmtui.errors import ConfigError


@dataclass(frozen=True)
class Assignment:
    """One annotator's work, in the order they will do it.

    Attributes:
        annotator: The annotator's name.
        practice: Practice instances (answers revealed; not counted), done first.
        instances: Counted instances, in this annotator's order.
    """

    annotator: str
    practice: tuple[int, ...]
    instances: tuple[int, ...]

    @property
    def order(self) -> tuple[int, ...]:
        """Everything to do: practice first, then the counted instances."""
        return self.practice + self.instances


@dataclass(frozen=True)
class Design:
    """The pool and its split into shared and single instances.

    Attributes:
        types: Instance idx to task code, for every instance of the pool.
        shared: The instances done by ``overlap`` annotators.
        overlap: How many annotators do each shared instance.
    """

    types: Mapping[int, str]
    shared: frozenset[int]
    overlap: int


def _rng(seed: int, *parts: str) -> random.Random:
    return random.Random(":".join([str(seed), *parts]))


def _by_type(types: Mapping[int, str]) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = defaultdict(list)
    for idx in sorted(types):
        groups[types[idx]].append(idx)
    return {code: groups[code] for code in sorted(groups, key=sort_key)}


def apportion(total: int, sizes: Mapping[str, int]) -> dict[str, int]:
    """Split ``total`` over groups in proportion to their sizes (largest remainder).

    Ties in the remainders go to the group that comes first in ``sizes``; no group gets
    more than its size.
    """
    whole = sum(sizes.values())
    if whole == 0 or total <= 0:
        return dict.fromkeys(sizes, 0)
    exact = {key: total * size / whole for key, size in sizes.items()}
    shares = {key: min(int(value), sizes[key]) for key, value in exact.items()}
    order = sorted(sizes, key=lambda key: -(exact[key] - int(exact[key])))
    left = min(total, whole) - sum(shares.values())
    while left > 0:
        for key in order:
            if left and shares[key] < sizes[key]:
                shares[key] += 1
                left -= 1
    return shares


def choose_pool(types: Mapping[int, str], per_type: int, seed: int) -> dict[int, str]:
    """``per_type`` instances of every task type, drawn with the seed.

    Raises:
        ConfigError: A task type has fewer than ``per_type`` instances.
    """
    if per_type < 1:
        raise ConfigError("--per-type must be at least 1")
    pool: dict[int, str] = {}
    for code, members in _by_type(types).items():
        if len(members) < per_type:
            raise ConfigError(
                f"task type {code} has only {len(members)} instance(s); --per-type asks for "
                f"{per_type}"
            )
        for idx in _rng(seed, "pool", code).sample(members, per_type):
            pool[idx] = code
    return dict(sorted(pool.items()))


def choose_practice(
    types: Mapping[int, str], exclude: Sequence[int], count: int, seed: int
) -> tuple[int, ...]:
    """``count`` practice instances outside the pool, one type after another.

    Raises:
        ConfigError: Fewer than ``count`` instances are left outside the pool.
    """
    if count <= 0:
        return ()
    taken = set(exclude)
    groups = {
        code: _rng(seed, "practice", code).sample(rest, len(rest))
        for code, members in _by_type(types).items()
        if (rest := [idx for idx in members if idx not in taken])
    }
    if sum(len(group) for group in groups.values()) < count:
        raise ConfigError(
            f"only {sum(len(g) for g in groups.values())} instance(s) are left outside the "
            f"study's instances for practice; --practice asks for {count}"
        )
    chosen: list[int] = []
    while len(chosen) < count:  # round robin over the types, so practice shows the variety
        for group in groups.values():
            if group and len(chosen) < count:
                chosen.append(group.pop(0))
    return tuple(chosen)


def design(types: Mapping[int, str], *, shared: float, overlap: int, seed: int) -> Design:
    """Pick which instances of the pool are shared (in proportion per task type).

    Raises:
        ConfigError: ``shared`` outside [0, 1] or ``overlap`` below 1.
    """
    if not 0.0 <= shared <= 1.0:
        raise ConfigError(f"--shared must be between 0 and 1, not {shared}")
    if overlap < 1:
        raise ConfigError(f"--overlap must be at least 1, not {overlap}")
    groups = _by_type(types)
    count = round(shared * len(types)) if overlap > 1 else 0
    quota = apportion(count, {code: len(members) for code, members in groups.items()})
    chosen: set[int] = set()
    for code, members in groups.items():
        chosen.update(_rng(seed, "shared", code).sample(members, quota[code]))
    return Design(types=dict(types), shared=frozenset(chosen), overlap=overlap)


def assign(
    plan: Design, annotators: Sequence[str], *, seed: int, practice: Sequence[int] = ()
) -> dict[str, Assignment]:
    """Deal the pool to the annotators (see the module docs for the rules).

    Raises:
        ConfigError: No annotators, a name given twice, or fewer annotators than the
            overlap needs.
    """
    names = list(annotators)
    if not names:
        raise ConfigError("a study needs at least one annotator")
    if len(set(names)) != len(names):
        raise ConfigError("an annotator is named twice")
    if plan.shared and plan.overlap > len(names):
        raise ConfigError(
            f"--overlap {plan.overlap} needs at least {plan.overlap} annotators "
            f"(there are {len(names)}); lower it or use --shared 0"
        )
    rng = _rng(seed, "deal")
    total: dict[str, int] = dict.fromkeys(names, 0)
    work: dict[str, list[int]] = {name: [] for name in names}
    for members in _by_type(plan.types).values():
        of_type: dict[str, int] = dict.fromkeys(names, 0)
        # Shared instances first: they need several distinct people while loads are even.
        units = [(idx, plan.overlap) for idx in members if idx in plan.shared]
        units += [(idx, 1) for idx in members if idx not in plan.shared]
        for idx, copies in units:
            ties = {name: rng.random() for name in names}
            ranked = sorted(names, key=lambda n: (of_type[n], total[n], ties[n]))
            for name in ranked[:copies]:
                work[name].append(idx)
                of_type[name] += 1
                total[name] += 1
    return {
        name: Assignment(name, tuple(practice), _shuffled(work[name], seed, name)) for name in names
    }


def extend(
    plan: Design,
    existing: Mapping[str, Assignment],
    annotator: str,
    *,
    count: int,
    seed: int,
    practice: Sequence[int] = (),
    partners: Mapping[str, str] | None = None,
) -> Assignment:
    """An assignment for an annotator joining later; nobody else's work changes.

    The newcomer takes the ``count`` instances the fewest annotators have: no instance they
    take already has more annotators than one they leave (the promise of ``add-annotator``,
    :func:`joins_fairly`). Among instances with equally few, the task type the newcomer has
    fewest of so far goes first (so a share spreads over the types), then the seeded draw
    of this newcomer: never the task types' order, so several newcomers with the same
    ``count`` spread over the pool instead of piling onto its first types.

    A pair of people (``partners``, a multi-turn study) shares one assignment and makes one
    conversation per instance, so it counts once per instance.

    Raises:
        ConfigError: The name is taken, or ``count`` is not between 1 and the pool's size.
    """
    if annotator in existing:
        raise ConfigError(f"{annotator!r} is already in this study")
    if not 1 <= count <= len(plan.types):
        raise ConfigError(f"--count must be between 1 and {len(plan.types)}, not {count}")
    done_by = seat_coverage(plan, existing, partners or {})
    rng = _rng(seed, "extend", annotator)
    ties = {idx: rng.random() for idx in sorted(plan.types)}
    taken_of_type: dict[str, int] = defaultdict(int)
    left = set(plan.types)
    chosen: list[int] = []
    while len(chosen) < count:
        fewest = min(done_by[idx] for idx in left)
        best = min(
            (idx for idx in left if done_by[idx] == fewest),
            key=lambda idx: (taken_of_type[plan.types[idx]], ties[idx]),
        )
        chosen.append(best)
        left.discard(best)
        taken_of_type[plan.types[best]] += 1
    return Assignment(annotator, tuple(practice), _shuffled(chosen, seed, annotator))


def seat_coverage(
    plan: Design, existing: Mapping[str, Assignment], partners: Mapping[str, str]
) -> dict[int, int]:
    """Instance idx to the number of seats assigned to it (every pool instance, 0 included).

    A seat is an annotator, or a pair of people (``partners``), who share one assignment.
    """
    seats: dict[int, set[tuple[str, ...]]] = {idx: set() for idx in plan.types}
    for name, item in existing.items():
        seat = tuple(sorted({name, partners.get(name, name)}))
        for idx in item.instances:
            seats.setdefault(idx, set()).add(seat)
    return {idx: len(found) for idx, found in seats.items()}


def joins_fairly(before: Mapping[int, int], taken: Sequence[int]) -> bool:
    """Whether a newcomer's ``taken`` instances keep the promise of ``add-annotator``: none of
    them had more annotators (``before``) than any instance the newcomer left."""
    took = set(taken)
    left = [before[idx] for idx in before if idx not in took]
    return not took or not left or max(before[idx] for idx in took) <= min(left)


def _shuffled(items: list[int], seed: int, annotator: str) -> tuple[int, ...]:
    ordered = sorted(items)
    _rng(seed, "order", annotator).shuffle(ordered)
    return tuple(ordered)


def coverage(assignments: Mapping[str, Assignment]) -> dict[int, list[str]]:
    """Instance idx to the annotators assigned to it (counted instances only)."""
    found: dict[int, list[str]] = defaultdict(list)
    for name, item in assignments.items():
        for idx in item.instances:
            found[idx].append(name)
    return dict(sorted(found.items()))
