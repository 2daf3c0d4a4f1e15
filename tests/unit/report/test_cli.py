"""``crmtui report``, ``crmtui compare`` and ``crmtui export`` through the CLI."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from crmtui.cli import cli, main
from tests.unit.report import builders as b


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``crmtui`` like the console script; returns (exit code, stdout, stderr)."""
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("command", ["report", "compare", "export"])
def test_help_text(command: str) -> None:
    result = CliRunner().invoke(cli, [command, "--help"])
    assert result.exit_code == 0
    assert "Examples:" in result.output
    assert "--format" in result.output


def test_commands_are_listed() -> None:
    output = CliRunner().invoke(cli, ["--help"]).output
    for command in ("report", "compare", "export"):
        assert command in output


def test_report_formats(
    fixture_root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # rich sizes tables to the terminal
    code, out, err = run(["report", str(fixture_root), "--format", "csv"], capsys)
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {r["actor"] for r in rows} == {"alice", "bob", "gpt-4o (react)", "tiny (act)"}
    assert "Skipped" in err and "bob-edited.jsonl" in err

    code, out, _ = run(["report", str(fixture_root), "--format", "json"], capsys)
    assert code == 0 and json.loads(out)["actors"][0]["label"] == "alice"

    code, out, _ = run(["report", str(fixture_root), "--format", "md"], capsys)
    assert code == 0 and out.startswith("# crmtui report") and "| alice |" in out

    code, out, _ = run(["report", str(fixture_root)], capsys)
    assert code == 0 and "Accuracy" in out and "90.0 (2)" in out


def test_recordings_default_to_crmtui_home_wherever_crmtui_starts(
    tmp_path: Path,
    crmtui_home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from crmtui.config import PlayConfig
    from crmtui.record.recorder import Recorder

    home = crmtui_home / "recordings"
    # A ./recordings in the working folder is not the default any more: it is left alone.
    monkeypatch.chdir(tmp_path)
    b.write_session(
        tmp_path / "recordings", b.HUMAN_B, b.HTU, b.BOB_HTU, start=b.DAY1, session_id="0" * 32
    )
    code, out, _ = run(["report", "--format", "md"], capsys)
    assert code == 0 and "No counted sessions" in out

    # Play (its config), a recorder without a folder, and every reader agree on the folder.
    for cwd in (tmp_path, tmp_path / "recordings"):
        monkeypatch.chdir(cwd)
        assert PlayConfig().recordings == home
    recorder = Recorder.create(
        actor=b.HUMAN_A, instance=b.HTU, org=b.ORG, tasks_source="sample", fsync=False
    )
    recorder.close("abandoned")
    assert recorder.path.is_relative_to(home / "alice")
    recorder.path.unlink()
    b.write_session(home, b.HUMAN_A, b.HTU, b.ALICE_HTU, start=b.DAY2, session_id="1" * 32)
    b.write_session(home, b.MODEL_A, b.HTU, b.GPT_HTU, start=b.DAY2, session_id="2" * 32)
    code, out, _ = run(["report", "--format", "md"], capsys)
    assert code == 0 and "| alice | — | 100.0 (1) |" in out and "bob" not in out
    code, out, _ = run(["compare", "--idx", "650", "--format", "json", "--no-rerun"], capsys)
    assert code == 0 and len(json.loads(out)["actors"]) == 2
    code, out, _ = run(["export", "--format", "csv", "--out", str(tmp_path / "x.csv")], capsys)
    assert code == 0 and "Exported 2 session(s)" in out
    code, _, err = run(["replay", "--check"], capsys)
    assert code == 0 and err.startswith(f"Replaying {home}")


def test_replay_without_a_file_and_no_recordings_says_so(
    crmtui_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["replay"], capsys)
    assert code == 2 and "no recordings in" in err and "give a FILE" in err


def test_compare_two_files(
    fixture_paths: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    a, g = str(fixture_paths["alice_htu"]), str(fixture_paths["gpt_htu"])
    code, out, _ = run(["compare", a, g], capsys)
    assert code == 0 and out.startswith("# Compare idx 650") and "◀ first divergence" in out
    assert "No evidence list" in out  # the header's org has no solutions file beside it
    # The recorded sample org is gone from its path; the rebuilt sample has another digest
    # than the fixture's made-up one, so nothing is re-run.
    assert "queries not re-run" in out
    code, out, _ = run(["compare", a, g, "--no-rerun"], capsys)
    assert code == 0 and "not found" not in out
    solutions = tmp_path / "sol.json"
    solutions.write_text(json.dumps(b.SOLUTIONS), "utf-8")
    code, out, _ = run(["compare", a, g, "--format", "json", "--solutions", str(solutions)], capsys)
    data = json.loads(out)
    assert code == 0 and [e["verdict"] for e in data["evidence"]] == ["solved", "solved"]


def test_compare_by_idx(fixture_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["compare", "--idx", "650", str(fixture_root), "--format", "json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert [a["actor_label"] for a in data["actors"]] == [
        "alice", "alice", "bob", "gpt-4o (react)", "tiny (act)",
    ]  # fmt: skip
    assert "bob-edited.jsonl" in err


def test_compare_errors(
    fixture_paths: dict[str, Path],
    fixture_root: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(["compare", str(fixture_paths["alice_htu"])], capsys)
    assert code == 2 and "give two recordings" in err
    b.write_session(tmp_path, b.HUMAN_A, b.BRI, b.TINY_BRI, start=b.DAY1, session_id="5" * 32)
    code, _, err = run(["compare", "--idx", "1040", str(tmp_path)], capsys)
    assert code == 2 and "found 1 valid recording(s) of idx 1040" in err
    code, _, err = run(["compare", "--idx", "1040", str(tmp_path / "absent")], capsys)
    assert code == 2 and "no such folder" in err
    code, _, err = run(
        ["compare", str(fixture_paths["alice_htu"]), str(fixture_paths["alice_kqa"])], capsys
    )
    assert code == 1 and "different instances" in err
    code, _, err = run(
        ["compare", str(fixture_paths["alice_htu"]), str(fixture_paths["tampered"])], capsys
    )
    assert code == 1 and "bob-edited.jsonl:3: hash mismatch" in err
    code, _, err = run(["compare", str(fixture_root), str(fixture_root)], capsys)
    assert code == 2 and "is a folder" in err
    code, _, err = run(
        [
            "compare",
            str(fixture_paths["alice_htu"]),
            str(fixture_paths["gpt_htu"]),
            "--solutions",
            str(fixture_root / "absent.json"),
        ],
        capsys,
    )
    assert code == 2 and "cannot read solutions file" in err


def test_export(fixture_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        ["export", str(fixture_root), "--format", "csv", "--out", str(tmp_path / "r.csv")], capsys
    )
    assert code == 0
    assert out.strip() == f"Exported 10 session(s) to {tmp_path / 'r.csv'}"
    assert "bob-edited.jsonl" in err
    assert len((tmp_path / "r.csv").read_text("utf-8").splitlines()) == 11
    code, out, _ = run(
        ["export", str(fixture_root), "--format", "hf", "--out", str(tmp_path / "ds")], capsys
    )
    assert code == 0 and (tmp_path / "ds" / "sessions.parquet").is_file()
    code, _, err = run(["export", str(fixture_root), "--out", str(tmp_path / "x")], capsys)
    assert code == 2 and "--format" in err
