"""Reading upstream results files of both eras (hand-written fixtures, see tests/fixtures)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmtui.errors import ConfigError
from crmtui.upstream import read_results

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "upstream"
HEAD = FIXTURES / "results_gpt-4o-2024-08-06_react_all.json"
PAPER_TOOLS = FIXTURES / "results_gpt-4o_tool_call_flex_handle_time.json"
PAPER_REACT = FIXTURES / "results_o1-mini_react_transfer_count.json"


def test_head_react_file() -> None:
    parsed = read_results(HEAD)
    assert (parsed.model, parsed.strategy) == ("gpt-4o-2024-08-06", "react")
    first, crashed, kqa = parsed.attempts
    assert first.era == "head" and first.task_id == 80
    assert [s.kind for s in first.steps] == ["query", "query", "invalid", "answer"]
    bad, good, _, answer = first.steps
    assert bad.error_code == "INVALID_FIELD" and bad.rows is None
    assert good.error_code is None and good.rows == 2 and good.thought == "Group by state."
    assert answer.text == "NJ" and first.answer == "NJ"
    assert first.query == "Which state closes cases fastest?"
    assert crashed.error == "Error: 'NoneType' object is not subscriptable"
    assert crashed.end_reason == {"source": "api", "message": "Error", "content": crashed.error}
    assert kqa.steps[0].text.startswith("FIND {return}") and kqa.reward["f1"] == 0.5


def test_paper_tool_call_file() -> None:
    parsed = read_results(PAPER_TOOLS)
    assert parsed.strategy == "tool_call_flex" and parsed.model == "gpt-4o"
    solved = parsed.attempts[0]
    assert solved.era == "paper" and solved.uses_tools
    assert [s.kind for s in solved.steps] == ["tool", "query", "answer"]
    tool, query, answer = solved.steps
    assert tool.text == "get_cases" and tool.arguments == {
        "start_date": "2023-01-01T00:00:00Z",
        "end_date": "2023-04-01T00:00:00Z",
    }
    assert tool.observation.startswith("[{'OwnerId'")
    assert query.text == "SELECT Id FROM User LIMIT 2" and query.rows == 2
    assert answer.text == "005Ws000003wN07IAE"


def test_paper_react_single_user_message() -> None:
    attempt = read_results(PAPER_REACT).attempts[0]
    assert attempt.era == "paper"
    assert [s.kind for s in attempt.steps] == ["query", "answer"]
    assert attempt.steps[0].text.startswith("```sql") and attempt.steps[0].rows == 1
    assert attempt.answer == "005Ws000003wN07IAE"


def test_nested_parent_rows_are_counted(tmp_path: Path) -> None:
    row = {
        "task_id": 1,
        "task_type": "x",
        "gt_answer": "a",
        "reward": 0,
        "agent_info": {},
        "traj": [
            {"role": "system", "content": "s"},
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "<execute>SELECT Account.Name FROM Case</execute>"},
            {
                "role": "user",
                "content": "Salesforce instance output: [{'Account': OrderedDict([('a', 1)])}, "
                "{'Account': OrderedDict([('a', 2)])}]",
            },
        ],
    }
    path = tmp_path / "results.json"
    path.write_text(json.dumps([row, {"no": "id"}]))
    parsed = read_results(path)
    assert parsed.attempts[0].steps[0].rows == 2
    assert parsed.problems == ["row 2: task_id must be an integer, not None"]


@pytest.mark.parametrize("content", ["{}", "not json", ""])
def test_not_a_results_file(tmp_path: Path, content: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(ConfigError):
        read_results(path)
