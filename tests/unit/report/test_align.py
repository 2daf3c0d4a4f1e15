"""Alignment of hand-made trajectories."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from crmtui.review.align import GAP, MATCH, PARTIAL, align, align_pair, similarity
from crmtui.review.trajectory import Step, normalize_query


def q(text: str, objects: set[str] = frozenset(), records: set[str] = frozenset()) -> Step:
    """A query step (index filled in by ``traj``)."""
    return Step(
        index=0,
        seq=0,
        ms=0,
        kind="run_query",
        query=text,
        normalized=normalize_query(text),
        objects=frozenset(objects),
        records=frozenset(records),
    )


def sub(answer: str) -> Step:
    return Step(index=0, seq=0, ms=0, kind="submit", answer=answer)


def traj(*steps: Step) -> list[Step]:
    return [
        Step(**{**s.__dict__, "index": n, "seq": n + 1, "ms": n * 1000})
        for n, s in enumerate(steps)
    ]


A = q("SELECT Id FROM Case", {"Case"})
B = q("SELECT Id FROM User WHERE Id = '005x'", {"User"}, {"005x"})
C = q("SELECT Id FROM Account", {"Account"})
D = q("SELECT Id FROM Order", {"Order"})
E = q("SELECT Id FROM Issue__c", {"Issue__c"})


def shape(pairs: list) -> list[tuple[int | None, int | None]]:
    return [(p.a, p.b) for p in pairs]


def test_similarity_levels() -> None:
    assert similarity(A, q("select  id from CASE;", {"Case"})) == 1.0
    same_records = q("SELECT Name FROM User WHERE Id = '005x'", {"User"}, {"005x"})
    assert similarity(B, same_records) == 0.75
    assert similarity(B, q("x", {"Contact"}, {"005x"})) == 0.5
    assert similarity(A, q("SELECT Subject FROM Case", {"Case"})) == 0.25
    assert similarity(A, C) == 0.0
    assert similarity(sub("CA"), sub(" 'ca' ")) == 1.0
    assert similarity(sub("CA"), sub("OR")) == 0.5
    assert similarity(sub("CA"), A) == 0.0


def test_identical_trajectories_have_no_divergence() -> None:
    t = traj(A, B, C, sub("x"))
    result = align([t, traj(A, B, C, sub("x"))])
    assert [row.status for row in result.rows] == [MATCH] * 4
    assert result.first_divergence is None
    assert result.divergence == [None, None]


def test_one_extra_step_is_a_gap_and_the_rest_still_matches() -> None:
    pairs = align_pair(traj(A, B, C), traj(A, D, B, C))
    assert shape(pairs) == [(0, 0), (None, 1), (1, 2), (2, 3)]
    result = align([traj(A, B, C), traj(A, D, B, C)])
    assert [row.status for row in result.rows] == [MATCH, GAP, MATCH, MATCH]
    assert result.rows[1].cells[0] is None
    assert result.rows[1].cells[1].query == D.query
    assert result.first_divergence == 1
    assert result.divergence == [None, 1]


def test_divergence_in_the_middle() -> None:
    a = traj(A, B, C, E)
    b = traj(A, B, D, E)
    pairs = align_pair(a, b)
    # C and D share nothing: each becomes a gap rather than a forced pairing.
    assert shape(pairs) == [(0, 0), (1, 1), (2, None), (None, 2), (3, 3)]
    result = align([a, b])
    assert [row.status for row in result.rows] == [MATCH, MATCH, GAP, GAP, MATCH]
    assert result.first_divergence == 2


def test_partial_pairing_on_shared_object() -> None:
    a = traj(A, q("SELECT Id FROM User WHERE Id = '005x'", {"User"}, {"005x"}))
    b = traj(A, q("SELECT Name FROM User WHERE Id = '005x'", {"User"}, {"005x"}))
    result = align([a, b])
    assert [row.status for row in result.rows] == [MATCH, PARTIAL]
    assert result.rows[1].similarity == (1.0, 0.75)
    assert result.first_divergence == 1


def test_totally_different_trajectories_are_all_gaps() -> None:
    a = traj(A, B)
    b = traj(C, D, E)
    pairs = align_pair(a, b)
    assert all(p.status == GAP for p in pairs)
    assert sorted(p.a for p in pairs if p.a is not None) == [0, 1]
    assert sorted(p.b for p in pairs if p.b is not None) == [0, 1, 2]
    result = align([a, b])
    assert len(result.rows) == 5
    assert result.first_divergence == 0
    assert {row.status for row in result.rows} == {GAP}


def test_empty_trajectories() -> None:
    assert align_pair([], []) == []
    assert shape(align_pair(traj(A), [])) == [(0, None)]
    result = align([[], traj(A)])
    assert len(result.rows) == 1 and result.rows[0].status == GAP


def test_three_way_star_alignment_merges_insertions() -> None:
    ref = traj(A, B)
    one = traj(A, C, B)
    two = traj(A, D, E, B)
    result = align([ref, one, two])
    cells = [[None if c is None else c.query for c in row.cells] for row in result.rows]
    assert cells == [
        [A.query, A.query, A.query],
        [None, C.query, D.query],
        [None, None, E.query],
        [B.query, B.query, B.query],
    ]
    assert [row.status for row in result.rows] == [MATCH, GAP, GAP, MATCH]
    assert result.divergence == [None, 1, 1]


def test_alignment_is_deterministic() -> None:
    a = traj(A, B, A, B)
    b = traj(A, B)
    assert shape(align_pair(a, b)) == shape(align_pair(a, b))
    # Every step appears exactly once.
    pairs = align_pair(a, b)
    assert sorted(p.a for p in pairs if p.a is not None) == [0, 1, 2, 3]
    assert sorted(p.b for p in pairs if p.b is not None) == [0, 1]


def _failed(step: Step) -> Step:
    return Step(**{**step.__dict__, "error_code": "MALFORMED_QUERY"})


def test_the_same_query_failed_on_one_side_is_a_divergence() -> None:
    ok, failed = traj(A, B), traj(A, _failed(B))
    result = align([ok, failed])
    assert [row.status for row in result.rows] == [MATCH, PARTIAL]
    assert result.first_divergence == 1 and result.divergence == [None, 1]
    # Failing the same way on both sides is the same step.
    assert align([traj(A, _failed(B)), traj(A, _failed(B))]).first_divergence is None


@given(
    st.lists(st.tuples(st.sampled_from([A, B, C, D, E]), st.booleans(), st.booleans()), max_size=8)
)
def test_identical_step_by_step_only_when_every_outcome_agrees(
    steps: list[tuple[Step, bool, bool]],
) -> None:
    """Two trajectories of the same queries: identical iff each query failed on both sides
    or on neither."""
    left = traj(*[_failed(s) if fail else s for s, fail, _ in steps])
    right = traj(*[_failed(s) if fail else s for s, _, fail in steps])
    same = all(a == b for _, a, b in steps)
    assert (align([left, right]).first_divergence is None) is same
