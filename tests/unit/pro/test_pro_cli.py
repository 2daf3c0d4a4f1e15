"""The CRMArena-Pro sample orgs through the real CLI: build, tasks list/show/stats, query."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from crmtui.cli import cli, main
from crmtui.org.store import Org


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory with sample-b2b built once through ``crmtui org build``."""
    path = tmp_path_factory.mktemp("pro-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CRMTUI_HOME", str(path))
        result = _run("org", "build", "--org-type", "b2b")
    assert result.exit_code == 0, result.output
    assert "Org 'sample-b2b'" in result.output and "Lead" in result.output
    return path


@pytest.fixture(autouse=True)
def _use_home(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRMTUI_HOME", str(home))


def _run(*args: str) -> click.testing.Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_build_writes_the_org_its_tasks_and_solutions(home: Path) -> None:
    orgs = home / "orgs"
    org = Org.open(orgs / "sample-b2b.db")
    assert len(org.schema) == 27 and org.meta["org_type"] == "b2b"
    assert org.fts_table("VoiceCallTranscript__c") is not None
    rows = json.loads((orgs / "sample-b2b.tasks.json").read_text(encoding="utf-8"))
    solutions = json.loads((orgs / "sample-b2b.solutions.json").read_text(encoding="utf-8"))
    assert len(rows) == 19 * 10 + 3 * 8 == len(solutions)


def test_tasks_list_and_show_use_the_orgs_own_tasks() -> None:
    listed = _run("tasks", "list", "--org", "sample-b2b", "--task", "lead_routing")
    assert listed.exit_code == 0, listed.output
    assert "Showing 10 of 10 instances" in listed.output
    shown = _run("tasks", "show", "0", "--org", "sample-b2b", "--show-answer")
    assert shown.exit_code == 0, shown.output
    assert "lead_qualification" in shown.output and "persona" in shown.output
    assert "Lead Id" in shown.output


def test_query_answers_soql_and_sosl_over_the_sales_objects() -> None:
    soql = _run(
        "query",
        "--org",
        "sample-b2b",
        "--format",
        "json",
        "SELECT StageName, COUNT(Id) n FROM Opportunity GROUP BY StageName",
    )
    assert soql.exit_code == 0, soql.output
    stages = {r["StageName"] for r in json.loads(soql.output)["records"]}
    assert stages == {"Qualification", "Discovery", "Quote", "Negotiation", "Closed"}
    joined = _run(
        "query",
        "--org",
        "sample-b2b",
        "SELECT Id FROM Opportunity WHERE ContractID__r.CompanySignedDate >= 2023-01-01 LIMIT 1",
    )
    assert joined.exit_code == 0, joined.output
    sosl = _run(
        "query",
        "--org",
        "sample-b2b",
        "--format",
        "json",
        "FIND {Northwind Athletics} RETURNING VoiceCallTranscript__c(Id, OpportunityId__c)",
    )
    assert sosl.exit_code == 0, sosl.output
    assert json.loads(sosl.output)["searchRecords"]


def test_tasks_stats_reruns_the_pro_solvers() -> None:
    result = _run("tasks", "stats", "--org", "sample-b2b", "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert len(report["types"]) == 22
    assert all(t["mismatches"] == 0 for t in report["types"])


def test_a_scale_pro_orgs_do_not_have_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["org", "build", "--org-type", "b2c", "--scale", "stress"])
    assert exit_info.value.code != 0
    err = capsys.readouterr().err
    assert err.startswith("Error: ") and "scales small and full" in err and "Traceback" not in err


def test_domain_details_without_a_pro_org_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["org", "build", "--domain-details", "short"])
    assert exit_info.value.code != 0
    err = capsys.readouterr().err
    assert err.startswith("Error: ") and "--org-type" in err and "Traceback" not in err
