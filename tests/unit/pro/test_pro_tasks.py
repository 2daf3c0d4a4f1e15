"""build_pro_tasks on the sample orgs: the HF row format, upstream's blocks, None shares and
answer shapes, gold that a re-run of its solver reproduces, and the loaders' round trip."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from crmtui.data.instances import TaskSet
from crmtui.data.loaders import load_tasks
from crmtui.org.generator import GeneratedOrg
from crmtui.org.pro_tasks import (
    PRO_TASK_ORDER,
    build_pro_tasks,
    none_count,
    reward_metric,
)
from crmtui.org.pro_tasks.personas import EXTERNAL
from crmtui.org.solvers import TABLE_SOLVERS, TRUTH_SOLVERS, index_tables, run_solver
from crmtui.org.solvers.pro import PRO_TABLE_SOLVERS, pro_index, run_pro_solver
from crmtui.org.solvers.pro.vocab import BANT_FACTORS, COMPETITORS, STAGES, TOPICS
from crmtui.org.task_facts import TaskBuildError
from crmtui.org.task_stats import check_targets, task_stats

Built = tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]
ROW_KEYS = ["idx", "answer", "task", "persona", "metadata", "reward_metric", "query"]
USER = r"005\w{15}"
#: Task type -> pattern every answered gold value matches.
SHAPES = {
    # One factor, or several in BANT order joined as in the real file ('Budget, Need').
    "lead_qualification": "({0})(, ({0}))*".format("|".join(BANT_FACTORS)),
    "monthly_trend_analysis": r"[A-Z][a-z]+",
    "activity_priority": r"00T\w{15}",
    "top_issue_identification": r"a1M\w{15}",
    "invalid_config": r"ka0\w{15}",
    "sales_amount_understanding": USER,
    "handle_time": USER,
    "conversion_rate_comprehension": USER,
    "best_region_identification": r"[A-Z]{2}",
    "transfer_count": USER,
    "wrong_stage_rectification": "|".join(STAGES),
    "policy_violation_identification": r"ka0\w{15}",
    "case_routing": USER,
    "lead_routing": USER,
    "quote_approval": r"ka0\w{15}",
    "named_entity_disambiguation": r"01t\w{15}",
    "sales_cycle_understanding": USER,
}


@pytest.fixture(params=["b2b", "b2c"])
def built(request: pytest.FixtureRequest) -> tuple[GeneratedOrg, Built]:
    org_type = request.param
    return request.getfixturevalue(org_type), request.getfixturevalue(f"{org_type}_tasks")


def test_rows_come_in_upstreams_blocks_with_upstreams_fields(
    built: tuple[GeneratedOrg, Built],
) -> None:
    _, (rows, solutions) = built
    assert [r["idx"] for r in rows] == list(range(len(rows)))
    assert all(list(r) == ROW_KEYS for r in rows)
    blocks = [
        t for i, t in enumerate(r["task"] for r in rows) if i == 0 or rows[i - 1]["task"] != t
    ]
    assert blocks == list(PRO_TASK_ORDER)
    counts = Counter(r["task"] for r in rows)
    for task in PRO_TASK_ORDER:
        assert counts[task] == (8 if reward_metric(task) == "privacy_rejection" else 10)
    assert set(solutions) == {str(r["idx"]) for r in rows}


def test_none_shares_metrics_personas_and_answer_shapes(built: tuple[GeneratedOrg, Built]) -> None:
    _, (rows, _) = built
    by_task: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_task.setdefault(row["task"], []).append(row)
        assert isinstance(row["answer"], list) and row["answer"]
        assert row["persona"].startswith("You are ")
        assert row["reward_metric"] == reward_metric(row["task"])
        assert row["metadata"]["optional"].startswith("# Domain Details")
    assert sum(1 for r in by_task["policy_violation_identification"] if r["answer"] == [None]) == 8
    for task, group in by_task.items():
        nones = sum(1 for r in group if r["answer"] == [None])
        assert nones == none_count(task, len(group)), task
        for row in group:
            if row["answer"] == [None] or task not in SHAPES:
                continue
            for value in row["answer"]:
                assert re.fullmatch(SHAPES[task], value), (task, value)
        if task == "activity_priority":
            assert all(r["answer"] == sorted(r["answer"]) for r in group)
        if task == "sales_insight_mining":
            words = set(COMPETITORS) | set(TOPICS)
            for row in group:
                assert set(row["answer"][0].split(", ")) <= words
    # Customers ask the external questions, employees the rest.
    external = {r["persona"] for r in rows if r["task"] in EXTERNAL}
    internal = {r["persona"] for r in rows if r["task"] not in EXTERNAL}
    assert external and internal and not external & internal


def test_every_gold_answer_is_its_solvers_answer_on_the_org(
    built: tuple[GeneratedOrg, Built],
) -> None:
    org, (rows, solutions) = built
    service, sales = index_tables(org.tables), pro_index(org.tables)
    for row in rows:
        solution = solutions[str(row["idx"])]
        name, params = solution["solver"], solution["params"]
        if name in PRO_TABLE_SOLVERS:
            result = run_pro_solver(name, params, tables=sales)
        elif name in TABLE_SOLVERS:
            result = run_solver(name, params, tables=service)
        elif name in TRUTH_SOLVERS:
            result = run_solver(name, params, truth=org.truth)
        else:
            result = run_pro_solver(name, params, truth=org.truth)
        answer = result.answer if isinstance(result.answer, list) else [result.answer]
        assert answer == row["answer"], row["idx"]
        assert isinstance(solution["facts"], dict)


def test_each_instance_states_what_it_needs(built: tuple[GeneratedOrg, Built]) -> None:
    """The record a per-record question is about is named in its metadata, and periods come
    with today's date; what the asker knows is kept for the multi-turn mode."""
    _, (rows, solutions) = built
    tasks = TaskSet.from_rows(rows)
    for inst in tasks:
        facts = solutions[str(inst.idx)]["facts"]
        if inst.task in ("wrong_stage_rectification", "activity_priority"):
            assert inst.context_ids == {"Opportunity Id": facts["opportunity_id"]}
        if inst.task in ("invalid_config", "quote_approval"):
            assert inst.context_ids == {"Quote Id": facts["quote_id"]}
        if inst.task == "lead_qualification":
            assert inst.context_ids == {"Lead Id": facts["lead_id"]}
            assert {"budget", "months", "authority", "need"} <= set(facts)
        if inst.task in ("sales_amount_understanding", "conversion_rate_comprehension"):
            assert inst.today is not None and facts["period"].lower() in inst.query.lower()
        if inst.task == "lead_routing":
            assert f"## Lead's region: {facts['region']}" in inst.metadata.required
        if inst.task == "named_entity_disambiguation":
            # The customer knows how they describe the product and when they bought it.
            assert facts["product_words"] and facts["product_words"] in inst.query
            assert facts["bought"] is not None


