"""95% intervals the report's figures draw: Wilson for a share, Newcombe for a paired difference."""

from __future__ import annotations

import math

#: z for a two-sided 95% interval.
Z95 = 1.959964


def wilson(share: float, n: int) -> tuple[float, float] | None:
    """95% Wilson score interval of a proportion ``share`` observed over ``n`` instances.

    For a mean token F1 (KQA, SIM) the same formula is applied to the mean: an
    approximation, named as one wherever it is drawn. None for ``n`` = 0.
    """
    if n <= 0:
        return None
    p = min(1.0, max(0.0, share))
    denominator = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denominator
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denominator
    # At a share of 0 or 1 the bound is 0 or 1 exactly (rounding would leave 0.999...).
    low = 0.0 if p <= 0 else max(0.0, centre - half)
    high = 1.0 if p >= 1 else min(1.0, centre + half)
    return low, high


def paired_difference(
    both: int, only_first: int, only_second: int, neither: int
) -> tuple[float, float, float] | None:
    """Difference in the share right of two actors on the same instances, with Newcombe's
    95% hybrid score interval for paired proportions (his method 10, without continuity
    correction): built from the two Wilson intervals and the correlation of the pairs, it
    stays inside -1..1 and keeps a width at small n, where the Wald interval collapses.

    Args:
        both: Instances both got right.
        only_first: Instances only the first actor got right.
        only_second: Instances only the second actor got right.
        neither: Instances neither got right.

    Returns:
        ``(difference, low, high)``, first minus second; None without shared instances.
    """
    a, b, c, d = both, only_first, only_second, neither
    n = a + b + c + d
    if n <= 0:
        return None
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson(p1, n) or (p1, p1)
    l2, u2 = wilson(p2, n) or (p2, p2)
    product = (a + b) * (c + d) * (a + c) * (b + d)
    phi = (a * d - b * c) / math.sqrt(product) if product else 0.0
    difference = p1 - p2
    below = (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2
    above = (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2
    low = difference - math.sqrt(max(0.0, below))
    high = difference + math.sqrt(max(0.0, above))
    return difference, max(-1.0, low), min(1.0, high)
