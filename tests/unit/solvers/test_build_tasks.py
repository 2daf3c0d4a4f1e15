"""build_tasks on the generated sample org: format, blocks, None shares, spread, reproducibility."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import date, datetime
from types import SimpleNamespace

import pytest

from crmtui.org import task_texts as texts
from crmtui.org.solvers import run_solver
from crmtui.org.solvers.periods import MONTH_NAMES, relative_window, shift_back
from crmtui.org.task_facts import TaskBuildError
from crmtui.org.tasks import NONE_TASKS, TASK_ORDER, build_tasks, none_count

generator = pytest.importorskip("crmtui.org.generator")

PER_TYPE = 10
ROW_KEYS = ["idx", "answer", "task", "metadata", "reward_metric", "query"]
ANSWER_SHAPES = {
    "handle_time": r"005\w{15}",
    "transfer_count": r"005\w{15}",
    "case_routing": r"005\w{15}",
    "top_issue_identification": r"a1M\w{15}",
    "named_entity_disambiguation": r"01t\w{15}",
    "policy_violation_identification": r"ka0\w{15}",
    "best_region_identification": r"[A-Z]{2}",
    "monthly_trend_analysis": "|".join(MONTH_NAMES),
    "knowledge_qa": r".+",
}
SUFFIXES = {
    "handle_time": texts.AGENT_SUFFIX,
    "transfer_count": texts.AGENT_SUFFIX,
    "named_entity_disambiguation": texts.PRODUCT_SUFFIX,
    "policy_violation_identification": texts.ARTICLE_SUFFIX,
    "best_region_identification": texts.STATE_SUFFIX,
    "top_issue_identification": texts.ISSUE_SUFFIX.split("}.")[1],
    "monthly_trend_analysis": " Return only the month name.",
}
TODAY = r"\d{4}-\d\d-\d\d"
REQUIRED_SHAPES = {
    "handle_time": re.escape(texts.HANDLE_TIME_POLICY) + rf"\n## Today's date: {TODAY}",
    "transfer_count": re.escape(texts.TRANSFER_COUNT_POLICY) + rf"\n## Today's date: {TODAY}",
    "named_entity_disambiguation": (
        rf"- Contact Id interacting: 003\w{{15}}\n- Today's date: {TODAY}"
    ),
    "policy_violation_identification": r"- Case Id to be considered is: 500\w{15}",
    "top_issue_identification": rf"- Today's date: {TODAY}",
    "monthly_trend_analysis": rf"- Today's date: {TODAY}",
    "best_region_identification": rf"- Today's date: {TODAY}",
    "knowledge_qa": re.escape(texts.KNOWLEDGE_QA_REQUIRED),
    # A new case that names its product loosely also names its customer.
    "case_routing": re.escape(texts.CASE_ROUTING_POLICY)
    + "("
    + re.escape(texts.routing_contact_line("CONTACT")).replace("CONTACT", r"003\w{15}")
    + ")?",
}


@pytest.fixture(scope="module")
def org():
    return generator.generate(7, "small")


@pytest.fixture(scope="module")
def built(org):
    return build_tasks(org, seed=7, per_type=PER_TYPE)


def _by_task(rows):
    grouped: dict[str, list[dict]] = {}
    for row in rows:
        grouped.setdefault(row["task"], []).append(row)
    return grouped


def test_rows_have_the_hf_format_in_upstream_block_order(built):
    rows, solutions = built
    assert [row["idx"] for row in rows] == list(range(9 * PER_TYPE))
    assert all(list(row) == ROW_KEYS for row in rows)
    assert all(set(row["metadata"]) == {"required", "optional"} for row in rows)
    assert [row["task"] for row in rows] == [t for t in TASK_ORDER for _ in range(PER_TYPE)]
    assert set(solutions) == {str(row["idx"]) for row in rows}
    json.dumps([rows, solutions])  # plain JSON all the way down
    for row in rows:
        metric = "fuzzy_match" if row["task"] == "knowledge_qa" else "exact_match"
        assert row["reward_metric"] == metric


def test_none_share_and_answer_shapes(built):
    rows, _ = built
    for task, group in _by_task(rows).items():
        answers = [row["answer"] for row in group]
        assert answers.count(None) == (3 if task in NONE_TASKS else 0), task
        for answer in answers:
            assert answer is None or re.fullmatch(ANSWER_SHAPES[task], answer), (task, answer)


def test_answers_are_spread(built):
    rows, _ = built
    for task, group in _by_task(rows).items():
        distinct = {row["answer"] for row in group if row["answer"] is not None}
        assert len(distinct) >= 3, (task, distinct)


def test_metadata_texts(built):
    rows, _ = built
    assert {row["metadata"]["optional"] for row in rows} == {texts.DOMAIN_DETAILS}
    for row in rows:
        shape = REQUIRED_SHAPES[row["task"]]
        assert re.fullmatch(shape, row["metadata"]["required"]), row["idx"]


def test_query_shapes(built):
    rows, solutions = built
    for row in rows:
        task, query, params = row["task"], row["query"], solutions[str(row["idx"])]["params"]
        if task in SUFFIXES:
            assert query.endswith(SUFFIXES[task]), row["idx"]
        if task in ("top_issue_identification", "monthly_trend_analysis"):
            assert f"The associated product Id is {params['product_id']}." in query
        if task == "case_routing":
            assert query.startswith(texts.ROUTING_INSTRUCTION + "\n## Given Case\n- Case Subject: ")
            assert "\n- Case Description: " in query
    htu = _by_task(rows)["handle_time"] + _by_task(rows)["transfer_count"]
    modes = {solutions[str(row["idx"])]["params"]["mode"] for row in htu}
    assert modes == {"min", "max"}
    kinds = Counter(
        solutions[str(row["idx"])]["context"]["period"]["kind"]
        for row in rows
        if "period" in solutions[str(row["idx"])]["context"]
    )
    assert kinds["relative"] >= 5 and kinds["named"] >= 5
    assert len({(row["query"], row["metadata"]["required"]) for row in rows}) == len(rows)
    runs = {json.dumps([s["solver"], s["params"]], sort_keys=True) for s in solutions.values()}
    assert len(runs) == len(rows)  # no question asked twice in other words


def test_windows_agree_with_todays_date(built):
    rows, solutions = built
    for row in rows:
        solution = solutions[str(row["idx"])]
        context, params = solution["context"], solution["params"]
        if "today" not in context:
            continue
        today = date.fromisoformat(context["today"])
        assert context["today"] in row["metadata"]["required"]
        period = context.get("period")
        if period and period["kind"] == "relative":
            window = relative_window(today, period["unit"], period["count"])
            assert window.as_params() == {"start": params["start"], "end": params["end"]}
        elif period:
            assert datetime.fromisoformat(params["end"]).date() <= today
        if row["task"] == "named_entity_disambiguation":
            unit, count = context["interval"]
            bought = shift_back(datetime(today.year, today.month, today.day), unit, count)
            assert params["purchase_date"] == bought.date().isoformat()


def test_recorded_solutions_reproduce_every_gold_answer(org, built):
    rows, solutions = built
    for row in rows:
        solution = solutions[str(row["idx"])]
        result = run_solver(
            solution["solver"], solution["params"], tables=org.tables, truth=org.truth
        )
        assert result.answer == row["answer"], row["idx"]
        assert result.evidence == solution["evidence"], row["idx"]
        if row["task"] != "policy_violation_identification":
            # A no-violation case still rests on its conversation; other Nones on nothing.
            assert bool(result.evidence) == (row["answer"] is not None), row["idx"]


def test_deterministic_per_seed(org, built):
    assert build_tasks(org, seed=7, per_type=PER_TYPE) == built
    other, _ = build_tasks(org, seed=8, per_type=PER_TYPE)
    assert [r["query"] for r in other] != [r["query"] for r in built[0]]


def test_full_scale_upstream_counts():
    rows, _ = build_tasks(generator.generate(7, "full"), seed=7, per_type=130)
    assert len(rows) == 1170
    counts = Counter(row["task"] for row in rows if row["answer"] is None)
    assert counts == {task: 39 for task in NONE_TASKS}


def test_none_count_rounding():
    assert none_count("handle_time", 10) == 3
    assert none_count("handle_time", 130) == 39
    assert none_count("handle_time", 5) == 2
    assert none_count("best_region_identification", 130) == 0


def test_bad_inputs_are_typed_errors(org):
    with pytest.raises(TaskBuildError, match="per_type"):
        build_tasks(org, seed=1, per_type=0)
    no_end = SimpleNamespace(tables=org.tables, truth={**org.truth, "data_end": "soon"})
    with pytest.raises(TaskBuildError, match="data_end"):
        build_tasks(no_end, seed=1, per_type=1)
    few = SimpleNamespace(tables=org.tables, truth={**org.truth, "kqa": org.truth["kqa"][:2]})
    with pytest.raises(TaskBuildError, match=r"knowledge_qa instance \(2 of 3 built\)"):
        build_tasks(few, seed=1, per_type=3)
    empty = SimpleNamespace(tables={"Case": []}, truth=org.truth)
    with pytest.raises(TaskBuildError, match="no cases"):
        build_tasks(empty, seed=1, per_type=1)
