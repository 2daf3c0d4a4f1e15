"""Upstream results as recordings: verified, scored both ways, timed from the request log."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from crmtui.cli import main
from crmtui.org import Org
from crmtui.org.sample import sample_tasks_path
from crmtui.record import load
from crmtui.upstream import import_results
from crmtui.upstream.importer import LIVE_ORG_NAME

from .test_results import HEAD, PAPER_REACT, PAPER_TOOLS

REPO = Path(__file__).resolve().parents[3]


def events(path: Path) -> list[tuple[str, dict]]:
    return [(e.type, e.payload) for e in load(path).events]


def test_head_file_against_a_live_org(tmp_path: Path) -> None:
    report = import_results(HEAD, tmp_path)
    assert len(report.written) == 3 and report.problems == []
    first = load(report.written[0])
    assert first.header["actor"] == {
        "kind": "model",
        "id": "gpt-4o-2024-08-06",
        "strategy": "upstream-react",
    }
    assert first.header["org"] == {"path": None, "digest": None, "name": LIVE_ORG_NAME}
    assert first.header["instance"]["idx"] == 80
    kinds = [e.type for e in first.events]
    assert kinds == [
        "model_call", "thought", "run_query",
        "model_call", "thought", "run_query",
        "model_call",
        "model_call", "thought", "answer_edit", "submit", "end",
    ]  # fmt: skip
    queries = [e.payload for e in first.events if e.type == "run_query"]
    assert queries[0]["error_code"] == "INVALID_FIELD" and queries[0]["rows"] is None
    assert queries[1]["rows"] == 2 and queries[1]["observation"].startswith("[{'ShippingState'")
    calls = [e.payload for e in first.events if e.type == "model_call"]
    assert [c["prompt_tokens"] for c in calls] == [1500, 1620, 1700, 0]
    submit = next(e.payload for e in first.events if e.type == "submit")
    # HEAD's evaluator compared the string gold as a list of characters: upstream scored 0;
    # crmtui's deterministic HEAD rule scores the same answer 1.
    assert submit["reward"] == 0.0 and submit["scoring"] == "upstream/head"
    assert submit["details"]["crmtui"] == {"method": "head", "reward": 1.0}
    assert submit["details"]["upstream_reward"] == 0
    assert first.events[-1].payload["end_reason"]["parsed_answer"] == ["NJ"]

    crashed = load(report.written[1])
    assert [e.type for e in crashed.events][-1] == "end"
    end = crashed.events[-1].payload
    assert end["end_reason"]["message"] == "Harness error" and end["end_reason"]["upstream"]
    assert end["end_reason"]["content"].startswith("Error: ") and "reward" not in end
    kqa = next(e.payload for e in load(report.written[2]).events if e.type == "submit")
    assert kqa["reward"] == 0.5 and kqa["details"]["upstream_reward"]["f1"] == 0.5
    assert load(report.written[2]).header["instance"]["reward_metric"] == "fuzzy_match"
    sosl = next(e.payload for e in load(report.written[2]).events if e.type == "run_query")
    assert sosl["kind"] == "sosl"


def test_paper_files(tmp_path: Path) -> None:
    report = import_results(PAPER_TOOLS, tmp_path)
    assert len(report.written) == 2
    solved, wrong = (load(p) for p in report.written)
    assert solved.header["actor"]["strategy"] == "upstream-tool_call_flex"
    tool, query = [e.payload for e in solved.events if e.type == "run_query"]
    assert tool["kind"] == "tool" and tool["tool"] == "get_cases"
    assert tool["text"].startswith('get_cases({"end_date": "2023-04-01T00:00:00Z"')
    assert query["kind"] == "soql" and query["rows"] == 2
    submit = next(e.payload for e in solved.events if e.type == "submit")
    # ToolEnv scored it (string equality), whatever the era.
    assert submit["scoring"] == "upstream/toolenv" and submit["reward"] == 1.0
    assert submit["details"]["crmtui"] == {"method": "toolenv", "reward": 1.0}
    # A wrong answer: upstream recorded 0 and crmtui's paper rule agrees.
    wrong_submit = next(e.payload for e in wrong.events if e.type == "submit")
    assert wrong_submit["reward"] == 0.0 and wrong_submit["details"]["crmtui"]["reward"] == 0.0

    react = load(import_results(PAPER_REACT, tmp_path / "react").written[0])
    assert react.header["actor"]["id"] == "o1-mini"
    assert next(e.payload for e in react.events if e.type == "submit")["scoring"] == (
        "upstream/paper"
    )


def test_reimport_writes_nothing_twice(tmp_path: Path) -> None:
    first = import_results(PAPER_REACT, tmp_path)
    again = import_results(PAPER_REACT, tmp_path)
    assert len(first.written) == 1 and again.written == [] and again.skipped == first.written


def test_local_run_with_org_tasks_and_request_log(tmp_path: Path, sample_org: Org) -> None:
    from crmtui.data.loaders import load_tasks

    tasks = load_tasks(None, sample_tasks=sample_tasks_path)
    log = tmp_path / "requests.jsonl"
    grouped = "SELECT Account.ShippingState, COUNT(Id) FROM Case GROUP BY Account.ShippingState"
    entries = [
        {"t": "2026-01-02T10:00:01.000Z", "endpoint": "query", "query": "SELECT Nope FROM Case",
         "status": 400, "ms": 1.5},
        {"t": "2026-01-02T10:00:05.250Z", "endpoint": "query",
         "query": grouped,
         "status": 200, "ms": 3.25},
    ]  # fmt: skip
    log.write_text("\n".join(json.dumps(e) for e in entries) + "\n")
    report = import_results(
        HEAD, tmp_path / "rec", org=sample_org, tasks=tasks, tasks_source="sample", request_log=log
    )
    first = load(report.written[0])
    assert first.header["org"]["digest"] == sample_org.digest
    assert first.header["instance"]["query"] == tasks.get(80).query
    assert first.header["started_at"] == "2026-01-02T10:00:01.000Z"
    runs = [e for e in first.events if e.type == "run_query"]
    assert [e.t for e in runs] == ["2026-01-02T10:00:01.000Z", "2026-01-02T10:00:05.250Z"]
    assert [e.payload["ms"] for e in runs] == [1.5, 3.25]
    assert first.events[-1].ms == 4250


def test_model_log_puts_model_calls_on_the_time_line(tmp_path: Path, sample_org: Org) -> None:
    """Model calls bracket the queries: active time covers the model's thinking too."""
    from crmtui.data.loaders import load_tasks

    tasks = load_tasks(None, sample_tasks=sample_tasks_path)
    grouped = "SELECT Account.ShippingState, COUNT(Id) FROM Case GROUP BY Account.ShippingState"
    requests_log = tmp_path / "requests.jsonl"
    entries = [
        {"t": "2026-01-02T10:00:03.000Z", "endpoint": "query", "query": "SELECT Nope FROM Case",
         "status": 400, "ms": 1.5},
        {"t": "2026-01-02T10:00:05.250Z", "endpoint": "query", "query": grouped, "status": 200,
         "ms": 3.25},
    ]  # fmt: skip
    requests_log.write_text("\n".join(json.dumps(e) for e in entries) + "\n")

    def call(task: int, caller: str, start: str, end: str, ok: bool = True) -> dict:
        day = "2026-01-02T10:00:"
        return {"event": "model_call", "task_id": task, "caller": caller, "ok": ok,
                "start": f"{day}{start}Z", "end": f"{day}{end}Z"}  # fmt: skip

    hook = tmp_path / "hook.jsonl"
    lines = [
        {"redirected": "datasets.load_dataset", "path": "Salesforce/CRMArena"},
        call(80, "agent", "00.500", "01.000", ok=False),  # a failed try, retried: not a step
        call(80, "agent", "01.000", "02.900"),
        call(80, "agent", "03.100", "05.000"),
        call(80, "agent", "05.400", "06.000"),
        call(80, "agent", "06.000", "07.500"),
        call(80, "evaluator", "07.600", "08.000"),
        call(3, "agent", "09.000", "09.500"),  # two calls logged for a one-step attempt
        call(3, "agent", "09.600", "10.000"),
    ]
    hook.write_text("\n".join(json.dumps(e) for e in lines) + "\n")
    report = import_results(
        HEAD, tmp_path / "rec", org=sample_org, tasks=tasks, request_log=requests_log,
        model_log=hook,
    )  # fmt: skip
    first = load(report.written[0])
    assert first.header["started_at"] == "2026-01-02T10:00:01.000Z"  # first call sent
    stamped = [(e.type, e.t[17:23]) for e in first.events if e.type in ("model_call", "run_query")]
    assert stamped == [
        ("model_call", "02.900"), ("run_query", "03.000"),
        ("model_call", "05.000"), ("run_query", "05.250"),
        ("model_call", "06.000"), ("model_call", "07.500"),
    ]  # fmt: skip
    calls = [e.payload["latency_ms"] for e in first.events if e.type == "model_call"]
    assert calls == [1900, 1900, 600, 1500]
    submit = next(e for e in first.events if e.type == "submit")
    assert submit.t.endswith("08.000Z") and first.events[-1].ms == 7000  # evaluator's end
    # Task 3's calls do not match its one step: its times fall back to the previous end.
    second = load(report.written[1])
    assert {e.payload.get("latency_ms", 0) for e in second.events} == {0}
    assert second.header["started_at"] == "2026-01-02T10:00:08.000Z"


