"""Inter-annotator agreement: pairwise agreement and Krippendorff's alpha.

Ratings are given per instance as ``{annotator: value}``; only instances rated by two or
more annotators (the shared ones) take part. Values are nominal (right/wrong, or an answer
after the scorer's own cleaning), so:

* **pairwise agreement** pools every pair of annotators on every shared instance: agreeing
  pairs / all pairs (per pair of annotators too);
* **Krippendorff's alpha** (nominal) comes from the ``krippendorff`` package, which handles
  missing ratings; it is undefined (None) when every rating has the same value, since
  there is then no disagreement to expect.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass

Ratings = Mapping[int, Mapping[str, Hashable]]


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
    """

    what: str
    items: int
    ratings: int
    pairs_total: int
    pairs_agreeing: int
    alpha: float | None
    pairs: tuple[PairAgreement, ...]

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


def agreement_stats(ratings: Ratings, what: str) -> AgreementStats:
    """Pairwise agreement and alpha over the instances rated at least twice."""
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
    return AgreementStats(
        what=what,
        items=len(shared),
        ratings=sum(len(values) for values in shared.values()),
        pairs_total=total,
        pairs_agreeing=agreeing,
        alpha=krippendorff_alpha(shared),
        pairs=tuple(
            PairAgreement(first, second, n, same)
            for (first, second), (n, same) in sorted(per_pair.items())
        ),
    )
