"""--observations naacl|head: upstream's reply parsing and the points where its agent fails."""

from __future__ import annotations

import pytest

from crmtui.agent.presets import resolve
from crmtui.agent.replies import ModelReply, parse_tool_call
from crmtui.agent.settings import AgentSettings
from crmtui.agent.strategies import make_strategy
from crmtui.errors import ConfigError


def reply(content: str | None = "", *calls: tuple[str, str]) -> ModelReply:
    """A reply; ``None`` content is the provider's ``null`` text."""
    tool_calls = [parse_tool_call(f"c{i}", name, args) for i, (name, args) in enumerate(calls)]
    return ModelReply(
        content or "", tool_calls, 1, 1, None, 1.0, "stop", content_null=content is None
    )


def test_presets_choose_whose_observations() -> None:
    for preset, expected in [("crmtui", "crmtui"), ("naacl", "naacl"), ("head", "head"),
                             ("upstream", "head")]:  # fmt: skip
        resolved = resolve(AgentSettings(model="openai/x", strategy="react", preset=preset))
        assert resolved.observations == expected
        assert resolved.to_json()["observations"] == expected
    given = AgentSettings(model="openai/x", preset="crmtui", observations="naacl")
    assert given.resolved.observations == "naacl" and "observations" in given.resolved.overrides
    with pytest.raises(ConfigError, match="--observations"):
        resolve(AgentSettings(model="openai/x", observations="paper"))


def test_naacl_answers_with_submit_in_prompt_parser_and_tools() -> None:
    react = make_strategy("react", observations="naacl")
    assert "<submit>" in react._instructions and "<respond>" not in react._instructions
    assert react.parse(reply("<submit> MI </submit>")).content == "MI"
    assert react.parse(reply("<respond>MI</respond>")).kind == "invalid"
    # An empty <execute> does not hide the answer after it (upstream strips and moves on).
    assert react.parse(reply("<execute> </execute><submit>MI</submit>")).kind == "respond"
    tools = make_strategy("tool_call", toolset="upstream", observations="naacl").tools or []
    names = {t["function"]["name"] for t in tools}
    assert "submit" in names and "respond" not in names
    head = make_strategy("tool_call", toolset="upstream", observations="head").tools or []
    assert "respond" in {t["function"]["name"] for t in head}


def test_where_upstream_crashes_and_where_head_answers_instead() -> None:
    naacl = make_strategy("tool_call", toolset="upstream", observations="naacl")
    head = make_strategy("tool_call", toolset="upstream", observations="head")
    ours = make_strategy("tool_call", toolset="upstream")
    bad_json = reply(None, ("get_issues", '{"x": '))
    for strategy in (naacl, head):
        action = strategy.parse(bad_json)
        assert action.kind == "invalid"
        assert strategy.upstream_crash(bad_json, action) == (
            "'NoneType' object has no attribute 'strip'"
        )
        # An empty text is no null: upstream reminds and goes on.
        empty = reply("", ("get_issues", '{"x": '))
        assert strategy.upstream_crash(empty, strategy.parse(empty)) is None
    with_text = reply("thinking", ("get_issues", "{nope"))
    assert naacl.upstream_crash(with_text, naacl.parse(with_text)) is None
    assert ours.upstream_crash(bad_json, ours.parse(bad_json)) is None
    no_content = reply("", ("submit", "{}"))
    assert naacl.upstream_crash(no_content, naacl.parse(no_content)) == "'content'"
    answer = reply("", ("respond", "{}"))
    assert head.upstream_crash(answer, head.parse(answer)) is None
    assert head.respond_error(answer, head.parse(answer)) == "Error: 'content'"
    listed = reply("", ("respond", "[1]"))
    assert head.respond_error(listed, head.parse(listed)) == (
        "Error: list indices must be integers or slices, not str"
    )
