"""Fair assignment for every way annotators join a study: at creation, with ``add-annotator``
(any ``--count``), and in a multi-turn study with roles and pairs of people.

The promise of ``add-annotator`` ("taken where the fewest annotators are") as a property: no
instance a newcomer takes had more annotators (seats: a pair of people counts once) than
an instance they left. Ties are spread by the seed, never by the task types' order.
"""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crmtui.cli import cli
from crmtui.study import StudyRequest, add_annotator, create_study, load_study
from crmtui.study.assign import assign, design, extend, joins_fairly, seat_coverage
from crmtui.study.roles import Conversation
from tests.unit.study.helpers import workspace

CHAT = Conversation(user_model="openai/user", agent_model="openai/agent")
_folders = itertools.count()


@pytest.fixture(autouse=True)
def studies_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CRMTUI_STUDIES", str(tmp_path / "studies"))
    return tmp_path / "studies"


JOIN = st.tuples(st.integers(1, 18), st.sampled_from(["agent", "user"]))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    first=st.integers(1, 4),
    shared=st.sampled_from([0.0, 0.25, 1.0]),
    roles=st.sampled_from([None, ["agent"], ["agent", "user"], ["user", "agent", "agent"]]),
    joins=st.lists(JOIN, min_size=1, max_size=6),
    seed=st.integers(0, 1000),
)
def test_no_newcomer_takes_an_instance_while_a_less_covered_one_is_left(
    first: int,
    shared: float,
    roles: list[str] | None,
    joins: list[tuple[int, str]],
    seed: int,
) -> None:
    names = [f"a{n}" for n in range(first)]
    overlap = min(2, first) if roles is None else 1
    made, _ = create_study(
        StudyRequest(
            name=f"s{next(_folders)}",
            annotators=names,
            per_type=6,
            shared=shared if overlap > 1 else 0.0,
            overlap=overlap,
            seed=seed,
            conversation=None if roles is None else CHAT,
            roles=roles,
        ),
        workspace=workspace(),
    )
    for n, (count, role) in enumerate(joins):
        study = load_study(made.folder)
        before = seat_coverage(study.design, study.assignments, study.partners)
        newcomer = f"j{n}"
        _, item, _ = add_annotator(
            str(made.folder), newcomer, count=count, role=None if roles is None else role
        )
        assert len(item.instances) == count == len(set(item.instances))
        assert joins_fairly(before, item.instances), (before, item.instances)
        # Nobody else's work changed.
        after = load_study(made.folder)
        assert {k: v for k, v in after.assignments.items() if k != newcomer} == study.assignments
        # Among the least covered, the share spreads over the task types: a type gets two
        # more than another only once the other has no least covered instance left.
        low = min(before.values())
        tied = Counter(study.design.types[idx] for idx, seats in before.items() if seats == low)
        if count <= sum(tied.values()):
            spread = Counter(study.design.types[idx] for idx in item.instances)
            for big, small in itertools.permutations(tied, 2):
                assert spread[big] <= spread[small] + 1 or spread[small] == tied[small]


def test_late_joiners_spread_over_the_pool_not_onto_the_first_types() -> None:
    # The reported case: nine instances, one per type, two annotators with nothing shared;
    # three newcomers of two each must take six different instances (7 had one annotator).
    types = {t: f"type{t}" for t in range(9)}
    plan = design(types, shared=0.0, overlap=1, seed=3)
    existing = dict(assign(plan, ["a", "b"], seed=3))
    for name in ("c", "d", "e"):
        existing[name] = extend(plan, existing, name, count=2, seed=3)
    taken = [idx for name in "cde" for idx in existing[name].instances]
    assert len(set(taken)) == 6
    assert max(seat_coverage(plan, existing, {}).values()) == 2
    # Ties go by each newcomer's own draw: single newcomers land on many task types.
    firsts = {extend(plan, existing, f"n{k}", count=1, seed=3).instances[0] for k in range(30)}
    level = min(seat_coverage(plan, existing, {}).values())
    assert len(firsts) == sum(v == level for v in seat_coverage(plan, existing, {}).values())


def test_a_pair_of_people_counts_once_per_instance() -> None:
    study, _ = create_study(
        StudyRequest(name="pairs", annotators=["ann", "ben"], per_type=2, shared=0.0,
                     overlap=1, seed=1, conversation=CHAT, roles=["agent", "user"]),
        workspace=workspace(),
    )  # fmt: skip
    coverage = seat_coverage(study.design, study.assignments, study.partners)
    assert set(coverage.values()) == {1}  # one conversation per instance, not two


def test_the_cli_add_annotator_keeps_the_promise(studies_here: Path) -> None:
    create_study(
        StudyRequest(name="addtest", annotators=["a", "b"], per_type=1, shared=0.0,
                     overlap=1, seed=3),
        workspace=workspace(),
    )  # fmt: skip
    runner = CliRunner()
    for name in ("c", "d", "e"):
        result = runner.invoke(cli, ["study", "add-annotator", "addtest", name, "--count", "2"])
        assert result.exit_code == 0, result.output
    study = load_study("addtest")
    coverage = seat_coverage(study.design, study.assignments, {})
    assert max(coverage.values()) - min(coverage.values()) <= 1


def test_status_and_report_agree_on_what_is_shared(studies_here: Path) -> None:
    # A newcomer adds overlap outside the design's shared instances: those are shared now,
    # in the status's column as in the report's count (agreement is measured on them).
    import json

    from crmtui.study import report_study, study_status
    from crmtui.study.render import study_notes, study_report_json

    create_study(
        StudyRequest(name="mix", annotators=["a", "b"], per_type=2, shared=0.5, overlap=2,
                     seed=4),
        workspace=workspace(),
    )  # fmt: skip
    add_annotator("mix", "c", count=3)
    study = load_study("mix")
    assert len(study.shared) > len(study.design.shared)
    status = study_status(study)
    assert sorted(i.idx for i in status.instances if i.shared) == study.shared
    result = report_study(study)
    assert json.loads(study_report_json(result))["study"]["shared"] == study.shared
    assert f"{len(study.shared)} shared" in study_notes(result)[0]
