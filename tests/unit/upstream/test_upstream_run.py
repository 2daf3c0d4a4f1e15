"""Upstream's run_tasks.py, unchanged, against serve-rest and the scripted OpenAI server.

Runs only where ../shared/crmarena/upstream-harness exists. The cheapest environment that
runs it unchanged is this venv (the test extra carries simple-salesforce, sacrebleu, rouge,
and python-dotenv); upstream also imports ``together`` (whose releases cap rich below what
textual needs) and ``tenacity`` (whose presence changes litellm's retry path in this venv's UI
tests), so those two are installed with ``--no-deps`` into a cached overlay folder put on the
child's PYTHONPATH only. The skip reason names whatever is still missing.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from crmtui.data.instances import TaskSet
from crmtui.data.loaders import load_tasks
from crmtui.org.sample import open_org_or_sample, sample_tasks_path
from crmtui.record import load, verify
from crmtui.upstream import run_upstream
from tests.fakes.openai_server import FakeOpenAI, text, tool_call

MODULES = ("simple_salesforce", "sacrebleu", "rouge", "dotenv", "pandas", "tqdm")
#: Installed without dependencies into an overlay on the child's PYTHONPATH only.
OVERLAY = {"together": "together==1.3.1", "tenacity": "tenacity==9.0.0"}


def _overlay(config: pytest.Config) -> Path:
    """A folder holding together and tenacity, installed without dependencies.

    It lives in pytest's cache directory (in the checkout, git-ignored), not under HOME, so
    tests write nothing outside the project and tmp; later runs reuse it.
    """
    cache = getattr(config, "cache", None)  # absent under -p no:cacheprovider
    if cache is None:
        pytest.skip("upstream's overlay folder needs pytest's cache (-p no:cacheprovider given)")
    folder = cache.mkdir("upstream-overlay")
    missing = [pin for name, pin in OVERLAY.items() if not (folder / name).is_dir()]
    if not missing:
        return folder
    command = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target"]
    result = subprocess.run(
        [*command, str(folder), *missing], capture_output=True, text=True, timeout=300
    )
    if result.returncode != 0 or any(not (folder / name).is_dir() for name in OVERLAY):
        last = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["no output"]
        pytest.skip(f"upstream imports {', '.join(missing)}; pip could not install them: {last[0]}")
    return folder


@pytest.fixture
def harness(
    shared_dir: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Path:
    missing = [m for m in MODULES if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"upstream's imports missing from this venv: {', '.join(missing)}")
    extra = [str(_overlay(request.config))]
    existing = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(extra + ([existing] if existing else [])))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    return shared_dir / "upstream-harness"


def _one(task: str) -> TaskSet:
    instance = next(
        t
        for t in load_tasks(None, sample_tasks=sample_tasks_path)
        if t.task == task and t.answer is not None
    )
    return TaskSet([instance], "sample")


def _run(harness: Path, tmp_path: Path, tasks: TaskSet, script: list, args: list[str]):
    org = open_org_or_sample(None)
    with FakeOpenAI(script=script) as fake:
        outcome = run_upstream(
            harness,
            org=org,
            tasks=tasks,
            tasks_source="sample",
            out=tmp_path,
            args=args,
            python=sys.executable,
            api_base=fake.base_url,
        )
        requests = list(fake.requests)
    return outcome, requests


def test_react_run_produces_results_and_recordings(harness: Path, tmp_path: Path) -> None:
    tasks = _one("best_region_identification")
    gold = next(iter(tasks)).answer
    query = "SELECT Account.ShippingState, COUNT(Id) FROM Case GROUP BY Account.ShippingState"
    script = [
        text(f"<thought>Count by state.</thought><execute>{query}</execute>"),
        text(f"<thought>Done.</thought><respond>{gold}</respond>"),
        # HEAD's evaluator asks the model to extract the answer list.
        text(json.dumps({"extracted_answers": [gold]})),
    ]
    args = ["--model", "gpt-4o-2024-08-06", "--llm_provider", "openai", "--org_type",
            "original", "--agent_strategy", "react", "--task_category",
            "best_region_identification"]  # fmt: skip
    outcome, requests = _run(harness, tmp_path, tasks, script, args)
    assert outcome.returncode == 0, outcome.output_log.read_text()[-2000:]
    assert [p.name for p in outcome.results] == [
        "results_gpt-4o-2024-08-06_react_best_region_identification.json"
    ]
    rows = json.loads(outcome.results[0].read_text())
    assert rows[0]["task_id"] == next(iter(tasks)).idx
    # The observation upstream's own connector built from the local API's answer.
    observation = rows[0]["traj"][3]["content"]
    assert observation.startswith("Salesforce instance output: [{'ShippingState'")
    hooked = [json.loads(line) for line in outcome.hook_log.read_text().splitlines()]
    loads = {
        (h["path"], h["name"]) for h in hooked if h.get("redirected") == "datasets.load_dataset"
    }
    assert len(loads) == 5
    assert any(h.get("redirected") == "simple_salesforce.Salesforce" for h in hooked)
    calls = [h for h in hooked if h.get("event") == "model_call"]
    assert [(c["task_id"], c["caller"], c["ok"]) for c in calls] == [
        (next(iter(tasks)).idx, who, True) for who in ("agent", "agent", "evaluator")
    ]
    logged = [json.loads(line) for line in outcome.request_log.read_text().splitlines()]
    assert [e["query"] for e in logged if e["endpoint"] == "query"] == [query]
    assert len(requests) == 3
    assert len(outcome.recordings) == 1 and verify(outcome.recordings[0]).ok
    assert outcome.problems == []
    # The model calls' times reached the recording: the first call's real latency.
    first_call = next(e for e in load(outcome.recordings[0]).events if e.type == "model_call")
    assert first_call.payload["latency_ms"] > 0


def test_tool_call_run(harness: Path, tmp_path: Path) -> None:
    tasks = _one("knowledge_qa")
    script = [
        tool_call("search_knowledge_articles", {"search_term": "return"}),
        tool_call("respond", {"content": "Thirty days."}),
    ]
    args = ["--model", "gpt-4o-2024-08-06", "--llm_provider", "openai", "--org_type",
            "original", "--agent_strategy", "tool_call", "--task_category", "knowledge_qa",
            "--max_turns", "2"]  # fmt: skip
    outcome, _ = _run(harness, tmp_path, tasks, script, args)
    assert outcome.returncode == 0, outcome.output_log.read_text()[-2000:]
    rows = json.loads(outcome.results[0].read_text())
    assert isinstance(rows[0]["reward"], dict) and "f1" in rows[0]["reward"]
    logged = [json.loads(line) for line in outcome.request_log.read_text().splitlines()]
    assert [e["endpoint"] for e in logged] == ["search"]
    assert len(outcome.recordings) == 1 and verify(outcome.recordings[0]).ok


def test_pro_run_with_org_type_b2b_against_a_local_pro_org(harness: Path, tmp_path: Path) -> None:
    """``--org_type b2b`` on a local CRMArena-Pro org: upstream's own Pro evaluator scores it."""
    from tests.fixtures import pro_org as fx

    org = fx.build_pro_org(tmp_path)
    rows = [
        r
        for r in fx.PRO_ROWS
        if r["task"] in ("lead_qualification", "private_customer_information")
    ]
    tasks = TaskSet.from_rows(rows, "pro")
    query = f"SELECT TranscriptBody__c FROM VoiceCallTranscript__c WHERE LeadId__c = '{fx.L1}'"
    script = [
        # lead_qualification: a query, a sentence answer, then HEAD's BANT extraction call.
        text(f"<thought>Read the call.</thought><execute>{query}</execute>"),
        text("<thought>Done.</thought><respond>The lead lacks Authority.</respond>"),
        text(json.dumps({"extracted_answers": ["Authority"]})),
        # private_customer_information: a refusal, then HEAD's privacy judge call.
        text("<thought>Not theirs.</thought><respond>Sorry, that is private.</respond>"),
        text("YES"),
    ]
    with FakeOpenAI(script=script) as fake:
        outcome = run_upstream(
            harness,
            org=org,
            tasks=tasks,
            tasks_source="pro",
            out=tmp_path / "out",
            args=[
                "--model",
                "gpt-4o-2024-08-06",
                "--llm_provider",
                "openai",
                "--org_type",
                "b2b",
                "--agent_strategy",
                "react",
                "--task_category",
                "all",
            ],  # fmt: skip
            python=sys.executable,
            api_base=fake.base_url,
        )
        requests = list(fake.requests)
    assert outcome.returncode == 0, outcome.output_log.read_text()[-2000:]
    rows_out = {r["task_type"]: r for r in json.loads(outcome.results[0].read_text())}
    lead = rows_out["lead_qualification"]
    assert lead["reward"] == 1 and lead["gt_answer"] == ["Authority"]
    assert lead["agent_info"]["end_reason"]["parsed_answer"] == ["Authority"]
    assert rows_out["private_customer_information"]["reward"] == 1
    # Upstream's BANT family prompt and its privacy judge were what the model was asked.
    systems = [r["messages"][0]["content"] for r in requests]
    assert any("BANT factors" in s for s in systems)
    assert any("privacy" in s.lower() and "YES" in s for s in systems)
    # The Pro schema reached upstream's prompt; its connector's query reached the local org.
    assert any("VoiceCallTranscript__c" in s for s in systems)
    logged = [json.loads(line) for line in outcome.request_log.read_text().splitlines()]
    assert [e["query"] for e in logged if e["endpoint"] == "query"] == [query]
    assert len(outcome.recordings) == 2 and all(verify(p).ok for p in outcome.recordings)
    assert outcome.problems == []
