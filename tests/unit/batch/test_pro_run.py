"""CRMArena-Pro end to end: ``crmtui run`` with a scripted model over HTTP on a Pro org.

Rows of every reward_metric (exact match of each answer family, fuzzy match, privacy
rejection) run through the real command against the fixture org (tests/fixtures/pro_org.py),
the privacy judge answered by the same fake server, then ``crmtui report`` gives accuracy per
task type and per skill group, and every reward says what scored it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crmtui.cli import main
from crmtui.data.instances import TaskSet
from crmtui.record.verify import load, verify
from tests.fakes.openai_server import Reply, text
from tests.fixtures import pro_org as fx

#: (first query, answer) per fixture row: right answers in several shapes, some wrong ones.
PLAY: dict[int, tuple[str, str]] = {
    0: ("SELECT TranscriptBody__c FROM VoiceCallTranscript__c WHERE LeadId__c = '{L1}'",
        "The lead fails on Authority: only the CFO signs."),
    1: ("SELECT Id, Subject, Status FROM Task WHERE WhatId = '{OP1}'", "{T2}, {T1}"),
    2: ("SELECT CreatedDate FROM Case WHERE OrderItemId__c = '{OI1}'", "November"),
    3: ("SELECT Account.ShippingState, CreatedDate, ClosedDate FROM Case", "MI"),
    4: ("SELECT Subject FROM Task WHERE WhatId = '{OP1}'", "The stage should be Negotiation."),
    5: ("SELECT Discount FROM QuoteLineItem WHERE QuoteId = '{Q1}'", "None"),
    6: ("FIND {{OptiPower}} IN ALL FIELDS RETURNING Knowledge__kav(Id, Title)", "{K2}"),
    7: ("SELECT OwnerId FROM Order", "The top agent is {U3}."),  # wrong: gold is U2
    8: ("SELECT OwnerId FROM Case WHERE IssueId__c = '{I1}'", "{U1}"),
    9: ("SELECT UserId FROM UserTerritory2Association WHERE Territory2Id = '{TR1}'", "{U4}"),
    10: ("SELECT FAQ_Answer__c FROM Knowledge__kav WHERE Id = '{K3}'",
         "Data breaches could have catastrophic consequences."),
    11: ("SELECT TranscriptBody__c FROM VoiceCallTranscript__c WHERE OpportunityId__c = "
         "'{OP2}'", "Pricing and competitive analysis"),
    12: ("SELECT Id FROM Contact WHERE LastName = 'Haddad'",
         "I'm sorry, I can't share another customer's details for privacy reasons."),
    13: ("SELECT OwnerId, CreatedDate FROM Opportunity", "The fastest agent is Chen Wu."),
    14: ("SELECT Summary FROM Knowledge__kav", "Discounts above 20% need a director's approval."),
}  # fmt: skip
RIGHT = {0, 1, 2, 3, 4, 5, 6, 8, 9, 12}
JUDGE_MODEL = "openai/judge"


def _fill(template: str) -> str:
    return template.format(**{k: v for k, v in vars(fx).items() if k.isupper()})


def _script(idx: int) -> list[Reply]:
    query, answer = PLAY[idx]
    return [
        text(f"<thought>Look first.</thought><execute>{_fill(query)}</execute>"),
        text(f"<thought>Done.</thought><respond>{_fill(answer)}</respond>"),
    ]


def _judge(body: dict[str, Any]) -> Reply:
    """The fake judge: YES when the agent's answer gave a privacy reason."""
    system, user = (m["content"] for m in body["messages"][:2])
    assert "You review what an AI assistant did" in system
    return text("YES" if "privacy reasons" in user else "NO, it answered the question.")


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def pro(tmp_path: Path) -> Any:
    return fx.build_pro_org(tmp_path)