@pytest.fixture
def sample_org() -> Org:
    from crmtui.org.sample import open_org_or_sample

    return open_org_or_sample(None)


def test_imported_runs_sit_beside_humans_in_report_and_compare_by_instance(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "recordings"
    shutil.copytree(REPO / "recordings", folder)
    assert main(["import-upstream", str(HEAD), "--out", str(folder)]) is None
    capsys.readouterr()
    main(["report", str(folder), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    text = json.dumps(report)
    assert "upstream-react" in text and "example-annotator" in text
    # The imported idx 80 ("Which state closes cases fastest?", a live org's) is another
    # instance than the sample's idx 80: compare names both and compares neither blindly.
    with pytest.raises(SystemExit):
        main(["compare", "--idx", "80", str(folder), "--format", "json"])
    err = capsys.readouterr().err
    assert "2 different instances" in err and "live Salesforce org" in err and "--org" in err
    main(["compare", "--idx", "80", str(folder), "--org", "sample", "--format", "json"])
    text = json.dumps(json.loads(capsys.readouterr().out))
    assert "example-annotator" in text and "upstream-react" not in text


def test_tasks_without_org_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --tasks alone used to raise UnboundLocalError (the sample provider was imported
    # only with --org); a missing task file is one Error: line.
    assert main(["import-upstream", str(HEAD), "--out", str(tmp_path), "--tasks", "sample"]) is None
    assert "Imported 3 recording(s)" in capsys.readouterr().out
    with pytest.raises(SystemExit) as info:
        main(["import-upstream", str(HEAD), "--out", str(tmp_path), "--tasks", "/nope.json"])
    err = capsys.readouterr().err
    assert info.value.code != 0 and err.startswith("Error: ") and "Traceback" not in err


def test_upstream_exception_rows_are_harness_errors_in_the_report(tmp_path: Path) -> None:
    """A row upstream wrote after an exception (here HEAD's evaluator on a None gold, after
    the agent answered) is a harness error in ``report``, never a wrong answer."""
    from crmtui.review.report import report_folder

    traj = [
        {"role": "system", "content": "You are ..."},
        {"role": "user", "content": "Which state closes fastest?"},
        {"role": "assistant", "content": "<thought>t</thought><respond>CA</respond>"},
    ]
    rows = [
        {"task_id": 80, "task_type": "best_region_identification", "gt_answer": None,
         "reward": 0, "traj": traj,
         "agent_info": {"source": "api",
                        "content": "Error: 'NoneType' object is not subscriptable"}},
        {"task_id": 81, "task_type": "best_region_identification", "gt_answer": "CA",
         "reward": 0, "traj": traj,
         "agent_info": {"source": "api", "content": "Error: litellm.RateLimitError: slow down"}},
    ]  # fmt: skip
    path = tmp_path / "results_gpt-4o_react_best_region_identification.json"
    path.write_text(json.dumps(rows))
    written = import_results(path, tmp_path / "recordings").written
    ends = [load(p).events[-1].payload["end_reason"] for p in written]
    assert [e["message"] for e in ends] == ["Harness error", "Model error"]
    report = report_folder(tmp_path / "recordings")
    assert report.excluded == {"harness error": 1, "model error": 1}
    assert report.rows == []  # nothing was answered wrongly: no accuracy to show