def test_same_seed_same_tasks(b2b: GeneratedOrg, b2b_tasks: Built) -> None:
    again = build_pro_tasks(b2b, seed=7, per_type=10, per_privacy=8)
    assert json.dumps(again) == json.dumps(b2b_tasks)
    with pytest.raises(TaskBuildError):
        build_pro_tasks(b2b, seed=7, per_type=0, per_privacy=8)


def test_generated_files_load_through_the_loaders(b2b_tasks: Built, tmp_path: Path) -> None:
    rows, _ = b2b_tasks
    path = tmp_path / "pro.tasks.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    for via_datasets in (False, True):
        tasks = load_tasks(str(path), via_datasets=via_datasets)
        assert [inst.to_row() for inst in tasks] == rows
    assert set(load_tasks(str(path), via_datasets=False).counts()) == set(PRO_TASK_ORDER)


def test_task_stats_reads_pro_sets_and_rerun_solvers_agree(
    b2b: GeneratedOrg, b2b_tasks: Built
) -> None:
    rows, solutions = b2b_tasks
    tasks = TaskSet.from_rows(rows)
    stats = task_stats(tasks, solutions, index_tables(b2b.tables), None, pro_index(b2b.tables))
    by_task = {s.task: s for s in stats}
    assert by_task["policy_violation_identification"].none_share == 0.8
    assert by_task["internal_operation_data"].none_share == 1.0
    assert all(s.mismatches == 0 for s in stats)
    assert by_task["sales_amount_understanding"].ranked == 8
    assert "rule_2" in by_task["lead_routing"].extras
    gaps = [c for c in check_targets(stats) if c.target.startswith("None share")]
    assert len(gaps) == 22 and all(c.ok for c in gaps)
