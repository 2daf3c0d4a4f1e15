"""Prompt assembly: instructions, schema, task context, aided mode, single-message models."""

from __future__ import annotations

import pytest

from crmtui.agent.client import default_max_tokens, uses_single_user_message
from crmtui.agent.prompts import OBSERVATION_PREFIX
from crmtui.agent.strategies import make_strategy
from crmtui.data.schema import builtin_schema
from crmtui.errors import ConfigError
from tests.unit.agent.agent_helpers import Inst, Meta

SCHEMA = builtin_schema().render_prompt_text()


@pytest.mark.parametrize("name", ["react", "act", "tool_call"])
def test_system_prompt_sections_in_order(name: str) -> None:
    strategy = make_strategy(name)
    messages = strategy.initial_messages(Inst(), SCHEMA, aided=False)
    assert [m["role"] for m in messages] == ["system", "user"]
    system = messages[0]["content"]
    assert messages[1]["content"] == "Which state has the fastest case closure?"
    schema_at = system.index("# Salesforce instance description\n" + SCHEMA)
    context_at = system.index("# Additional task context\n- Today's date: 2024-05-26")
    assert 0 < schema_at < context_at
    assert "Domain Details" not in system
    assert system == system.strip()


def test_aided_mode_adds_optional_context() -> None:
    system = make_strategy("react").system_prompt(Inst(), SCHEMA, aided=True)
    assert system.endswith("- Today's date: 2024-05-26\n# Domain Details\nQ1 is Jan-Mar.")


def test_no_required_context_means_no_context_heading() -> None:
    inst = Inst(metadata=Meta(required="", optional="# Domain Details"))
    system = make_strategy("react").system_prompt(inst, SCHEMA, aided=False)
    assert "# Additional task context" not in system
    assert system.endswith(SCHEMA.splitlines()[-1])


def test_react_prompt_asks_for_thought_and_one_action_act_does_not() -> None:
    react = make_strategy("react").system_prompt(Inst(), SCHEMA, aided=False)
    act = make_strategy("act").system_prompt(Inst(), SCHEMA, aided=False)
    for tag in ("<execute>", "<respond>"):
        assert tag in react and tag in act
    assert "<thought>" in react and "<thought>" not in act
    assert "comma-separated" in react and "None" in react
    assert "FIND {Joe Smith} IN NAME FIELDS" in react  # braces survive formatting
    assert OBSERVATION_PREFIX in react


def test_upstream_toolset_prompt_has_no_schema() -> None:
    strategy = make_strategy("tool_call", toolset="upstream")
    system = strategy.system_prompt(Inst(), SCHEMA, aided=False)
    assert "# Salesforce instance description" not in system
    assert "# Additional task context" in system
    assert strategy.tools is not None and len(strategy.tools) == 25
    names = {t["function"]["name"] for t in strategy.tools}
    assert {"respond", "get_period", "get_cases", "search_knowledge_articles"} <= names


def test_query_toolset_tools() -> None:
    tools = make_strategy("tool_call").tools
    assert [t["function"]["name"] for t in tools or []] == ["soql_query", "sosl_search", "respond"]
    assert make_strategy("react").tools is None


def test_single_user_message_variant() -> None:
    strategy = make_strategy("react", single_user_message=True)
    messages = strategy.initial_messages(Inst(), SCHEMA, aided=True)
    assert len(messages) == 1 and messages[0]["role"] == "user"
    content = messages[0]["content"]
    system = strategy.system_prompt(Inst(), SCHEMA, aided=True)
    assert content == system + "\n\nWhich state has the fastest case closure?"


@pytest.mark.parametrize(
    ("model", "single", "budget"),
    [
        ("openai/o1-2024-12-17", True, 50_000),
        ("o1-mini", True, 50_000),
        ("openai/o3-mini", True, 50_000),
        ("together_ai/deepseek-ai/DeepSeek-R1", True, 50_000),
        ("vertex_ai/gemini-2.5-flash-preview-04-17", True, 50_000),
        ("vertex_ai/gemini-2.5-pro-preview-03-25", False, 50_000),
        ("openai/gpt-4o-2024-08-06", False, 2_000),
        ("anthropic/claude-3-5-sonnet-20240620", False, 2_000),
    ],
)
def test_model_families(model: str, single: bool, budget: int) -> None:
    assert uses_single_user_message(model) is single
    assert default_max_tokens(model) == budget


def test_unknown_strategy_and_toolset_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="unknown strategy 'plan'"):
        make_strategy("plan")
    with pytest.raises(ConfigError, match="unknown toolset 'all'"):
        make_strategy("tool_call", toolset="all")


def test_model_name_picks_the_prompt_layout() -> None:
    assert make_strategy("react", model="openai/o1-2024-12-17").single_user_message
    assert not make_strategy("react", model="openai/gpt-4o").single_user_message
    assert not make_strategy("act", model="o1-mini", single_user_message=False).single_user_message
    assert not make_strategy("tool_call").single_user_message
