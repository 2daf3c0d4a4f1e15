"""`crmtui tasks list` / `crmtui tasks show` through the real CLI group."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from crmtui import paths
from crmtui.cli import cli, main
from crmtui.commands.tasks import tasks
from tests.unit.data.rowkit import make_row, sample_rows, write_json


def _run(*args: str, width: int = 100) -> str:
    result = CliRunner().invoke(cli, list(args), env={"COLUMNS": str(width)})
    assert result.exception is None, result.output
    assert result.exit_code == 0
    return result.output


def _error(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    return int(info.value.code or 0), capsys.readouterr().err


def test_list_shows_rows_and_counts(json_tasks: Path) -> None:
    out = _run("tasks", "list", "--tasks", str(json_tasks))
    lines = out.splitlines()
    row_lines = [line for line in lines if "handle_time" in line and "│" in line]
    assert any("HTU handle_time" in line for line in row_lines)
    assert "answer" not in lines[1]  # header row of the instances table
    assert "Instances per task type" in out
    total = next(line for line in lines if "total" in line)
    assert total.split("│")[-2].strip() == "8"
    assert f"Showing 8 of 8 instances from {json_tasks}" in out.replace("\n", "")


def test_list_keeps_each_query_on_one_truncated_line(tmp_path: Path) -> None:
    long_query = "Which agent closed the most cases " * 10
    path = write_json(tmp_path / "t.json", [make_row(1, query=long_query + "\nsecond line")])
    out = _run("tasks", "list", "--tasks", str(path), width=80)
    row = next(line for line in out.splitlines() if "HTU handle_time" in line)
    assert "Which agent closed" in row and "…" in row
    assert "second line" not in out


def test_list_filters_by_abbreviation_and_limits(json_tasks: Path) -> None:
    out = _run("tasks", "list", "--tasks", str(json_tasks), "--task", "ned", "--limit", "1")
    rows = [line for line in out.splitlines() if "NED named_entity" in line]
    assert len(rows) == 1 and rows[0].split("│")[1].strip() == "12"
    assert "handle_time" not in out
    assert "Showing 1 of 2 instances" in out


def test_list_show_answers_column(json_tasks: Path) -> None:
    hidden = _run("tasks", "list", "--tasks", str(json_tasks), "--task", "handle_time")
    assert "005Ws000001aaaaIAA" not in hidden
    out = _run("tasks", "list", "--tasks", str(json_tasks), "--task", "NED", "--show-answers")
    assert "answer" in out
    assert all("None" in line for line in out.splitlines() if "NED named_entity" in line)


def test_list_defaults_to_the_sample_tasks() -> None:
    write_json(paths.org_tasks_path("sample"), sample_rows()[:3])
    out = _run("tasks", "list")
    assert "Showing 3 of 3 instances from sample org tasks" in out.replace("\n", "")


def test_show_prints_everything_but_the_answer(json_tasks: Path) -> None:
    out = _run("tasks", "show", "12", "--tasks", str(json_tasks))
    for text in (
        "NED named_entity_disambiguation (Named Entity Disambiguation)",
        "exact_match",
        "2020-06-15",
        "Contact Id",
        "003Ws000004Abc1IAC",
        "Show me the trail shoes",
        "metadata.required",
        "metadata.optional",
        "# Domain Details",
        "hidden; pass --show-answer",
    ):
        assert text in out, text


def test_show_answer_flag_reveals_it(json_tasks: Path) -> None:
    out = _run("tasks", "show", "101", "--tasks", str(json_tasks), "--show-answer")
    assert "005Ws000001aaaaIAA" in out
    assert "hidden" not in out


def test_unknown_task_type_is_a_one_line_error(
    json_tasks: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _error(capsys, "tasks", "list", "--tasks", str(json_tasks), "--task", "XYZ")
    assert code == 2
    assert err.startswith("Error: unknown task type 'XYZ'; valid values: NCR (case_routing)")
    assert len(err.strip().splitlines()) == 1


def test_show_missing_idx_and_bad_file_are_errors(
    tmp_path: Path, json_tasks: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _error(capsys, "tasks", "show", "999", "--tasks", str(json_tasks))
    assert code == 1 and "no instance with idx 999" in err
    bad = write_json(tmp_path / "bad.json", [make_row(3, metadata="x")])
    code, err = _error(capsys, "tasks", "show", "3", "--tasks", str(bad))
    assert code == 1 and "row idx 3, field 'metadata'" in err
    code, err = _error(capsys, "tasks", "list", "--tasks", "hf:Salesforce/CRMArena")
    assert code == 1 and "cannot reach the Hugging Face hub" in err


def _all_commands(group: click.Group) -> list[click.Command]:
    found: list[click.Command] = [group]
    for sub in group.commands.values():
        found += _all_commands(sub) if isinstance(sub, click.Group) else [sub]
    return found


def test_every_command_and_option_has_help() -> None:
    commands = _all_commands(tasks)
    assert {c.name for c in commands} == {"tasks", "list", "show", "stats"}
    for command in commands:
        assert command.help, command.name
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"{command.name} {param.name}"
    for args in (["tasks", "--help"], ["tasks", "list", "--help"], ["tasks", "show", "--help"]):
        assert "Usage:" in _run(*args)


@pytest.fixture
def small_org_file() -> Path:
    """A small generated org (with its tasks and solutions) in the test's data directory."""
    from crmtui.org.build import build_org

    return build_org(paths.org_path("tiny-7"), seed=7, scale="small").path


