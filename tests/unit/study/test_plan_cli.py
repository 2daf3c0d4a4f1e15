"""What an annotator's app is told (the plan), and the study commands end to end."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from crmtui.cli import cli
from crmtui.study import StudyPlan, StudyRequest, create_study, load_study
from crmtui.study.definition import Settings
from tests.unit.study.helpers import record_session, task_set, workspace


@pytest.fixture(autouse=True)
def studies_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CRMTUI_STUDIES", str(tmp_path / "studies"))
    return tmp_path / "studies"


def _study(reveal: bool = False) -> object:
    made, _ = create_study(
        StudyRequest(
            name="p",
            annotators=["ann", "ben"],
            per_type=3,
            shared=0.0,
            overlap=1,
            seed=0,
            practice=2,
            settings=Settings(reveal_gold=reveal, time_limit_s=90.0),
        ),
        workspace=workspace(),
    )
    return made


def test_blind_plan_hides_counted_results_but_not_practice() -> None:
    study = _study()
    plan = StudyPlan(study, "ann")  # type: ignore[arg-type]
    item = study.assignments["ann"]  # type: ignore[attr-defined]
    picker = plan.picker()
    assert picker.order == item.practice + item.instances
    assert picker.hidden == frozenset(item.instances)
    assert all(picker.reveals(idx) for idx in item.practice)
    assert picker.report is False and picker.report_scope == "ann"
    first = plan.play(item.practice[0])
    assert (first.reveal, first.progress, first.time_limit_s) == (True, "practice 1 of 2", 90.0)
    third = plan.play(item.instances[2])
    assert (third.reveal, third.progress) == (False, f"3 of {len(item.instances)}")
    assert third.time_left(100.0) == 0.0 and third.time_left(30.0) == 60.0
    stranger = next(i for i in study.pool if i not in item.instances)  # type: ignore[attr-defined]
    assert plan.play(stranger).reveal is False


def test_revealing_plan_shows_everything_and_allows_the_own_report() -> None:
    study = _study(reveal=True)
    plan = StudyPlan(study, "ben")  # type: ignore[arg-type]
    assert plan.picker().hidden == frozenset() and plan.picker().report is True
    assert plan.play(study.assignments["ben"].instances[0]).reveal is True  # type: ignore[attr-defined]


def run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_create_tokens_add_status_report_export(
    studies_here: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr("crmtui.study.create._workspace", lambda tasks, org: workspace())
    out = run(
        "study", "create", "cli", "--annotators", "ann,ben,cat", "--per-type", "4",
        "--shared", "0.5", "--overlap", "2", "--practice", "1", "--time-limit", "10m",
        "--format", "json", "--url", "https://study.example:8443",
    )  # fmt: skip
    made = json.loads(out)
    assert [a["annotator"] for a in made["annotators"]] == ["ann", "ben", "cat"]
    link = made["annotators"][0]["link"]
    assert link.startswith("https://study.example:8443/?token=")
    study = load_study("cli")
    assert study.settings.time_limit_s == 600.0
    assert link.split("=", 1)[1] not in study.tokens_path.read_text()

    listing = run("study", "tokens", "cli")
    assert "ann: token made" in listing and "rotated 0 time(s)" in listing
    # Where a table would fold the links (80 columns), each link is printed whole on its
    # own line: copied from the terminal, it works.
    monkeypatch.setenv("COLUMNS", "80")
    printed = run("study", "tokens", "cli", "--rotate", "cat")
    [line] = [line for line in printed.splitlines() if "token=" in line]
    # It names the address the study was created with (--url), not a default.
    assert line.startswith("https://study.example:8443/?token=")
    assert len(line.split("token=")[1]) == 43  # whole
    monkeypatch.setenv("COLUMNS", "200")
    assert "│ cat" in run("study", "tokens", "cli", "--rotate", "cat")
    rotated = json.loads(run("study", "tokens", "cli", "--rotate", "ben", "--format", "json"))
    assert [a["annotator"] for a in rotated["annotators"]] == ["ben"]
    assert "ben: token made" in run("study", "tokens", "cli") and "rotated 1" in run(
        "study", "tokens", "cli"
    )

    added = json.loads(run("study", "add-annotator", "cli", "dan", "--format", "json"))
    assert added["annotators"][0]["annotator"] == "dan"
    assert load_study("cli").annotators == ["ann", "ben", "cat", "dan"]

    tasks = task_set()
    first = load_study("cli").assignments["ann"].instances[0]
    record_session(study.recordings, tasks.get(first), "ann", answer="CA")
    status = json.loads(run("study", "status", "cli", "--format", "json"))
    assert status["done"] == 1 and status["annotators"][0]["done"] == 1
    assert "Annotators" in run("study", "status", "cli")
    report = json.loads(run("study", "report", "cli", "--format", "json"))
    assert report["study"]["name"] == "cli" and len(report["sessions"]) == 1
    assert "# crmtui study report: cli" in run("study", "report", "cli", "--format", "md")
    # A practice session: left out of the export as it is left out of the report (so it
    # cannot be "counted" either).
    practice = load_study("cli").assignments["ann"].practice[0]
    record_session(study.recordings, tasks.get(practice), "ann", answer="p")
    out_csv = tmp_path / "s.csv"
    exported = run("study", "export", "cli", "--format", "csv", "--out", str(out_csv))
    assert "Exported 1 session(s)" in exported
    assert "Left out (as in the report): 1 practice" in exported
    rows = list(csv.DictReader(out_csv.open()))
    assert [(int(r["idx"]), r["counted"]) for r in rows] == [(first, "True")]
    assert "1 session(s) left out: practice." in run("study", "report", "cli")


def test_mistakes_are_one_error_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from crmtui.cli import main

    monkeypatch.setattr("crmtui.study.create._workspace", lambda tasks, org: workspace())
    for argv, message in [
        (["study", "status", "nope"], "Error: no study 'nope'"),
        (["study", "create", "x", "--annotators", "a", "--per-type", "2"], "Error: --overlap 2"),
        (["study", "create", "x", "--annotators", "a", "--per-type", "2", "--shared", "0",
          "--time-limit", "soon"], "Error: --time-limit: 'soon'"),
        (["study", "create", "x", "--annotators", "a", "--idx", "1-x", "--shared", "0"],
         "Error: --idx: '1-x'"),
    ]:  # fmt: skip
        with pytest.raises(SystemExit):
            main(argv)
        err = capsys.readouterr().err
        assert err.startswith(message), err
        assert "Traceback" not in err
    _study()
    with pytest.raises(SystemExit):
        main(["play", "--study", "p", "--annotator", "zed"])
    assert "Error: 'zed' is not an annotator of study 'p'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["play", "--study", "p", "--annotator", "ann", "--idx", "3"])
    assert "--study sets --idx itself" in capsys.readouterr().err


def test_a_changed_task_source_is_refused() -> None:
    from crmtui.data.instances import TaskSet
    from crmtui.study import StudyError
    from crmtui.study.launch import check_instances

    study = _study()
    tasks = task_set()
    check_instances(study, tasks)  # type: ignore[arg-type]
    idx = study.pool[0]  # type: ignore[attr-defined]
    rows = [inst.to_row() for inst in tasks]
    for row in rows:
        if row["idx"] == idx:
            row["query"] += " (edited)"
    with pytest.raises(StudyError, match="changed since the study was created"):
        check_instances(study, TaskSet.from_rows(rows))  # type: ignore[arg-type]
    fewer = TaskSet([inst for inst in tasks if inst.idx != idx])
    with pytest.raises(StudyError, match=f"no longer has instance {idx}"):
        check_instances(study, fewer)  # type: ignore[arg-type]


def test_serve_refuses_plain_http_off_loopback(capsys: pytest.CaptureFixture[str]) -> None:
    from crmtui.cli import main

    _study()
    with pytest.raises(SystemExit):
        main(["serve", "--study", "p", "--host", "0.0.0.0"])
    err = capsys.readouterr().err
    assert err.startswith("Error: serving on 0.0.0.0 without TLS"), err


def test_qualify_instructions_and_revoke_from_the_command_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from crmtui.cli import main
    from crmtui.study import TokenStore

    monkeypatch.setattr("crmtui.study.create._workspace", lambda tasks, org: workspace())
    page = tmp_path / "instructions.md"
    page.write_text("# Please read\n\nWe record everything.\n", encoding="utf-8")
    out = run(
        "study", "create", "q", "--annotators", "ann,ben", "--per-type", "1", "--shared", "0",
        "--practice", "2", "--qualify", "2", "--instructions", str(page),
    )  # fmt: skip
    assert "2 practice right to go on, instructions to accept first." in out
    study = load_study("q")
    assert study.settings.qualify == 2
    assert study.instructions_path.read_text() == page.read_text()
    assert "qualify = 2" in study.definition_path.read_text()

    assert "after 1 practice answer(s) right" in run("study", "set", "q", "--qualify", "1")
    assert load_study("q").settings.qualify == 1
    assert "no longer gates" in run("study", "set", "q", "--qualify", "0")
    assert load_study("q").settings.qualify is None
    page.write_text("# Version 2\n", encoding="utf-8")
    run("study", "set", "q", "--instructions", str(page))
    assert study.instructions_path.read_text() == "# Version 2\n"
    run("study", "set", "q", "--no-instructions")
    assert not study.instructions_path.exists()

    assert "ann: token revoked" in run("study", "tokens", "q", "--revoke", "ann")
    assert TokenStore(study.tokens_path).generation("ann") is None
    assert "ann: token revoked" in run("study", "tokens", "q")
    rotated = json.loads(run("study", "tokens", "q", "--rotate", "ann", "--format", "json"))
    assert TokenStore(study.tokens_path).who(rotated["annotators"][0]["token"]) == "ann"

    report = json.loads(
        run("study", "report", "q", "--format", "json", "--bootstrap", "200", "--seed", "5")
    )
    assert report["study"]["disagreements"] == [] and report["study"]["instructions"] is None

    empty = tmp_path / "empty.md"
    empty.write_text("  \n", encoding="utf-8")
    for argv, message in [
        (["study", "set", "q", "--qualify", "3"], "Error: --qualify 3 must be between 1 and"),
        (["study", "set", "q"], "Error: nothing to change"),
        (["study", "set", "q", "--instructions", str(empty)], "Error: the instructions in"),
        (["study", "create", "r", "--annotators", "a", "--per-type", "1", "--shared", "0",
          "--qualify", "1"], "Error: --qualify needs practice instances"),
        (["study", "tokens", "q", "--revoke", "zed"], "Error: 'zed' is not an annotator"),
    ]:  # fmt: skip
        with pytest.raises(SystemExit):
            main(argv)
        err = capsys.readouterr().err
        assert message in err, err  # (a usage error prints the usage first)
        assert "Traceback" not in err
