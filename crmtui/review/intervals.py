"""95% intervals the report's figures draw: Wilson for a share, Wald for a paired difference."""

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
    only_first: int, only_second: int, n: int
) -> tuple[float, float, float] | None:
    """Difference in the share right of two actors on the same ``n`` instances, with a 95%
    Wald interval for paired proportions (the discordant pairs carry it).

    Args:
        only_first: Instances only the first actor got right.
        only_second: Instances only the second actor got right.
        n: Shared instances.

    Returns:
        ``(difference, low, high)`` (first minus second, clipped to -1..1), or None for
        ``n`` = 0.
    """
    if n <= 0:
        return None
    b, c = only_first, only_second
    difference = (b - c) / n
    variance = max(0.0, b + c - (b - c) ** 2 / n)
    half = Z95 * math.sqrt(variance) / n
    return difference, max(-1.0, difference - half), min(1.0, difference + half)
