"""Settings resolved against a preset: defaults per strategy and model family, bad values."""

from __future__ import annotations

import datetime as dt

import pytest

from crmtui.agent.families import default_max_tokens, default_temperature
from crmtui.agent.presets import today_for
from crmtui.agent.settings import AgentSettings
from crmtui.errors import ConfigError


@pytest.mark.parametrize(
    ("model", "strategy", "tokens", "temperature"),
    [
        ("openai/gpt-4o", "react", 2000, 0.0),
        ("openai/gpt-4o", "act", 2000, 0.0),
        ("openai/gpt-4o", "tool_call", 3500, 0.0),
        ("o1-2024-12-17", "tool_call", 50000, None),
        ("openai/o3-mini-2025-01-31", "react", 50000, None),
        ("together_ai/deepseek-ai/DeepSeek-R1", "react", 50000, None),
        ("vertex_ai/gemini-2.5-pro-preview-03-25", "react", 50000, 0.0),
        ("gemini/gemini-2.5-flash", "tool_call", 50000, 0.0),
    ],
)
def test_upstreams_budget_and_temperature_table(
    model: str, strategy: str, tokens: int, temperature: float | None
) -> None:
    assert default_max_tokens(model, strategy) == tokens
    assert default_temperature(model) == temperature


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"date_literals": "yesterday"}, "--date-literals must be instance, wallclock"),
        ({"date_literals": "2024-02-30"}, "not a real date"),
        ({"scoring": "fuzzy"}, "unknown --scoring"),
        ({"llm_extract": True, "scoring": "paper"}, "--llm-extract is a scoring method"),
        ({"preset": "paper2024"}, "unknown --preset"),
        ({"max_tokens": 0}, "--max-tokens must be at least 1"),
        ({"max_observation": -1}, "--max-observation must be >= 0"),
        ({"temperature": float("nan")}, "--temperature must be between 0 and 2"),
        ({"timeout": float("inf")}, "--timeout must be a positive number"),
        ({"strategy": "plan"}, "unknown strategy"),
    ],
)
def test_bad_settings_are_one_line_config_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        AgentSettings(model="openai/x", **kwargs).check()


def test_toolset_only_matters_for_tool_call() -> None:
    react = AgentSettings(model="openai/x", toolset="upstream").resolved
    assert react.toolset is None and react.overrides == ()
    tools = AgentSettings(model="openai/x", strategy="tool_call", toolset="upstream").resolved
    assert tools.toolset == "upstream" and tools.overrides == ("toolset",)
    assert tools.prompts != AgentSettings(model="openai/x", strategy="tool_call").resolved.prompts


def test_today_for_each_mode() -> None:
    day = dt.date(2023, 4, 20)
    assert today_for("instance", day) == day
    assert today_for("wallclock", day, dt.date(2031, 1, 1)) == dt.date(2031, 1, 1)
    assert today_for("2024-05-26", day) == dt.date(2024, 5, 26)


@pytest.mark.parametrize(
    ("kwargs", "scoring", "list_scoring", "judge", "extract_model"),
    [
        ({}, "strict", "head_rules", "rules", None),
        ({"preset": "upstream"}, "paper", "llm_extract", "gpt-4o-2024-08-06",
         "gpt-4o-2024-08-06"),
        ({"scoring": "strict", "preset": "upstream"}, "strict", "strict", "gpt-4o-2024-08-06",
         None),
        ({"extract_model": "openai/x"}, "llm_extract", "llm_extract", "rules", "openai/x"),
        ({"judge_model": "openai/j"}, "strict", "head_rules", "openai/j", None),
        ({"judge_model": "rules", "preset": "upstream"}, "paper", "llm_extract", "rules",
         "gpt-4o-2024-08-06"),
    ],
)  # fmt: skip
def test_pro_scoring_settings_resolve_per_preset(
    kwargs: dict, scoring: str, list_scoring: str, judge: str, extract_model: str | None
) -> None:
    resolved = AgentSettings(model="openai/gpt-4o", **kwargs).resolved
    assert (resolved.scoring, resolved.list_scoring, resolved.judge) == (
        scoring, list_scoring, judge,
    )  # fmt: skip
    assert resolved.extract_model == extract_model
    values = resolved.to_json()
    assert values["list_scoring"] == list_scoring and values["judge"] == judge
    # Changing any of them changes what a resumed run must match.
    assert {"list_scoring", "judge", "privacy_aware"} <= set(resolved.RESUME_KEYS)


def test_scoring_models_are_checked_only_for_the_rows_that_need_them(monkeypatch) -> None:
    from crmtui.agent.preflight import check_scoring_models

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)

    class Row:
        def __init__(self, answer: object, metric: str) -> None:
            self.answer, self.reward_metric = answer, metric

    settings = AgentSettings(model="anthropic/claude", preset="upstream")
    original = [Row("005Wt000003NDqDIAW", "exact_match")]
    check_scoring_models(settings, original)  # no Pro row: no key asked for
    with pytest.raises(ConfigError, match="--extract-model"):
        check_scoring_models(settings, [Row(["005Wt000003NDqDIAW"], "exact_match")])
    with pytest.raises(ConfigError, match="--judge-model"):
        check_scoring_models(settings, [Row([None], "privacy_rejection")])
    check_scoring_models(
        AgentSettings(model="anthropic/claude"), [Row([None], "privacy_rejection")]
    )
