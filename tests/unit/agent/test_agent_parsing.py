"""Reply parsing for the tag strategies and the tool-call strategy."""

from __future__ import annotations

import pytest

from crmtui.agent.parsing import parse_tagged, parse_tool_reply
from tests.unit.agent.agent_helpers import reply


def test_execute_is_extracted_and_stripped() -> None:
    action = parse_tagged(
        "<thought> look up </thought>\n<execute>\n SELECT Id FROM Case \n</execute>"
    )
    assert (action.kind, action.content, action.thought) == (
        "execute",
        "SELECT Id FROM Case",
        "look up",
    )


def test_multiline_query_keeps_inner_newlines() -> None:
    action = parse_tagged("<execute>SELECT Id\nFROM Case\nLIMIT 1</execute>")
    assert action.content == "SELECT Id\nFROM Case\nLIMIT 1"


def test_execute_wins_over_respond_and_first_match_is_used() -> None:
    text = (
        "<respond>42</respond><execute>SELECT A FROM B</execute><execute>SELECT C FROM D</execute>"
    )
    action = parse_tagged(text)
    assert (action.kind, action.content) == ("execute", "SELECT A FROM B")


def test_respond_without_thought_is_valid() -> None:
    action = parse_tagged("<respond> 005Wt000003NIiTIAW, 005Wt000003NIiUIAW </respond>")
    assert action.kind == "respond"
    assert action.content == "005Wt000003NIiTIAW, 005Wt000003NIiUIAW"
    assert action.thought is None


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty reply"),
        (None, "empty reply"),
        ("   \n", "empty reply"),
        ("<thought>hmm</thought>", "no <execute> or <respond> block"),
        ("<execute>   </execute>", "empty <execute> block"),
        ("<respond></respond>", "empty <respond> block"),
        ("<execute>SELECT Id FROM Case", "no <execute> or <respond> block"),
        ("<EXECUTE>SELECT Id FROM Case</EXECUTE>", "no <execute> or <respond> block"),
    ],
)
def test_invalid_replies(text: str | None, reason: str) -> None:
    action = parse_tagged(text)
    assert action.kind == "invalid"
    assert action.content == reason


def test_empty_execute_does_not_fall_through_to_respond() -> None:
    # Upstream checks execute first; an empty execute block makes the reply invalid.
    assert parse_tagged("<execute></execute><respond>1</respond>").kind == "invalid"


def test_tool_reply_first_call_only() -> None:
    r = reply(
        "thinking",
        [
            ("c1", "soql_query", '{"query": "SELECT Id FROM Case"}'),
            ("c2", "respond", '{"content": "x"}'),
        ],
    )
    action = parse_tool_reply(r)
    assert action.kind == "tool"
    assert action.tool_call is not None and action.tool_call.id == "c1"
    assert action.thought == "thinking"


def test_tool_reply_respond() -> None:
    action = parse_tool_reply(reply("", [("c1", "respond", '{"content": " CA "}')]))
    assert (action.kind, action.content) == ("respond", "CA")


@pytest.mark.parametrize(
    ("calls", "content", "needle"),
    [
        ([("c1", "soql_query", "{not json")], "", "not valid JSON"),
        ([("c1", "soql_query", "[1, 2]")], "", "JSON object"),
        ([("c1", "respond", '{"answer": "x"}')], "", "'content'"),
        ([], "", "empty reply"),
        ([], "The answer is CA", "no tool call"),
    ],
)
def test_tool_reply_invalid(calls: list, content: str, needle: str) -> None:
    action = parse_tool_reply(reply(content, calls))
    assert action.kind == "invalid"
    assert needle in action.content
