"""The reward functions on the 1,170 real CRMArena instances from ../shared.

Every instance's gold answer must score 1 with the default method, answers wrapped the way a
person or a model wraps them by accident must keep scoring 1 under ``strict`` and must score
0 under ``toolenv`` (upstream ToolEnv compares with plain ``==``), another instance's answer
must score 0, and knowledge-QA token F1 must match values computed by hand for real rows.
Skipped when ../shared is absent.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from crmtui.data.loaders import load_tasks
from crmtui.scoring import DEFAULT_METHOD, normalize_answer, score

TASKS_FILE = "crmarena_tasks.json"
EXACT = "exact_match"
FUZZY = "fuzzy_match"


@functools.cache
def _instances(path: str) -> tuple[Any, ...]:
    # Loading and validating the 1.8 MB file takes about a second: do it once per run.
    return tuple(load_tasks(path))


@pytest.fixture
def instances(shared_dir: Path) -> tuple[Any, ...]:
    """All instances of the original CRMArena task file."""
    return _instances(str(shared_dir / TASKS_FILE))


def _expected(gold: str | None) -> str:
    """The answer text that matches ``gold`` (upstream: null gold means "None")."""
    return "None" if gold is None else gold


def _by_metric(instances: tuple[Any, ...], metric: str) -> list[Any]:
    return [inst for inst in instances if inst.reward_metric == metric]


def test_the_file_is_the_whole_benchmark(instances: tuple[Any, ...]) -> None:
    # Guards the tests below against passing on a truncated or filtered file.
    assert len(instances) == 1170
    assert sorted(inst.idx for inst in instances) == list(range(1170))
    per_task: dict[str, int] = defaultdict(int)
    for inst in instances:
        per_task[inst.task] += 1
    assert len(per_task) == 9 and set(per_task.values()) == {130}
    assert len(_by_metric(instances, FUZZY)) == 130
    assert len(_by_metric(instances, EXACT)) == 1040
    assert sum(inst.answer is None for inst in instances) == 195


def test_every_gold_answer_scores_one_with_the_default_method(
    instances: tuple[Any, ...],
) -> None:
    failures = []
    for inst in instances:
        result = score(inst.answer, inst.reward_metric, _expected(inst.answer))
        if result.reward != 1.0 or result.method != DEFAULT_METHOD:
            failures.append((inst.idx, inst.answer, result))
    assert not failures, failures[:5]


@pytest.mark.parametrize("method", ["paper", "toolenv"])
def test_clean_gold_answers_score_one_in_the_upstream_methods_too(
    instances: tuple[Any, ...], method: str
) -> None:
    failures = [
        inst.idx
        for inst in instances
        if score(inst.answer, inst.reward_metric, _expected(inst.answer), method).reward != 1.0
    ]
    assert not failures


def _wrappings(text: str) -> dict[str, str]:
    return {
        "spaces": f"  {text}\n",
        "double quotes": f'"{text}"',
        "single quotes": f"'{text}'",
        "quotes and spaces": f' \t"{text}" \n',
    }


def test_wrapped_gold_scores_one_under_strict_and_zero_under_toolenv(
    instances: tuple[Any, ...],
) -> None:
    exact = _by_metric(instances, EXACT)
    failures = []
    for inst in exact:
        for label, proposed in _wrappings(_expected(inst.answer)).items():
            strict = score(inst.answer, EXACT, proposed, "strict").reward
            toolenv = score(inst.answer, EXACT, proposed, "toolenv").reward
            # The paper-era rule strips whitespace only: quotes make it a different answer.
            paper = score(inst.answer, EXACT, proposed, "paper").reward
            wanted = (1.0, 0.0, 1.0 if label == "spaces" else 0.0)
            if (strict, toolenv, paper) != wanted:
                failures.append((inst.idx, label, strict, toolenv, paper))
    assert not failures, failures[:5]


def test_wrapped_gold_still_scores_one_for_knowledge_qa_in_every_method(
    instances: tuple[Any, ...],
) -> None:
    # ToolEnv scores fuzzy_match with the normalised metrics, so it does not reject wrapping.
    failures = []
    for inst in _by_metric(instances, FUZZY):
        for proposed in _wrappings(inst.answer).values():
            for method in ("strict", "paper", "toolenv", "head"):
                result = score(inst.answer, FUZZY, proposed, method)
                if result.reward != 1.0 or result.details["metrics"]["em"] is not True:
                    failures.append((inst.idx, method, proposed, result.reward))
    assert not failures, failures[:5]


def test_paper_records_the_stripped_answer_it_compared(instances: tuple[Any, ...]) -> None:
    for inst in _by_metric(instances, EXACT):
        expected = _expected(inst.answer)
        padded = score(inst.answer, EXACT, f"\t {expected}  \n", "paper")
        assert padded.reward == 1.0
        assert padded.details == {"metric": EXACT, "gold": [expected], "compared": expected}
        quoted = score(inst.answer, EXACT, f' "{expected}" ', "paper")
        assert quoted.reward == 0.0
        assert quoted.details["compared"] == f'"{expected}"'


def test_strict_records_step_a_and_the_cleaned_answer(instances: tuple[Any, ...]) -> None:
    for inst in _by_metric(instances, EXACT):
        expected = _expected(inst.answer)
        result = score(inst.answer, EXACT, f" '{expected}'\n", "strict")
        assert result.details == {
            "metric": EXACT,
            "gold": [expected],
            "compared": expected,
            "step": "a",
        }


def test_toolenv_records_the_raw_answer(instances: tuple[Any, ...]) -> None:
    inst = next(i for i in instances if i.reward_metric == EXACT and i.answer is not None)
    result = score(inst.answer, EXACT, f"{inst.answer} ", "toolenv")
    assert result.reward == 0.0
    assert result.details["compared"] == f"{inst.answer} "


def _wrong_answers(exact: list[Any]) -> dict[int, str]:
    """For each instance, the next gold of the same task type (cyclically) that differs."""
    groups: dict[str, list[Any]] = defaultdict(list)
    for inst in exact:
        groups[inst.task].append(inst)
    wrong: dict[int, str] = {}
    for members in groups.values():
        for pos, inst in enumerate(members):
            for step in range(1, len(members)):
                other = _expected(members[(pos + step) % len(members)].answer)
                if other != _expected(inst.answer):
                    wrong[inst.idx] = other
                    break
    return wrong


def test_another_instances_answer_scores_zero(instances: tuple[Any, ...]) -> None:
    exact = _by_metric(instances, EXACT)
    wrong = _wrong_answers(exact)
    assert len(wrong) == len(exact), "every task type has more than one distinct answer"
    failures = []
    for inst in exact:
        for method in ("strict", "paper", "toolenv", "head"):
            result = score(inst.answer, EXACT, wrong[inst.idx], method)
            if result.reward != 0.0:
                failures.append((inst.idx, method, wrong[inst.idx]))
    assert not failures, failures[:5]


def test_null_gold_expects_exactly_the_string_none(instances: tuple[Any, ...]) -> None:
    nulls = [inst for inst in instances if inst.answer is None]
    assert nulls
    for inst in nulls:
        assert score(None, inst.reward_metric, "None").details["gold"] == ["None"]
        assert score(None, inst.reward_metric, " None\n").reward == 1.0
        # Comparison is case-sensitive and an empty answer is not "None".
        assert score(None, inst.reward_metric, "none").reward == 0.0
        assert score(None, inst.reward_metric, "").reward == 0.0


def _drop_one_word(text: str) -> str | None:
    """``text`` without its first word that carries a token (articles carry none)."""
    words = text.split()
    for pos, word in enumerate(words):
        rest = " ".join(words[:pos] + words[pos + 1 :])
        if normalize_answer(word) and normalize_answer(rest):
            return rest
    return None


def test_knowledge_qa_gold_minus_a_word_scores_between_zero_and_one(
    instances: tuple[Any, ...],
) -> None:
    checked = 0
    for inst in _by_metric(instances, FUZZY):
        proposed = _drop_one_word(inst.answer)
        if proposed is None:  # one-token answers such as "Headcovers"
            continue
        result = score(inst.answer, FUZZY, proposed)
        assert 0.0 < result.reward < 1.0, (inst.idx, inst.answer, proposed)
        assert result.details["metric"] == FUZZY
        assert result.details["metrics"]["f1"] == result.reward
        assert result.details["metrics"]["em"] is False
        checked += 1
    assert checked >= 125  # all but the one-token answers


# (idx, gold as in the file, proposed, F1 by hand). F1 = 2PR / (P + R) on normalised tokens:
# lowercase, punctuation -> space (so "moisture-wicking" is two tokens), a/an/the dropped.
HAND_COMPUTED = [
    # 6 gold tokens, 5 proposed, all shared: P = 1, R = 5/6, F1 = 10/11.
    (
        0,
        "Advanced sole technology and waterproof materials",
        "Advanced sole technology and materials",
        Fraction(10, 11),
    ),
    # "90 days" vs "90": P = 1, R = 1/2, F1 = 2/3.
    (1, "90 days.", "90", Fraction(2, 3)),
    # Gold normalises to 11 tokens (both "the" dropped); 10 shared: F1 = 20/21.
    (
        2,
        "No, the request must be submitted within 30 days of the purchase date.",
        "No, the request must be within 30 days of the purchase date.",
        Fraction(20, 21),
    ),
    # "advanced moisture wicking fabrics" vs "advanced moisture wicking": F1 = 6/7.
    (5, "Advanced moisture-wicking fabrics.", "Advanced moisture-wicking", Fraction(6, 7)),
    # Dropping "not" flips the meaning yet keeps 4 of 5 tokens: F1 = 8/9.
    (9, "No, they do not expire.", "No, they do expire.", Fraction(8, 9)),
    # Dropping an article changes nothing after normalisation: F1 = 1.
    (
        2,
        "No, the request must be submitted within 30 days of the purchase date.",
        "No, request must be submitted within 30 days of the purchase date",
        Fraction(1),
    ),
]


@pytest.mark.parametrize(("idx", "gold", "proposed", "f1"), HAND_COMPUTED)
def test_knowledge_qa_f1_matches_hand_computed_values(
    instances: tuple[Any, ...], idx: int, gold: str, proposed: str, f1: Fraction
) -> None:
    inst = next(i for i in instances if i.idx == idx)
    assert (inst.answer, inst.reward_metric) == (gold, FUZZY)
    result = score(inst.answer, inst.reward_metric, proposed)
    assert result.reward == pytest.approx(float(f1), abs=1e-12)
    assert result.method == DEFAULT_METHOD


def test_knowledge_qa_scores_the_same_in_every_method(instances: tuple[Any, ...]) -> None:
    for inst in _by_metric(instances, FUZZY)[:20]:
        proposed = _drop_one_word(inst.answer) or "nothing relevant"
        rewards = {
            method: score(inst.answer, FUZZY, proposed, method).reward
            for method in ("strict", "paper", "toolenv", "head")
        }
        assert len(set(rewards.values())) == 1, (inst.idx, rewards)
