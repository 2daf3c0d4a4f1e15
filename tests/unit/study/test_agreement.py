"""Agreement on a hand-made fixture, every number worked out by hand below."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crmtui.study.agreement import agreement_stats, krippendorff_alpha

# Three annotators, five instances, right (1) / wrong (0):
#
#   instance  A  B  C
#   u1        1  1  1
#   u2        0  0  1
#   u3        1  0  .
#   u4        0  0  0
#   u5        1  .  .     <- one rating only: not shared, left out
#
# Coincidence matrix (each ordered pair of values within an instance adds 1/(m_u - 1)):
#   u1 (m=3, 1,1,1): o11 += 6/2 = 3
#   u2 (m=3, 0,0,1): o00 += 2/2 = 1, o01 += 2/2 = 1, o10 += 2/2 = 1
#   u3 (m=2, 1,0):   o01 += 1, o10 += 1
#   u4 (m=3, 0,0,0): o00 += 6/2 = 3
# o00 = 4, o01 = o10 = 2, o11 = 3; n = 11; n0 = 6, n1 = 5.
# D_o = (o01 + o10) / n = 4/11; D_e = 2 * n0 * n1 / (n (n - 1)) = 60/110 = 6/11.
# alpha = 1 - D_o / D_e = 1 - 4/6 = 1/3.
#
# Pairwise: u1 3 of 3 pairs agree, u2 1 of 3 (A-B), u3 0 of 1, u4 3 of 3: 7 of 10.
# Per pair: A-B agree on u1, u2, u4, not u3: 3/4; A-C on u1, u4 (not u2): 2/3; B-C: 2/3.
RIGHT = {
    1: {"A": True, "B": True, "C": True},
    2: {"A": False, "B": False, "C": True},
    3: {"A": True, "B": False},
    4: {"A": False, "B": False, "C": False},
    5: {"A": True},
}


def test_correctness_fixture() -> None:
    stats = agreement_stats(RIGHT, "correctness")
    assert stats.items == 4
    assert stats.ratings == 11
    assert (stats.pairs_agreeing, stats.pairs_total) == (7, 10)
    assert stats.pairwise == pytest.approx(0.7)
    assert stats.alpha == pytest.approx(1 / 3)
    pairs = {(p.first, p.second): (p.agreeing, p.n) for p in stats.pairs}
    assert pairs == {("A", "B"): (3, 4), ("A", "C"): (2, 3), ("B", "C"): (2, 3)}


# Answers (nominal, three values), two annotators:
#   u1: CA / CA     u2: CA / NY     u3: TX / TX     u4: NY / NY
# o(CA,CA) = 2, o(CA,NY) = o(NY,CA) = 1, o(TX,TX) = 2, o(NY,NY) = 2; n = 8.
# n_CA = 3, n_NY = 3, n_TX = 2. D_o = 2/8.
# D_e = (sum over c != k of n_c n_k) / (n (n-1)) = (64 - 9 - 9 - 4) / 56 = 42/56.
# alpha = 1 - (2/8) / (42/56) = 1 - 14/42 = 2/3. Pairwise: 3 of 4.
ANSWERS = {
    1: {"A": "CA", "B": "CA"},
    2: {"A": "CA", "B": "NY"},
    3: {"A": "TX", "B": "TX"},
    4: {"A": "NY", "B": "NY"},
}


def test_answers_fixture() -> None:
    stats = agreement_stats(ANSWERS, "answers")
    assert stats.pairwise == pytest.approx(0.75)
    assert stats.alpha == pytest.approx(2 / 3)


def test_alpha_is_undefined_without_variation_or_overlap() -> None:
    assert krippendorff_alpha({1: {"A": True, "B": True}, 2: {"A": True, "B": True}}) is None
    assert krippendorff_alpha({1: {"A": True}, 2: {"B": False}}) is None
    stats = agreement_stats({1: {"A": "x", "B": "x"}}, "answers")
    assert stats.pairwise == 1.0 and stats.alpha is None


def test_perfect_agreement_is_one() -> None:
    data = {1: {"A": 1, "B": 1}, 2: {"A": 0, "B": 0}, 3: {"A": 1, "B": 1, "C": 1}}
    assert krippendorff_alpha(data) == pytest.approx(1.0)


# -- the bootstrap interval -------------------------------------------------------------

_RATINGS = st.dictionaries(
    st.integers(0, 40),
    st.dictionaries(st.sampled_from("ABCDE"), st.sampled_from(["x", "y", "z"]), max_size=5),
    min_size=1,
    max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(_RATINGS)
def test_the_vectorised_alpha_equals_the_packages(ratings: dict) -> None:
    """Each resample's alpha comes from per-instance coincidence matrices: with every
    instance drawn once it is the krippendorff package's alpha, undefined where it is."""
    import numpy as np

    from crmtui.study.agreement import _alphas, _units

    shared = {idx: values for idx, values in ratings.items() if len(values) >= 2}
    expected = krippendorff_alpha(shared)
    if not shared:
        return
    [mine] = _alphas(_units(shared), np.ones((1, len(shared))))
    if expected is None:
        assert not np.isfinite(mine)
    else:
        assert mine == pytest.approx(expected, abs=1e-9)


def test_the_interval_is_seeded_and_holds_the_estimate() -> None:
    from crmtui.study.agreement import bootstrap_alpha

    stats = agreement_stats(RIGHT, "correctness", resamples=500, seed=3)
    interval = stats.interval
    assert interval is not None and interval.resamples == 500 and interval.seed == 3
    assert -1 <= interval.low <= (stats.alpha or 0) <= interval.high <= 1
    assert interval.level == 0.95
    again = bootstrap_alpha(RIGHT, resamples=500, seed=3)
    assert again == interval  # same seed, same interval
    # A larger set: another seed draws other resamples, so the bounds move a little.
    import random

    draw = random.Random(1)
    many = {i: {a: draw.random() < 0.7 for a in "ABC"} for i in range(40)}
    first, second = bootstrap_alpha(many, seed=3), bootstrap_alpha(many, seed=4)
    assert first is not None and second is not None
    assert (first.low, first.high) != (second.low, second.high)
    assert first.resamples == 1000 and first.undefined == 0
    # Four shared instances: some resamples draw only all-agreeing ones (undefined alpha).
    assert 0 < interval.undefined < 500
    assert stats.to_dict()["alpha_interval"]["resamples"] == 500  # type: ignore[index]


def test_no_interval_without_a_defined_alpha_or_with_one_shared_instance() -> None:
    from crmtui.study.agreement import bootstrap_alpha

    same = {1: {"A": True, "B": True}, 2: {"A": True, "B": True}}
    assert agreement_stats(same, "correctness").interval is None
    assert bootstrap_alpha({1: {"A": True, "B": False}}) is None
