"""The same scripted model through upstream's NAACL code and ``crmtui run --preset naacl``.

Upstream's paper-era harness (../shared/crmarena/upstream-harness-naacl, skipped when absent)
runs unchanged through ``crmtui upstream run`` against serve-rest on the sample org; crmtui's
own harness runs the same scripts with ``--preset naacl``. Every observation the model is
shown (query results, errors, SOSL, helper tool outputs) must be equal, byte for byte, and
so must every reward and every exception row. Prompts are crmtui's own words and differ.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from crmtui.agent.batch import BatchConfig, run_batch
from crmtui.data.instances import TaskSet
from crmtui.data.loaders import load_tasks
from crmtui.org.sample import open_org_or_sample, sample_tasks_path
from crmtui.upstream import run_upstream
from tests.fakes.openai_server import Reply, text, tool_call
from tests.unit.batch.scripted import RoutingFake
from tests.unit.upstream.test_upstream_run import MODULES, _overlay

MODEL = "gpt-4o-2024-08-06"  # the paper's code accepts only its own model names
NOSLEEP = Path(__file__).resolve().parents[2] / "fakes" / "upstream_nosleep"
FENCE = "```"


def _react(instances: dict[int, Any]) -> dict[Any, list[Reply]]:
    bri, kqa, mta = instances[80], instances[0], instances[10]
    return {
        bri: [
            text("<thought>Closed cases and their state.</thought><execute>SELECT Id, "
                 "Account.ShippingState, CreatedDate, ClosedDate FROM Case WHERE Status = "
                 "'Closed' ORDER BY Id LIMIT 3</execute>"),
            text("<execute>SELECT Id, (SELECT Id, Subject FROM Cases) FROM Contact ORDER BY Id "
                 "LIMIT 2</execute>"),
            text("<execute>SELECT Id, Nme FROM Case</execute>"),
            text("<execute>find {shoes} IN ALL FIELDS RETURNING Product2(Id, Name)</execute>"),
            text(f"<execute>{FENCE}sql\nSELECT COUNT() FROM Case\n{FENCE}</execute>"),
            text(f"<execute>{FENCE}sql\nSELECT COUNT(Id) n FROM Case\n{FENCE}</execute>"),
            text(f"<thought>Done.</thought><submit>{bri.answer}</submit>"),
        ],
        kqa: [
            text("<execute>FIND {straps} IN ALL FIELDS RETURNING Knowledge__kav(Id, Title)"
                 "</execute>"),
            text("<execute>SELECT Id FROM Case WHERE CreatedDate > 2020-01-01</execute>"),
            text("<execute> FIND {straps} RETURNING Knowledge__kav(Id)</execute>"),
            text("<submit>Polyester webbing straps</submit>"),
        ],
        mta: [
            text("I will look at the cases first."),  # invalid: a reminder, then go on
            text("<execute>SELECT CreatedDate, Priority FROM Case WHERE CreatedDate >= "
                 "2020-01-01T00:00:00Z ORDER BY CreatedDate LIMIT 2</execute>"),
            text(f'<submit>"{mta.answer}"</submit>'),  # quoted: wrong under string equality
        ],
    }  # fmt: skip


def _tools(instances: dict[int, Any]) -> dict[Any, list[Reply]]:
    aht, ned, pvi = instances[50], instances[40], instances[70]
    window = {"start_date": "2021-12-01T00:00:00Z", "end_date": "2022-03-01T00:00:00Z"}
    return {
        aht: [
            tool_call("get_period", {"period_name": "Winter", "year": 2021}, call_id="a1"),
            tool_call("get_agent_handled_cases_by_period", window, call_id="a2"),
            tool_call("get_cases", {**window, "statuses": ["Closed"]}, call_id="a3"),
            tool_call("calculate_average_handle_time", {"cases": [
                {"OwnerId": "005A", "CreatedDate": "2021-12-02T10:00:00.000+0000",
                 "ClosedDate": "2021-12-02T12:10:00.000+0000"}]}, call_id="a4"),
            tool_call("get_period", {"period_name": "Winter"}, call_id="a5"),
            tool_call("no_such_tool", {}, call_id="a6"),
            tool_call("submit", {"content": str(aht.answer)}, call_id="a7"),
        ],
        ned: [
            tool_call("get_account_id_by_contact_id", {"contact_id": "003Ws000004aLilIAE"},
                      call_id="n1"),
            tool_call("get_purchase_history", {"account_id": "001Ws000002Mx8iIAC",
                      "purchase_date": "2019-07-21T00:00:00Z",
                      "related_product_ids": ["01tWs000005rmxCIAQ", "01tWs000005rmx8IAA"]},
                      call_id="n2"),
            tool_call("search_products", {"search_term": "jacket"}, call_id="n3"),
            tool_call("get_issues", '{"broken": ', call_id="n4"),  # no text: upstream crashes
        ],
        pvi: [
            Reply(content="Let me see.", tool_calls=[("p1", "get_issues", "{nope")]),
            tool_call("get_issue_counts", {"start_date": "2021-01-01", "end_date": "x",
                      "order_item_ids": ["802Ws000005blhxIAA"]}, call_id="p2"),
            tool_call("submit", {"content": "None"}, call_id="p3"),
        ],
    }  # fmt: skip


def _observations(row: dict[str, Any]) -> list[str]:
    """What the environment showed the model: query outputs and tool results, in order."""
    shown = []
    for message in row.get("traj") or []:
        content, role = message.get("content"), message.get("role")
        prefixed = str(content).startswith("Salesforce instance output: ")
        if role == "tool" or (role == "user" and prefixed):
            shown.append(content)
    # Reminders after an invalid tool call are tool messages with prompt text (our words):
    return [s for s in shown if not str(s).startswith(("Invalid tool call", "Your reply"))]


def _upstream_rows(
    harness: Path,
    out: Path,
    tasks: TaskSet,
    scripts: dict,
    args: list[str],
    sink: list | None = None,
    extractor: Any = None,
):
    with RoutingFake(scripts, extractor) as fake:
        outcome = run_upstream(
            harness,
            org=open_org_or_sample(None),
            tasks=tasks,
            tasks_source="sample",
            out=out,
            args=["--model", MODEL, "--llm_provider", "openai", "--task_category", "all", *args],
            python=sys.executable,
            api_base=fake.base_url,
        )
        if sink is not None:
            sink.extend(fake.requests)
    assert outcome.results, outcome.output_log.read_text()[-3000:]
    return {row["task_id"]: row for row in json.loads(outcome.results[0].read_text())}


def _crmtui_rows(
    out: Path,
    tasks: TaskSet,
    scripts: dict,
    strategy: str,
    preset: str = "naacl",
    sink: list | None = None,
    max_turns: int = 8,
    extractor: Any = None,
    scoring: str | None = None,
):
    with RoutingFake(scripts, extractor) as fake:
        config = BatchConfig(
            scoring=scoring,
            extract_api_base=fake.base_url,
            model=f"openai/{MODEL}",
            strategy=strategy,
            preset=preset,
            max_turns=max_turns,
            api_base=fake.base_url,
            out=out,
            fsync=False,
            idxs=tuple(t.idx for t in tasks),
            client_options={"max_retries": 1, "backoff_base_s": 0.01},
        )
        run_batch(config, tasks=tasks)
        if sink is not None:
            sink.extend(fake.requests)
    (results,) = out.glob("results_*.json")
    return {row["task_id"]: row for row in json.loads(results.read_text())}


@pytest.fixture
def naacl(shared_dir: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest):
    import importlib.util

    harness = shared_dir / "upstream-harness-naacl"
    if not harness.is_dir():
        pytest.skip("../shared/crmarena/upstream-harness-naacl is not present")
    missing = [m for m in (*MODULES, "dateutil") if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"upstream's imports missing from this venv: {', '.join(missing)}")
    extra = [str(_overlay(request.config)), str(NOSLEEP)]
    existing = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(extra + ([existing] if existing else [])))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    return harness


@pytest.mark.parametrize("strategy", ["react", "tool_call"])
def test_same_observations_and_rewards(naacl: Path, tmp_path: Path, strategy: str) -> None:
    everything = {t.idx: t for t in load_tasks(None, sample_tasks=sample_tasks_path)}
    script = _react if strategy == "react" else _tools
    tasks = TaskSet(list(script(everything)), "sample")
    args = ["--agent_strategy", strategy, "--max_turns", "8"]
    theirs = _upstream_rows(naacl, tmp_path / "upstream", tasks, script(everything), args)
    ours = _crmtui_rows(tmp_path / "crmtui", tasks, script(everything), strategy)
    assert sorted(theirs) == sorted(ours) == sorted(t.idx for t in tasks)
    compared = 0
    for idx, row in theirs.items():
        mine = ours[idx]
        assert _observations(mine) == _observations(row), idx
        assert mine["reward"] == row["reward"], idx
        if row["agent_info"].get("source") == "api":  # upstream's exception row
            assert mine["agent_info"] == row["agent_info"], idx
        else:
            assert mine["agent_info"]["end_reason"] == row["agent_info"]["end_reason"], idx
            assert mine["agent_info"]["num_turns"] == row["agent_info"]["num_turns"], idx
        compared += len(_observations(row))
    assert compared >= (10 if strategy == "react" else 9)
