"""``crmtui run`` and ``crmtui watch`` at the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from crmtui.cli import cli, main
from crmtui.record.verify import verify
from tests.unit.batch.scripted import solving_script


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``crmtui`` like the console script; returns (exit code, stdout, stderr)."""
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("command", ["run", "watch"])
def test_help_text(command: str) -> None:
    result = CliRunner().invoke(cli, [command, "--help"])
    assert result.exit_code == 0
    assert "Examples:" in result.output
    for option in ("--model", "--strategy", "--api-base", "--task", "--llm-extract"):
        assert option in result.output
    extra = ("--concurrency", "--limit", "--out") if command == "run" else ("--paused", "--delay")
    for option in extra:
        assert option in result.output


def test_commands_are_listed() -> None:
    output = CliRunner().invoke(cli, ["--help"]).output
    assert "run " in output and "watch " in output


def test_run_writes_recordings_results_and_summary(
    routing, tasks, built_org: Path, tmp_path: Path, capsys, monkeypatch, api_key: str
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    picked = [i for i in tasks if i.task == "best_region_identification"][:3]
    server = routing({inst: solving_script(inst, "react") for inst in picked})
    out = tmp_path / "out"
    argv = [
        "run",
        "--model", "openai/fake",
        "--api-base", server.base_url,
        "--org", str(built_org),
        "--tasks", str(built_org.with_suffix(".tasks.json")),
        "--task", "BRI",
        "--limit", "3",
        "-k", "2",
        "--out", str(out),
    ]  # fmt: skip
    code, stdout, stderr = run(argv, capsys)

    assert code == 0, stderr
    assert "best_region_identification" in stdout and "1.000" in stdout
    results = out / "results_openai-fake_react_best_region_identification.json"
    assert f"results: {results}" in stdout.replace("\n", "")
    entries = json.loads(results.read_text(encoding="utf-8"))
    assert [e["task_id"] for e in entries] == [i.idx for i in picked]
    recordings = sorted((out / "recordings").rglob("*.jsonl"))
    assert len(recordings) == 3 and all(verify(p).ok for p in recordings)
    # The API key comes from the environment and is never written anywhere.
    for path in [*recordings, results]:
        assert api_key not in path.read_text(encoding="utf-8")

    code, stdout, stderr = run(argv, capsys)
    assert code == 0 and "3 instance(s) already done, 0 to run" in stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--concurrency", "0"], "--concurrency must be at least 1"),
        (["--task", "NOPE"], "NOPE"),
        (["--idx", "99999"], "no instance with idx 99999"),
    ],
)
def test_run_bad_input_is_one_line(
    args: list[str], message: str, built_org: Path, tmp_path: Path, capsys: Any
) -> None:
    argv = [
        "run",
        "--model", "openai/fake",
        "--org", str(built_org),
        "--tasks", str(built_org.with_suffix(".tasks.json")),
        "--out", str(tmp_path / "out"),
        *args,
    ]  # fmt: skip
    code, _, stderr = run(argv, capsys)
    assert code != 0
    assert stderr.startswith("Error:") and message in stderr
    assert "Traceback" not in stderr


def test_watch_rejects_bad_settings_before_the_tui(capsys: Any) -> None:
    code, _, stderr = run(
        ["watch", "--model", "openai/fake", "--strategy", "act", "--time-limit", "0"], capsys
    )
    assert code != 0 and "--time-limit must be positive" in stderr


def test_summary_of_a_run_stopped_before_any_result(tmp_path: Path) -> None:
    from rich.console import Console

    from crmtui.agent.batch import BatchReport, Tally
    from crmtui.commands.run_display import print_summary

    console = Console(record=True, width=200)
    report = BatchReport(
        tmp_path / "r.json", Tally(total=3, finished=1, interrupted=1), [], True, 1.0
    )
    print_summary(report, console)
    text = console.export_text()
    assert "No finished instances yet." in text and "Results by task type" not in text
    assert "stopped: ran 1" in text and "1 not finished (run again to resume)" in text


def test_several_task_types_and_a_limit_spread_over_them(
    routing, tasks, built_org: Path, tmp_path: Path, capsys: Any, monkeypatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    ncr = [i for i in tasks if i.task == "case_routing"]
    htu = [i for i in tasks if i.task == "handle_time"]
    expected = [ncr[0], htu[0], ncr[1]]  # round robin, leaderboard order (NCR before HTU)
    server = routing({inst: solving_script(inst, "act") for inst in expected})
    out = tmp_path / "out"
    argv = [
        "run", "--model", "openai/fake", "--api-base", server.base_url, "--strategy", "act",
        "--org", str(built_org), "--tasks", str(built_org.with_suffix(".tasks.json")),
        "--task", "NCR", "--task", "HTU", "--limit", "3", "--out", str(out),
    ]  # fmt: skip
    code, stdout, stderr = run(argv, capsys)
    assert code == 0, stderr
    taken = ", ".join(str(i.idx) for i in expected)
    assert f"idx {taken}" in stderr.replace("\n", " ")
    (results,) = out.glob("results_*.json")
    assert results.name == "results_openai-fake_act_case_routing-handle_time.json"
    rows = json.loads(results.read_text(encoding="utf-8"))
    assert sorted(r["task_id"] for r in rows) == sorted(i.idx for i in expected)
    assert "case_routing" in stdout and "handle_time" in stdout


def test_exit_status_3_when_rows_hold_model_errors(
    routing, tasks, built_org: Path, tmp_path: Path, capsys: Any
) -> None:
    from tests.fakes.openai_server import empty_choices

    inst = next(i for i in tasks if i.task == "handle_time")
    server = routing({inst: [empty_choices()]})
    argv = [
        "run", "--model", "openai/fake", "--api-base", server.base_url,
        "--org", str(built_org), "--tasks", str(built_org.with_suffix(".tasks.json")),
        "--idx", str(inst.idx), "--out", str(tmp_path / "out"), "--max-initial-errors", "0",
    ]  # fmt: skip
    code, stdout, _ = run(argv, capsys)
    assert code == 3
    assert "1 model errors" in stdout and "ended in model or harness errors" in stdout