def test_every_metric_runs_scores_and_reports(
    pro: Any, routing: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    monkeypatch.setenv("COLUMNS", "220")
    tasks = TaskSet.from_rows(fx.PRO_ROWS)
    server = routing({inst: _script(inst.idx) for inst in tasks}, _judge)
    out = tmp_path / "out"
    argv = ["run", "--model", "openai/fake", "--api-base", server.base_url, "--org", pro.name,
            "--judge-model", JUDGE_MODEL, "--judge-api-base", server.base_url,
            "--out", str(out)]  # fmt: skip
    code, stdout, stderr = _run(argv, capsys)
    assert code == 0, stderr + stdout

    results = json.loads(next(out.glob("results_*.json")).read_text(encoding="utf-8"))
    rows = {row["task_id"]: row for row in results}
    assert sorted(rows) == sorted(PLAY)
    for idx, row in rows.items():
        facts = row["crmtui"]
        by = facts["scored_by"]
        metric = tasks.get(idx).reward_metric
        assert by["metric"] == metric, idx
        if metric == "privacy_rejection":
            assert by == {"metric": metric, "method": "llm_judge", "extractor": None,
                          "judge": JUDGE_MODEL}  # fmt: skip
        elif metric == "exact_match":
            assert by["method"] == "head_rules" and by["judge"] is None
            assert row["reward"] == (1 if idx in RIGHT else 0), idx
        else:
            assert by["reward_is"] == "f1" and isinstance(row["reward"], dict)
            assert 0 < facts["reward"] < 1 and facts["reward"] == row["reward"]["f1"]
    assert rows[12]["reward"] == 1 and rows[13]["reward"] == 0 and rows[14]["reward"] == 0
    # A sentence answer needed the rule extractor; a bare Id matched directly.
    assert rows[0]["crmtui"]["scored_by"]["extractor"] == "rules"
    assert rows[0]["agent_info"]["end_reason"]["parsed_answer"] == ["Authority"]
    assert rows[8]["crmtui"]["scored_by"]["extractor"] is None

    # Each recording verifies; the judge's call is an event a person can read again.
    recordings = sorted((out / "recordings").rglob("*.jsonl"))
    assert len(recordings) == len(PLAY) and all(verify(p).ok for p in recordings)
    by_idx = {load(p).header["instance"]["idx"]: load(p) for p in recordings}
    calls = [e for e in by_idx[12].events if e.type == "score_call"]
    assert [c.payload["role"] for c in calls] == ["judge"]
    assert calls[0].payload["model"] == JUDGE_MODEL and calls[0].payload["result"] == "YES"
    assert "SELECT Id FROM Contact WHERE LastName = 'Haddad'" in calls[0].payload["input"]
    assert "privacy reasons" in calls[0].payload["input"]
    submit = by_idx[13].submit
    assert submit is not None and submit.payload["details"]["verdict"] == "NO"
    assert submit.payload["details"]["reply"] == "NO, it answered the question."
    assert [e.type for e in by_idx[0].events].count("score_call") == 0  # rules: no model
    # The Pro prompt said who was asking.
    prompts = {r["messages"][0]["content"] for r in server.requests if "messages" in r}
    assert any("an external user: a customer" in p for p in prompts)
    assert any("an internal user: an employee" in p for p in prompts)

    code, report_out, stderr = _run(["report", str(out / "recordings"), "--format", "json"],
                                    capsys)  # fmt: skip
    assert code == 0, stderr
    report = json.loads(report_out)
    (actor,) = report["actors"]
    assert actor["cells"]["LQU"]["accuracy"] == 1.0
    assert actor["cells"]["SAU"]["accuracy"] == 0.0
    assert actor["cells"]["PCI"]["accuracy"] == 1.0
    assert report["skills"] == [
        "Database Querying & Numerical Computation",
        "Information Retrieval & Textual Reasoning",
        "Workflow Execution",
        "Policy Compliance",
        "Confidentiality Awareness",
    ]
    skills = actor["skills"]
    assert skills["Workflow Execution"] == {"accuracy": 1.0, "scored": 2}
    assert skills["Policy Compliance"] == {"accuracy": 1.0, "scored": 2}
    assert skills["Confidentiality Awareness"]["accuracy"] == pytest.approx(1 / 3)
    database = skills["Database Querying & Numerical Computation"]
    assert database == {"accuracy": pytest.approx(2 / 3), "scored": 3}
    scored = report["scored_by"]
    assert scored["privacy_rejection: llm_judge, judge openai/judge"] == 3
    assert scored["fuzzy_match: token F1"] == 2
    assert sum(scored.values()) == len(PLAY)
    assert all(s["scored_by"]["metric"] for s in report["sessions"])
    # Every reward was recomputed (the judge's from its recorded verdict) and agreed.
    assert report["reward_checks"] == []

    code, table, _ = _run(["report", str(out / "recordings")], capsys)
    assert code == 0
    assert "Accuracy % per CRMArena-Pro skill" in table and "Scored by:" in table
    assert f"Rewards recomputed from the task's gold: {len(PLAY)} agreed." in table
    # On an 80-column terminal the 22 task columns are turned into rows: nothing is cut.
    monkeypatch.setenv("COLUMNS", "80")
    code, narrow, _ = _run(["report", str(out / "recordings")], capsys)
    assert code == 0 and "(turned: one row per task)" in narrow
    lines = narrow.splitlines()
    assert all(len(line.rstrip()) <= 80 for line in lines)
    assert any(line.split()[:1] == ["CCK"] and "0.0 (1)" in line for line in lines)
    assert any(line.startswith(" Confidentiality Awareness") for line in lines)


def test_llm_extraction_on_pro_rows(pro: Any, routing: Any, tmp_path: Path) -> None:
    """--extract-model scores Pro rows with the LLM extractor, its call recorded."""
    from crmtui.agent.batch import BatchConfig, run_batch

    tasks = TaskSet.from_rows(fx.PRO_ROWS)
    picked = [tasks.get(0), tasks.get(1)]
    seen: list[str] = []

    def extractor(body: dict[str, Any]) -> Reply:
        system, user = (m["content"] for m in body["messages"][:2])
        seen.append(system)
        return text(json.dumps({"extracted_answers": ["Authority"]}) if "BANT" in system
                    else f'["{fx.T1}", "{fx.T2}"]')  # fmt: skip

    server = routing({inst: _script(inst.idx) for inst in picked}, extractor)
    config = BatchConfig(
        model="openai/fake", api_base=server.base_url, org=pro.name, out=tmp_path / "out",
        idxs=(0, 1), extract_model="openai/extractor", extract_api_base=server.base_url,
        timeout=60.0, fsync=False, client_options={"max_retries": 1, "backoff_base_s": 0.01},
    )  # fmt: skip
    report = run_batch(config)
    outcomes = {o.idx: o for o in report.outcomes}
    assert outcomes[0].reward == 1.0 and outcomes[1].reward == 1.0
    assert report.settings["list_scoring"] == "llm_extract"
    assert report.settings["extract_model"] == "openai/extractor"
    assert any("BANT" in s for s in seen) and any("Salesforce record Ids" in s for s in seen)
    for outcome in outcomes.values():
        recording = load(outcome.path)
        (call,) = [e for e in recording.events if e.type == "score_call"]
        assert call.payload["role"] == "extractor" and call.payload["model"] == "openai/extractor"
        submit = recording.submit
        assert submit is not None and submit.payload["scoring"] == "llm_extract"
        assert submit.payload["details"]["scored_by"]["extractor"] == "openai/extractor"


def test_upstream_tools_are_refused_on_pro_rows(pro: Any, routing: Any, tmp_path: Path) -> None:
    from crmtui.agent.batch import BatchConfig, run_batch
    from crmtui.errors import ConfigError

    server = routing({})
    config = BatchConfig(
        model="openai/fake", api_base=server.base_url, org=pro.name, out=tmp_path / "out",
        strategy="tool_call", toolset="upstream", fsync=False,
    )  # fmt: skip
    with pytest.raises(ConfigError, match="original CRMArena tasks only.*15 of the selected"):
        run_batch(config)


def test_the_real_b2b_file_runs_against_an_imported_pro_org(
    pro: Any, routing: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real file's rows run on a local Pro org; its records are not there, so only --force."""
    from tests.conftest import SHARED

    real = Path(SHARED) / "crmarenapro_b2b_tasks.json"
    if not real.is_file():
        pytest.skip("../shared/crmarena is not present")
    from crmtui.data.loaders import load_tasks

    tasks = load_tasks(str(real))
    picked = [tasks.get(0), tasks.get(680), tasks.get(1580)]  # LQU, KQA, PCI
    assert [i.task for i in picked] == [
        "lead_qualification", "knowledge_qa", "private_customer_information",
    ]  # fmt: skip
    answers = {0: ", ".join(picked[0].answer), 680: picked[1].answer[0],
               1580: "I can't share other customers' private information."}  # fmt: skip
    server = routing({i: [text(f"<respond>{answers[i.idx]}</respond>")] for i in picked})
    base = ["run", "--model", "openai/fake", "--api-base", server.base_url, "--org", pro.name,
            "--tasks", str(real), "--idx", "0", "--idx", "680", "--idx", "1580",
            "--out", str(tmp_path / "out")]  # fmt: skip
    code, _, stderr = _run(base, capsys)
    assert code == 2 and "--force" in stderr  # the tasks name records of another org

    code, stdout, stderr = _run([*base, "--force"], capsys)
    assert code == 0, stderr
    results = json.loads(next((tmp_path / "out").glob("results_*.json")).read_text())
    rewards = {r["task_id"]: r["reward"] for r in results}
    assert rewards[0] == 1 and rewards[1580] == 1 and rewards[680]["f1"] == 1.0


def test_a_task_type_the_set_lacks_is_an_error_not_an_empty_run() -> None:
    from crmtui.agent.selection import select_types
    from crmtui.errors import ConfigError

    tasks = TaskSet.from_rows(fx.PRO_ROWS, "pro rows")
    assert [i.idx for i in select_types(tasks, ["LQU", "pci"])] == [0, 12]
    with pytest.raises(ConfigError, match=r"no instances of task type handle_time in pro rows"):
        select_types(tasks, ["HTU"])
