"""``--preset upstream`` rows, field by field, against hand-written upstream-shaped fixtures.

Each case in ``fixtures/upstream_rows.json`` scripts a model over real HTTP, runs it through
:func:`run_batch` with the upstream preset, and compares every field of the row (``traj`` by
its roles; crmtui's own ``crmtui`` key is checked separately).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crmtui.agent.batch import run_batch
from tests.fakes.openai_server import Reply, error, text, tool_call

CASES = json.loads(
    (Path(__file__).parent / "fixtures" / "upstream_rows.json").read_text(encoding="utf-8")
)["cases"]


def _fill(value: Any, inst: Any) -> Any:
    """Replace the fixture's placeholders with the instance's values."""
    if isinstance(value, str):
        if value == "$idx":
            return inst.idx
        if value == "$task":
            return inst.task
        if value == "$gold" and inst.answer is None:
            return None
        return value.replace("$gold", "None" if inst.answer is None else str(inst.answer))
    if isinstance(value, dict):
        return {k: _fill(v, inst) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, inst) for v in value]
    return value


def _reply(item: Any, inst: Any, index: int) -> Reply:
    usage = {"prompt_tokens": 100, "completion_tokens": 10}
    if isinstance(item, str):
        return text(_fill(item, inst), **usage)
    if "status" in item:
        return error(item["status"], item["message"])
    return tool_call(item["tool"], _fill(item["arguments"], inst), call_id=f"c{index}", **usage)


def _match(expected: Any, actual: Any, where: str) -> None:
    if isinstance(expected, str) and expected.startswith("$startswith:"):
        prefix = expected[len("$startswith:") :]
        assert isinstance(actual, str) and actual.startswith(prefix), f"{where}: {actual!r}"
        return
    if expected == "$number":
        assert isinstance(actual, int | float) and not isinstance(actual, bool), where
        return
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: {actual!r}"
        assert list(actual) == list(expected), f"{where}: keys {list(actual)}"
        for key in expected:
            _match(expected[key], actual[key], f"{where}.{key}")
        return
    if isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), f"{where}: {actual!r}"
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            _match(e, a, f"{where}[{i}]")
        return
    assert type(actual) is type(expected) and actual == expected, f"{where}: {actual!r}"


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_upstream_preset_rows_match_the_fixture(
    case: dict[str, Any], routing, make_config, tasks, org
) -> None:
    inst = next(i for i in tasks if i.task == case["task"] and i.answer is not None)
    replies = [_reply(item, inst, n) for n, item in enumerate(case["script"])]
    server = routing({inst: replies})
    config = make_config(
        server,
        idxs=(inst.idx,),
        preset="upstream",
        strategy=case["strategy"],
        max_turns=case.get("max_turns", 20),
        max_initial_errors=0,
        client_options={"max_retries": 0},
    )

    report = run_batch(config, org=org, tasks=tasks)

    (row,) = json.loads(report.results_path.read_text(encoding="utf-8"))
    expected = _fill(case["row"], inst)
    assert list(row) == [*expected, "traj", "crmtui"]
    for key, value in expected.items():
        _match(value, row[key], key)
    assert [m["role"] for m in row["traj"]] == case["traj_roles"]
    facts = row["crmtui"]
    assert facts["settings"]["preset"] == "upstream"
    assert facts["steps"] == len([r for r in replies if r.status == 200])
    expected_scoring = "toolenv" if case["strategy"] == "tool_call" else "paper"
    assert facts["settings"]["scoring"] == expected_scoring


def test_the_upstream_preset_resolves_every_setting(make_config, routing) -> None:
    react = make_config(routing({}), preset="upstream").resolved
    assert (react.date_literals, react.scoring, react.observation_chars) == (
        "wallclock",
        "paper",
        None,
    )
    assert (react.max_tokens, react.temperature, react.toolset) == (2000, 0.0, None)
    tools = make_config(routing({}), preset="upstream", strategy="tool_call").resolved
    assert (tools.toolset, tools.scoring, tools.max_tokens) == ("upstream", "toolenv", 3500)
    reasoning = make_config(routing({}), preset="upstream", model="openai/o3-mini").resolved
    assert (reasoning.max_tokens, reasoning.temperature) == (50000, None)
    crmtui = make_config(routing({}), strategy="tool_call").resolved
    assert (crmtui.preset, crmtui.toolset, crmtui.scoring, crmtui.date_literals) == (
        "crmtui",
        "query",
        "strict",
        "instance",
    )
    assert crmtui.observation_chars == 40000 and crmtui.max_tokens == 3500
    overridden = make_config(routing({}), preset="upstream", scoring="strict").resolved
    # An explicit --scoring scores every row, CRMArena-Pro's list gold included.
    assert overridden.scoring == "strict" and overridden.list_scoring == "strict"
    assert overridden.overrides == ("scoring", "list_scoring")
