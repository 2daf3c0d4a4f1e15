"""Step-by-step alignment of trajectories (Needleman-Wunsch over steps).

Two steps are similar when they ran the same query, or touched the same records or
objects (:func:`similarity`). The pairwise alignment maximises the summed similarity of
paired steps minus a small penalty per gap; steps with nothing in common are never paired
(each becomes a gap). N trajectories are aligned as a star around the first one (the
reference): each other trajectory is aligned to it and the results merged into rows.

A row's status is ``"match"`` (every step ran the same normalized query with the same
outcome, failed or not, or both submitted the same answer), ``"partial"`` (paired but not
identical) or ``"gap"`` (some actor has no step there). The *first divergence* is the first
row that is not a match.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from crmtui.record import events as ev
from crmtui.review.trajectory import Step

#: Score lost per unpaired step; small, so any shared object is worth pairing.
GAP_PENALTY = 0.1

MATCH = "match"
PARTIAL = "partial"
GAP = "gap"


def _answer_key(text: str | None) -> str:
    return (text or "").strip().strip("\"'").strip().casefold()


def similarity(a: Step, b: Step) -> float:
    """How alike two steps are, in [0, 1].

    * 1.0: the same normalized query with the same outcome, or two submits of the same
      answer;
    * 0.75: the same query where one failed and the other did not (paired, but a
      divergence), or a shared object and overlapping records; 0.5: overlapping records
      only;
    * 0.25: a shared object only; 0.5: two submits of different answers;
    * 0.0: nothing in common (never paired).
    """
    a_submit, b_submit = a.kind == ev.SUBMIT, b.kind == ev.SUBMIT
    if a_submit or b_submit:
        if not (a_submit and b_submit):
            return 0.0
        return 1.0 if _answer_key(a.answer) == _answer_key(b.answer) else 0.5
    if a.normalized is not None and a.normalized == b.normalized:
        if (a.error_code is None) != (b.error_code is None):
            return 0.75  # the same text, but one side's query failed: not the same step
        return 1.0
    shared_records = bool(a.records & b.records)
    shared_objects = bool(a.objects & b.objects)
    if shared_records and shared_objects:
        return 0.75
    if shared_records:
        return 0.5
    if shared_objects:
        return 0.25
    return 0.0


@dataclass(frozen=True)
class Pair:
    """One column pair of a pairwise alignment: indexes into each trajectory (None = gap)."""

    a: int | None
    b: int | None
    similarity: float

    @property
    def status(self) -> str:
        """``match``, ``partial`` or ``gap``."""
        if self.a is None or self.b is None:
            return GAP
        return MATCH if self.similarity >= 1.0 else PARTIAL


def align_pair(a: Sequence[Step], b: Sequence[Step], gap: float = GAP_PENALTY) -> list[Pair]:
    """Globally align two trajectories.

    Ties are broken the same way every time (pairing first; of two unpaired steps at the
    same place, ``a``'s comes first), so the result is deterministic.

    Args:
        a: The first trajectory.
        b: The second trajectory.
        gap: Penalty per unpaired step.

    Returns:
        Pairs in order; every step of each trajectory appears exactly once.
    """
    n, m = len(a), len(b)
    sim = [[similarity(x, y) for y in b] for x in a]
    neg = float("-inf")
    score = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        score[i][0] = -gap * i
    for j in range(1, m + 1):
        score[0][j] = -gap * j
    for i in range(1, n + 1):
        row, prev = score[i], score[i - 1]
        sims = sim[i - 1]
        for j in range(1, m + 1):
            s = sims[j - 1]
            diag = prev[j - 1] + s if s > 0 else neg
            row[j] = max(diag, prev[j] - gap, row[j - 1] - gap)
    pairs: list[Pair] = []
    i, j = n, m
    eps = 1e-9
    while i > 0 or j > 0:
        if i > 0 and j > 0:
            s = sim[i - 1][j - 1]
            if s > 0 and abs(score[i][j] - (score[i - 1][j - 1] + s)) < eps:
                pairs.append(Pair(i - 1, j - 1, s))
                i, j = i - 1, j - 1
                continue
        # Walking backwards, take ``b``'s gap first so that, read forwards, the first
        # trajectory's unpaired step comes before the second's.
        if j > 0 and abs(score[i][j] - (score[i][j - 1] - gap)) < eps:
            pairs.append(Pair(None, j - 1, 0.0))
            j -= 1
        else:
            pairs.append(Pair(i - 1, None, 0.0))
            i -= 1
    pairs.reverse()
    return pairs


@dataclass(frozen=True)
class AlignedRow:
    """One row of an N-way alignment.

    Attributes:
        cells: One step (or None) per trajectory, the reference first.
        similarity: Per trajectory, similarity to the reference cell (None where either
            is missing; 1.0 for the reference itself when present).
        status: ``match``, ``partial`` or ``gap``.
    """

    cells: tuple[Step | None, ...]
    similarity: tuple[float | None, ...]
    status: str

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {
            "status": self.status,
            "similarity": list(self.similarity),
            "cells": [None if cell is None else cell.index for cell in self.cells],
        }


@dataclass(frozen=True)
class Alignment:
    """N trajectories aligned as rows.

    Attributes:
        rows: Aligned rows in order.
        first_divergence: Index of the first row that is not a match (None: identical).
        divergence: Per trajectory, the first row where it differs from the reference
            (None for the reference and for trajectories identical to it).
    """

    rows: list[AlignedRow]
    first_divergence: int | None
    divergence: list[int | None]


def _row_status(cells: Sequence[Step | None], sims: Sequence[float | None]) -> str:
    if any(cell is None for cell in cells):
        return GAP
    return MATCH if all(s is not None and s >= 1.0 for s in sims) else PARTIAL


def align(trajectories: Sequence[Sequence[Step]], gap: float = GAP_PENALTY) -> Alignment:
    """Align N trajectories around the first (star alignment).

    Steps another trajectory has between two reference steps become extra rows; the
    k-th extra step of each trajectory shares the k-th extra row (they are not aligned to
    each other, only placed side by side).
    """
    if not trajectories:
        return Alignment([], None, [])
    ref = trajectories[0]
    others = trajectories[1:]
    mapped: list[dict[int, tuple[int, float]]] = []
    inserted: list[dict[int, list[int]]] = []
    for other in others:
        to_ref: dict[int, tuple[int, float]] = {}
        before: dict[int, list[int]] = {}
        next_ref = 0
        for pair in align_pair(ref, other, gap):
            if pair.a is not None:
                next_ref = pair.a + 1
                if pair.b is not None:
                    to_ref[pair.a] = (pair.b, pair.similarity)
            elif pair.b is not None:
                before.setdefault(next_ref, []).append(pair.b)
        mapped.append(to_ref)
        inserted.append(before)

    rows: list[AlignedRow] = []
    for i in range(len(ref) + 1):
        extra = max((len(ins.get(i, ())) for ins in inserted), default=0)
        for r in range(extra):
            cells: list[Step | None] = [None]
            for k, ins in enumerate(inserted):
                here = ins.get(i, [])
                cells.append(others[k][here[r]] if r < len(here) else None)
            sims: list[float | None] = [None] * len(cells)
            rows.append(AlignedRow(tuple(cells), tuple(sims), GAP))
        if i == len(ref):
            break
        cells = [ref[i]]
        sims = [1.0]
        for k, to_ref in enumerate(mapped):
            hit = to_ref.get(i)
            cells.append(None if hit is None else others[k][hit[0]])
            sims.append(None if hit is None else hit[1])
        rows.append(AlignedRow(tuple(cells), tuple(sims), _row_status(cells, sims)))

    first = next((n for n, row in enumerate(rows) if row.status != MATCH), None)
    divergence: list[int | None] = [None]
    for k in range(1, len(trajectories)):
        found = None
        for n, row in enumerate(rows):
            mine, base = row.cells[k], row.cells[0]
            if mine is None and base is None:
                continue
            if mine is None or base is None or (row.similarity[k] or 0.0) < 1.0:
                found = n
                break
        divergence.append(found)
    return Alignment(rows, first, divergence)
