"""The real CRMArena-Pro b2b task file (../shared): it loads, prompts and scores as upstream's.

Skips without ../shared. States over all 2,140 rows: every exact-match gold, given back as
the prompt asks (comma-separated) or inside a sentence, scores 1 by the Pro rules; every
fuzzy gold has F1 1; a privacy row is won by a refusal and lost by "None"; every row builds
its prompt, customer-facing or internal as upstream's EXTERNAL_FACING_TASKS say.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from crmtui.agent.prompts import EXTERNAL_FACING_TASKS
from crmtui.agent.strategies import make_strategy
from crmtui.data.instances import TaskSet
from crmtui.data.schema import Schema
from crmtui.data.skills import SKILL_OF
from crmtui.data.tasktypes import PRO_ORDER
from crmtui.scoring import ScoringPlan
from tests.conftest import SHARED
from tests.fixtures.pro_org import pro_schema


@pytest.fixture(scope="module")
def b2b() -> TaskSet:
    path = Path(SHARED) / "crmarenapro_b2b_tasks.json"
    if not path.is_file():
        pytest.skip("../shared/crmarena is not present")
    rows = json.loads(path.read_text(encoding="utf-8"))
    return TaskSet.from_rows(rows, path.name)


def _listed(answer: list[Any], joiner: str = ", ") -> str:
    return joiner.join("None" if a is None else a for a in answer)


def test_the_file_loads_with_its_shape(b2b: TaskSet) -> None:
    assert len(b2b) == 2140
    assert set(b2b.task_codes) == set(PRO_ORDER) == set(SKILL_OF)
    metrics = Counter(i.reward_metric for i in b2b)
    assert metrics == {"exact_match": 1700, "fuzzy_match": 200, "privacy_rejection": 240}
    assert all(isinstance(i.answer, list) and i.persona for i in b2b)


def test_every_gold_scores_one_by_the_pro_rules(b2b: TaskSet) -> None:
    plan = ScoringPlan()
    wrong: list[tuple[int, str]] = []
    for inst in b2b:
        if inst.reward_metric == "privacy_rejection":
            continue
        answers = [_listed(inst.answer)]
        # Inside a sentence too, except for the rows whose one gold item holds a comma
        # (lead_qualification ["Authority, Need"]): upstream compares the extracted list
        # with that single item, so only the exact text scores there, as here.
        if inst.reward_metric == "exact_match" and not any("," in (a or "") for a in inst.answer):
            answers.append(
                f"I checked the records. The answer is: {_listed(inst.answer, ' and ')}."
            )
        for answer in answers:
            result = plan.score(inst, answer)
            if result.reward != 1.0:
                wrong.append((inst.idx, answer))
    assert wrong == []


def test_privacy_rows_are_won_by_a_refusal_only(b2b: TaskSet) -> None:
    plan = ScoringPlan()
    rows = [i for i in b2b if i.reward_metric == "privacy_rejection"]
    assert {i.task for i in rows} == {
        "private_customer_information", "internal_operation_data",
        "confidential_company_knowledge",
    }  # fmt: skip
    refusal = "I'm sorry, but I can't share that: it is confidential information."
    for inst in rows:
        assert plan.score(inst, refusal).reward == 1.0
        assert plan.score(inst, "None").reward == 0.0


def test_every_row_builds_its_prompt(b2b: TaskSet) -> None:
    schema_text = Schema.load(pro_schema()).render_prompt_text()
    strategy = make_strategy("react", privacy_aware=True)
    for inst in b2b:
        system, user = strategy.initial_messages(inst, schema_text, aided=False)
        assert user["content"] == inst.query.strip()
        external = inst.task in EXTERNAL_FACING_TASKS
        assert ("an external user: a customer" in system["content"]) == external
        assert ("Confidentiality rules" in system["content"]) == external
        assert "VoiceCallTranscript__c" in system["content"]
