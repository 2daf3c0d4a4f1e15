"""score(): each method's semantics on hand-checked examples."""

from __future__ import annotations

import pytest

from crmtui.errors import CrmtuiError
from crmtui.scoring import DEFAULT_METHOD, METHODS, Score, ScoringError, score, split_answer

UID = "005Wt000003NDqDIAW"


def test_default_method_is_strict() -> None:
    assert DEFAULT_METHOD == "strict"
    assert score(UID, "exact_match", UID).method == "strict"


@pytest.mark.parametrize(
    ("proposed", "strict", "paper", "toolenv"),
    [
        (UID, 1.0, 1.0, 1.0),
        (f"  {UID}\n", 1.0, 1.0, 0.0),
        (f'"{UID}"', 1.0, 0.0, 0.0),
        (f" '{UID}' ", 1.0, 0.0, 0.0),
        (f"\"'{UID}'\"", 1.0, 0.0, 0.0),  # double quotes stripped, then single quotes
        (f"'\"{UID}\"'", 0.0, 0.0, 0.0),  # HEAD strips " before ', so this stays wrapped
        (UID.lower(), 0.0, 0.0, 0.0),  # case-sensitive
        (f"The agent is {UID}.", 0.0, 0.0, 0.0),
    ],
)
def test_exact_match_methods(proposed: str, strict: float, paper: float, toolenv: float) -> None:
    assert score(UID, "exact_match", proposed, "strict").reward == strict
    assert score(UID, "exact_match", proposed, "paper").reward == paper
    assert score(UID, "exact_match", proposed, "toolenv").reward == toolenv


def test_none_gold_expects_the_string_none() -> None:
    for method in ("strict", "paper", "toolenv", "head"):
        assert score(None, "exact_match", "None", method).reward == 1.0
    assert score(None, "exact_match", " None ", "paper").reward == 1.0
    assert score(None, "exact_match", "none", "strict").reward == 0.0
    assert score(None, "exact_match", "", "strict").reward == 0.0
    assert score([None], "exact_match", "None").reward == 1.0


def test_details_say_what_was_compared() -> None:
    result = score(UID, "exact_match", f' "{UID}" ')
    assert result == Score(
        1.0, "strict", {"metric": "exact_match", "gold": [UID], "compared": UID, "step": "a"}
    )


def test_head_reads_lists_deterministically() -> None:
    gold = ["May", "July"]
    assert score(gold, "exact_match", "July, May", "head").reward == 1.0
    assert score(gold, "exact_match", '["May", "July"]', "head").reward == 1.0
    assert score(gold, "exact_match", "May\n'July'", "head").reward == 1.0
    assert score(gold, "exact_match", "May", "head").reward == 0.0
    assert score(gold, "exact_match", "July, May", "strict").reward == 0.0
    single = score(UID, "exact_match", f"[{UID}]", "head")
    assert single.reward == 1.0 and single.details["parsed"] == [UID]


def test_split_answer() -> None:
    assert split_answer(" 'a' ; b ,, ") == ["a", "b"]
    assert split_answer("[1, null]") == ["1", "None"]
    assert split_answer("[not json, x]") == ["not json", "x"]
    assert split_answer("  ") == ["None"]


def test_single_string_methods_refuse_multi_item_gold() -> None:
    with pytest.raises(ScoringError, match="this gold has 2 items"):
        score(["a", "b"], "exact_match", "a, b", "paper")
    assert score(["a"], "exact_match", "a", "paper").reward == 1.0


def test_llm_extract_uses_the_extractor_after_step_a() -> None:
    calls: list[tuple[str, str | None]] = []

    def extractor(response: str, *, task: str | None) -> list[str]:
        calls.append((response, task))
        return ["CA", "NY"]

    hit = score(
        ["NY", "CA"],
        "exact_match",
        "New York and California",
        "llm_extract",
        extractor=extractor,
        task="best_region_identification",
    )
    assert (
        hit.reward == 1.0 and hit.details["parsed"] == ["CA", "NY"] and hit.details["step"] == "b"
    )
    assert calls == [("New York and California", "best_region_identification")]

    direct = score("NY", "exact_match", '"NY"', "llm_extract", extractor=extractor)
    assert direct.reward == 1.0 and direct.details["step"] == "a" and len(calls) == 1

    miss = score("TX", "exact_match", "Texas?", "llm_extract", extractor=extractor)
    assert miss.reward == 0.0
    with pytest.raises(ScoringError, match="needs an extractor"):
        score("TX", "exact_match", "Texas", "llm_extract")
    with pytest.raises(ScoringError, match="list of strings"):
        score("TX", "exact_match", "Texas", "llm_extract", extractor=lambda r, task: "TX")  # type: ignore[arg-type,return-value]


def test_fuzzy_match_rewards_f1_in_every_method() -> None:
    gold = "reset router then modem"
    for method in METHODS:
        # head_as_is scores a string gold against its first character, as HEAD's evaluator
        # does (tests/unit/scoring/test_head_as_is.py); a list gold's first item as all.
        given = [gold] if method == "head_as_is" else gold
        result = score(given, "fuzzy_match", "Reset the router first.", method)
        assert result.reward == pytest.approx(4 / 7)
        assert result.details["metric"] == "fuzzy_match"
        assert result.details["metrics"]["f1"] == pytest.approx(4 / 7)
    assert score([gold, "ignored"], "fuzzy_match", gold).reward == 1.0
    assert score(gold, "fuzzy_match", "Reset the router first.", "head_as_is").reward == 0.0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("x", "privacy_rejection", "I cannot", "llm_judge"), "needs the judge model"),
        (("x", "exact_match", "x", "rules_judge"), "privacy_rejection instances only"),
        (("x", "semantic_match", "x"), "unknown reward_metric"),
        (("x", "exact_match", "x", "vibes"), "unknown scoring method 'vibes'"),
        (("x", "exact_match", None), "must be text"),
        ((5, "exact_match", "5"), "gold answer must be"),
    ],
)
def test_errors_are_typed(args: tuple, message: str) -> None:
    with pytest.raises(ScoringError, match=message) as info:
        score(*args)
    assert isinstance(info.value, CrmtuiError)
