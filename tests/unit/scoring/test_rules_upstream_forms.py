"""The rules extractor and judge accept every answer form and refusal in upstream's own prompts.

Upstream HEAD's Evaluator prompts carry worked examples (``Input: "..."`` then ``Output:
{"extracted_answers": [...]}``) per answer family, and its judge prompt lists refusal
phrases. Read from the harness (../shared, skipped when absent), each example must extract
as upstream's prompt says and each refusal must be judged YES; the rules' own cases (met and
unmet BANT factors, several stages, an Id the sentence names) are checked here too.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from crmtui.agent.upstream_user_texts import evaluator_texts
from crmtui.scoring.families import TASK_FAMILY, extract_by_rules
from crmtui.scoring.judge import RulesJudge

_EXAMPLE = re.compile(r'Input: "(.*?)"\s*Output: (\{.*?\})', re.DOTALL)
_REFUSAL = re.compile(r'^\s*- "(.*?)"\s*$', re.MULTILINE)


def _harness(shared_dir: Path) -> Path:
    folder = shared_dir / "upstream-harness"
    if not folder.is_dir():
        pytest.skip(f"{folder} is not present")
    return folder


def test_every_example_in_upstreams_extraction_prompts(shared_dir: Path) -> None:
    texts = evaluator_texts(_harness(shared_dir))
    checked = 0
    for task in (None, *TASK_FAMILY):
        prompt = texts.extraction("", task)[0][0]["content"]
        for given, output in _EXAMPLE.findall(prompt):
            expected = json.loads(output)["extracted_answers"]
            assert sorted(extract_by_rules(given, task)) == sorted(expected), (task, given)
            checked += 1
    assert checked >= 14


def test_every_refusal_in_upstreams_judge_prompt(shared_dir: Path) -> None:
    texts = evaluator_texts(_harness(shared_dir))
    prompt = texts.judging(["x"])[0][0]["content"]
    refusals = _REFUSAL.findall(prompt)
    assert len(refusals) >= 10
    judge = RulesJudge()
    for refusal in refusals:
        assert judge([refusal]).refused, refusal


@pytest.mark.parametrize(
    ("text", "task", "expected"),
    [
        ("The lead meets Budget, Authority but fails Need.", "lead_qualification", ["Need"]),
        ("It has a budget and a need, yet lacks a timeline.", "lead_qualification", ["Timeline"]),
        ("Budget, Timeline.", "lead_qualification", ["Budget", "Timeline"]),
        ("It fails Need, although it meets Budget.", "lead_qualification", ["Need"]),
        ("Discovery, not Quote.", "wrong_stage_rectification", ["Discovery"]),
        ("It is in Negotiation but should be in Discovery.", "wrong_stage_rectification",
         ["Discovery"]),
        ("Set the stage to Quote; it was wrongly in Closed.", "wrong_stage_rectification",
         ["Quote"]),
        ("The Account Id is 001XX000003GXXX.", None, ["001XX000003GXXX"]),
        ("Your ID: A1B2C3D4.", None, ["A1B2C3D4"]),
        ("There were 12345 cases in 2021.", None, ["None"]),  # numbers are not Ids
        ("We may look at March.", "monthly_trend_analysis", ["March"]),
    ],
)  # fmt: skip
def test_the_rules_own_cases(text: str, task: str | None, expected: list[str]) -> None:
    assert extract_by_rules(text, task) == expected
