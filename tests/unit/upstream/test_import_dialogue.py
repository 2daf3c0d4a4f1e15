"""Upstream HEAD's interactive rows import as dialogues that verify, single-turn rows as before.

The rows are written here the way ``run_tasks.py --interactive`` writes them (the user's
opening first, each ``<respond>`` followed by the user's reply, the reply that ended it kept
only in the end reason); every way a conversation ends is covered: accepted (``###STOP###``,
scored), the limit's one more message answered (``Respond action``), the limit after a query,
and the agent's own turns running out mid-conversation.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crmtui.record import load, verify
from crmtui.review.report import report_folder
from crmtui.upstream import import_results

SYSTEM = {"role": "system", "content": "(agent prompt)"}
OUT = "Salesforce instance output: "


def _say(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def _act(text: str) -> dict[str, str]:
    return {"role": "assistant", "content": text}


def _row(idx: int, traj: list[dict[str, Any]], reward: int, reason: dict, turns: list) -> dict:
    info = {"end_reason": reason, "usage": {}, "num_turns": turns}
    return {"task_id": idx, "task_type": "monthly_trend_analysis", "gt_answer": ["April"],
            "reward": reward, "agent_info": info, "traj": [SYSTEM, *traj]}  # fmt: skip


ROWS = [
    _row(1, [_say("Hi, a month question."), _act("<respond>Which period?</respond>"),
             _say("Last six months."), _act("<execute>SELECT Id FROM Case</execute>"),
             _say(OUT + "[]"), _act("<respond>April</respond>")], 1,
         {"source": "agent", "message": "Submit action", "content": "April",
          "parsed_answer": ["April"]}, [2, 2]),
    _row(2, [_say("Hello."), _act("<respond>A?</respond>"), _say("No."),
             _act("<respond>B?</respond>"), _say("No."), _act("<respond>C?</respond>")], 0,
         {"source": "user", "message": "Respond action", "content": "Still no."}, [3, 1]),
    _row(3, [_say("Hello."), _act("<respond>A?</respond>"), _say("No."),
             _act("<respond>B?</respond>"), _say("No."),
             _act("<execute>SELECT Id FROM Case</execute>")], 0,
         {"source": "user", "message": "Max user turns reached",
          "content": "SELECT Id FROM Case"}, [2, 2]),
    _row(4, [_say("Hello."), _act("<respond>Which one?</respond>"), _say("The big one."),
             _act("<execute>SELECT Id FROM Case</execute>"), _say(OUT + "[]")], 0,
         {"source": "agent", "message": "Max turns reached", "content": "x"}, [1, 2]),
]  # fmt: skip


@pytest.fixture
def results(tmp_path: Path) -> Path:
    path = tmp_path / "results_gpt-4o-2024-08-06_react_all.json"
    path.write_text(json.dumps(ROWS), encoding="utf-8")
    return path


def _said(path: Path) -> list[tuple[str, str, bool]]:
    return [
        (e.type, e.payload["text"], bool(e.payload.get("stop")))
        for e in load(path).events
        if e.type in ("user_message", "agent_message")
    ]


@pytest.mark.parametrize("told", [None, {"interactive": True, "max_user_turns": 2}])
def test_interactive_rows_become_dialogues_that_verify(
    results: Path, tmp_path: Path, told: Any
) -> None:
    report = import_results(results, tmp_path / "rec", dialogue=told)
    assert len(report.written) == 4 and not report.problems
    by_idx = {load(p).header["instance"]["idx"]: p for p in report.written}
    for path in report.written:
        assert verify(path).ok, verify(path).problem
        header = load(path).header
        assert header["dialogue"]["user"]["id"] == "gpt-4o-2024-08-06"
        assert header["dialogue"]["one_more_action"] is True
    assert _said(by_idx[1]) == [
        ("user_message", "Hi, a month question.", False),
        ("agent_message", "Which period?", False),
        ("user_message", "Last six months.", False),
        ("agent_message", "April", False),
        ("user_message", "###STOP###", True),
    ]
    assert load(by_idx[1]).submit.payload["reward"] == 1
    assert _said(by_idx[2])[-2:] == [
        ("agent_message", "C?", False),
        ("user_message", "Still no.", False),
    ]
    assert _said(by_idx[3])[-1] == ("user_message", "No.", False)
    for idx in (2, 3, 4):
        assert load(by_idx[idx]).submit is None  # never accepted: nothing scored
    kinds = report_folder(tmp_path / "rec").dialogue_kinds
    assert [(k.dialogues, k.answered, k.success) for k in kinds] == [(4, 1, 0.25)]


def test_single_turn_rows_stay_single_turn(results: Path, tmp_path: Path) -> None:
    report = import_results(results, tmp_path / "rec", dialogue={"interactive": False})
    for path in report.written:
        assert "dialogue" not in load(path).header and verify(path).ok


def test_import_upstream_takes_the_runs_limit(results: Path, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from crmtui.cli import cli

    out = tmp_path / "rec"
    argv = ["import-upstream", str(results), "--out", str(out), "--max-user-turns", "2"]
    done = CliRunner().invoke(cli, argv)
    assert done.exit_code == 0, done.output
    limits = {load(p).header["dialogue"]["max_user_turns"] for p in out.rglob("*.jsonl")}
    assert limits == {2}
