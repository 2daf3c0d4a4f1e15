"""Inter-annotator agreement: pairwise agreement and Krippendorff's alpha.

Ratings are given per instance as ``{annotator: value}``; only instances rated by two or
more annotators (the shared ones) take part. Values are nominal (right/wrong, or an answer
after the scorer's own cleaning), so:

* **pairwise agreement** pools every pair of annotators on every shared instance: agreeing
  pairs / all pairs (per pair of annotators too);
* **Krippendorff's alpha** (nominal) comes from the ``krippendorff`` package, which handles
  missing ratings; it is undefined (None) when every rating has the same value, since
  there is then no disagreement to expect.
* its **bootstrap interval** resamples the shared instances (the units) with replacement,
  ``resamples`` times from a seeded generator, and takes the percentiles of the alphas
  (resamples where alpha is undefined are left out and counted). Each resample's alpha is
  computed from per-instance coincidence matrices (:func:`_alphas`), vectorised over all
  resamples; a test checks it equals the package's value.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

Ratings = Mapping[int, Mapping[str, Hashable]]

#: Bootstrap resamples unless asked otherwise, and the seed of their generator.
DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0


@dataclass(frozen=True)
class AlphaInterval:
    """A percentile bootstrap interval of Krippendorff's alpha.

    Attributes:
        low: Lower bound.
        high: Upper bound.
        level: Coverage (0.95).
        resamples: Resamples drawn.
        undefined: Of those, resamples where alpha was undefined (left out).
        seed: The generator's seed.
    """

    low: float
    high: float
    level: float
    resamples: int
    undefined: int
    seed: int

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {
            "low": self.low,
            "high": self.high,
            "level": self.level,
            "resamples": self.resamples,
            "undefined_resamples": self.undefined,
            "seed": self.seed,
            "method": "percentile bootstrap over shared instances",
        }


@dataclass(frozen=True)
class PairAgreement:
    """Two annotators on the instances both rated."""

    first: str
    second: str
    n: int
    agreeing: int

    @property
    def share(self) -> float | None:
        """Agreeing instances / shared instances."""
        return self.agreeing / self.n if self.n else None


@dataclass(frozen=True)
class AgreementStats:
    """Agreement on one kind of rating.

    Attributes:
        what: What was rated (``correctness`` or ``answers``).
        items: Instances rated by at least two annotators.
        ratings: Ratings on those instances.
        pairs_total: Annotator pairs over all those instances.
        pairs_agreeing: Of those, pairs giving the same value.
        alpha: Krippendorff's alpha (nominal); None when undefined.
        pairs: Agreement per pair of annotators (pairs with shared instances only).
        interval: Bootstrap interval of alpha (None when alpha is undefined).
    """

    what: str
    items: int
    ratings: int
    pairs_total: int
    pairs_agreeing: int
    alpha: float | None
    pairs: tuple[PairAgreement, ...]
    interval: AlphaInterval | None = None

    @property
    def pairwise(self) -> float | None:
        """Pooled pairwise agreement (None without pairs)."""
        return self.pairs_agreeing / self.pairs_total if self.pairs_total else None

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {
            "what": self.what,
            "items": self.items,
            "ratings": self.ratings,
            "pairs_total": self.pairs_total,
            "pairs_agreeing": self.pairs_agreeing,
            "pairwise_agreement": self.pairwise,
            "krippendorff_alpha": self.alpha,
            "alpha_interval": None if self.interval is None else self.interval.to_dict(),
            "pairs": [
                {"annotators": [p.first, p.second], "n": p.n, "agreeing": p.agreeing}
                for p in self.pairs
            ],
        }


def krippendorff_alpha(ratings: Ratings) -> float | None:
    """Nominal Krippendorff's alpha of ``ratings`` (None when undefined).

    Uses the ``krippendorff`` package; values are coded as integers first.
    """
    import krippendorff  # numpy-backed; imported only when a report asks for it
    import numpy as np

    shared = {idx: values for idx, values in ratings.items() if len(values) >= 2}
    if not shared:
        return None
    coders = sorted({name for values in shared.values() for name in values})
    domain = sorted({value for values in shared.values() for value in values.values()}, key=repr)
    if len(domain) < 2:
        return None
    code = {value: number for number, value in enumerate(domain)}
    matrix = np.full((len(coders), len(shared)), np.nan)
    for column, idx in enumerate(sorted(shared)):
        for row, name in enumerate(coders):
            if name in shared[idx]:
                matrix[row, column] = code[shared[idx][name]]
    alpha = float(
        krippendorff.alpha(
            reliability_data=matrix,
            value_domain=list(range(len(domain))),
            level_of_measurement="nominal",
        )
    )
    return alpha if math.isfinite(alpha) else None


def _units(shared: Ratings) -> Any:
    """Per-instance coincidence matrices (units x values x values) of nominal ratings."""
    import numpy as np

    domain = sorted({value for values in shared.values() for value in values.values()}, key=repr)
    code = {value: number for number, value in enumerate(domain)}
    units = np.zeros((len(shared), len(domain), len(domain)))
    for row, idx in enumerate(sorted(shared)):
        counts = np.zeros(len(domain))
        for value in shared[idx].values():
            counts[code[value]] += 1
        m = counts.sum()
        # Ordered pairs of values within the unit, each weighted 1 / (m - 1).
        units[row] = (np.outer(counts, counts) - np.diag(counts)) / (m - 1)
    return units


def _alphas(units: Any, weights: Any) -> Any:
    """Nominal alpha for each row of ``weights`` (how often each unit is drawn); NaN where
    undefined. alpha = 1 - (n - 1) (n - sum_c o_cc) / (n^2 - sum_c n_c^2)."""
    import numpy as np

    values = units.shape[1]
    coincidences = weights @ units.reshape(len(units), values * values)
    coincidences = coincidences.reshape(len(weights), values, values)
    n_c = coincidences.sum(axis=2)
    n = n_c.sum(axis=1)
    agreeing = np.trace(coincidences, axis1=1, axis2=2)
    expected = n * n - (n_c * n_c).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1 - (n - 1) * (n - agreeing) / expected
    return np.where(expected > 1e-12, alpha, np.nan)


def bootstrap_alpha(
    ratings: Ratings,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> AlphaInterval | None:
    """Percentile bootstrap interval of nominal alpha, resampling shared instances.

    None when fewer than two instances are shared or no resample has a defined alpha.
    """
    import numpy as np

    shared = {idx: values for idx, values in ratings.items() if len(values) >= 2}
    if len(shared) < 2 or resamples < 1:
        return None
    units = _units(shared)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(units), size=(resamples, len(units)))
    weights = np.zeros((resamples, len(units)))
    np.add.at(weights, (np.arange(resamples)[:, None], draws), 1)
    alphas = _alphas(units, weights)
    defined = alphas[np.isfinite(alphas)]
    if defined.size == 0:
        return None
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(defined, [tail, 100 - tail])
    return AlphaInterval(
        low=float(low),
        high=float(high),
        level=level,
        resamples=resamples,
        undefined=int(resamples - defined.size),
        seed=seed,
    )


def agreement_stats(
    ratings: Ratings,
    what: str,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> AgreementStats:
    """Pairwise agreement, alpha and its bootstrap interval over the instances rated at
    least twice."""
    shared = {idx: values for idx, values in ratings.items() if len(values) >= 2}
    total = agreeing = 0
    per_pair: dict[tuple[str, str], list[int]] = {}
    for values in shared.values():
        for first, second in itertools.combinations(sorted(values), 2):
            same = values[first] == values[second]
            total += 1
            agreeing += same
            counts = per_pair.setdefault((first, second), [0, 0])
            counts[0] += 1
            counts[1] += same
    alpha = krippendorff_alpha(shared)
    return AgreementStats(
        what=what,
        items=len(shared),
        ratings=sum(len(values) for values in shared.values()),
        pairs_total=total,
        pairs_agreeing=agreeing,
        alpha=alpha,
        pairs=tuple(
            PairAgreement(first, second, n, same)
            for (first, second), (n, same) in sorted(per_pair.items())
        ),
        interval=None if alpha is None else bootstrap_alpha(shared, resamples=resamples, seed=seed),
    )