def test_stats_on_a_generated_org(small_org_file: Path) -> None:
    out = _run("tasks", "stats", "--org", "tiny-7", width=160)
    table = out.split("Calibration targets")[0]
    for abbr in ("KQA", "MTA", "TII", "NCR", "NED", "HTU", "TCU", "PVI", "BRI"):
        assert any(line.startswith(f"│ {abbr} ") for line in table.splitlines()), abbr
    htu = next(line for line in table.splitlines() if line.startswith("│ HTU "))
    cells = [cell.strip() for cell in htu.split("│")[1:-1]]
    assert cells[1:4] == ["10", "7", "30%"]  # instances, answered, None share
    assert cells[6].endswith("%") and cells[8] == "0"  # single-candidate share; no ties
    assert "rule 1/2/3" in table and "reused subjects 0" in table
    assert "Calibration targets:" in out


def test_stats_json_reruns_the_solvers_on_the_org(small_org_file: Path) -> None:
    import json

    report = json.loads(_run("tasks", "stats", "--org", str(small_org_file), "--format", "json"))
    assert report["org"] == str(small_org_file)
    assert report["solutions"].endswith("tiny-7.solutions.json")
    types = {item["task"]: item for item in report["types"]}
    assert len(types) == 9
    assert all(item["mismatches"] == 0 for item in types.values())
    assert types["handle_time"]["ranked"] == 7
    assert {check["task"] for check in report["targets"]} == set(types)


def test_stats_on_a_plain_task_file_shows_the_distribution_only(json_tasks: Path) -> None:
    out = _run("tasks", "stats", "--tasks", str(json_tasks), width=160)
    assert "only the gold distribution is shown" in out
    assert "Calibration targets" not in out
    htu = next(line for line in out.splitlines() if line.startswith("│ HTU "))
    assert "—" in htu


def test_stats_uses_recorded_solutions_beside_a_task_file(small_org_file: Path) -> None:
    tasks_file = small_org_file.with_suffix(".tasks.json")
    out = _run("tasks", "stats", "--tasks", str(tasks_file), width=160)
    assert "Calibration targets:" in out
    assert "reused subjects" not in out  # subjects need the org


def test_stats_on_an_org_without_tasks_is_one_error_line(
    small_org_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    small_org_file.with_suffix(".tasks.json").unlink()
    code, err = _error(capsys, "tasks", "stats", "--org", "tiny-7")
    assert code != 0
    assert err.startswith("Error: org 'tiny-7' has no generated tasks beside it")
    assert "Traceback" not in err


def test_stats_on_tasks_sample_is_the_default_view() -> None:
    # `--tasks sample` names the sample's tasks; their solutions sit beside them.
    named = _run("tasks", "stats", "--tasks", "sample", width=160)
    default = _run("tasks", "stats", width=160)
    assert "only the gold distribution is shown" not in named
    assert "Calibration targets:" in named and "reused subjects" in named
    assert named == default
