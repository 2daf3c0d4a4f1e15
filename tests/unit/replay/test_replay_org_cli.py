"""`crmtui replay`: tampered recordings refused, missing and changed orgs reported."""

from __future__ import annotations

import shutil
from pathlib import Path

from crmtui import paths
from crmtui.cli import main
from crmtui.record.verify import load
from crmtui.review.replay_org import check_org, open_recorded_org


def _finished(make_recording, clocks, **overrides) -> Path:
    rec = make_recording(**overrides)
    clocks.advance(1)
    rec.emit("open_object", {"object": "Case", "query": "SELECT Id FROM Case"})
    clocks.advance(1)
    rec.emit(
        "run_query",
        {
            "text": "SELECT Id FROM Account",
            "kind": "soql",
            "rows": 3,
            "ms": 1.0,
            "error_code": None,
            "error": None,
        },
    )
    rec.emit("submit", {"answer": "A", "reward": 1.0, "scoring": "exact_match", "gold": "A"})
    rec.close("finished", 1.0)
    return rec.path


def _replay(capsys, *args: str) -> tuple[int, str, str]:
    try:
        main(["replay", *args])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_tampered_recording_is_refused_naming_the_line(make_recording, clocks, capsys):
    path = _finished(make_recording, clocks)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[2] = lines[2].replace('"rows":3', '"rows":4')
    path.write_text("".join(lines), encoding="utf-8")
    code, out, err = _replay(capsys, str(path), "--check")
    assert code == 1 and out == ""
    assert err.count("\n") == 1
    assert f"{path}:3: refusing to replay: hash mismatch" in err


def test_missing_org_is_reported_and_events_still_replay(make_recording, clocks, capsys):
    path = _finished(make_recording, clocks)
    code, out, err = _replay(capsys, str(path), "--check")
    assert code == 0
    assert "Warning: org not found: /nowhere/sample.db" in err
    assert "queries and records cannot be re-run" in err
    assert "4 events" in out and "answer 'A', reward 1.0" in out
    code, _, err = _replay(capsys, str(path), "--check", "--strict")
    assert code == 1 and err.startswith("Error: org not found")


def test_changed_org_digest_is_reported(make_recording, clocks, capsys, org, org_path):
    path = _finished(
        make_recording, clocks, org={"path": str(org_path), "digest": "d" * 64, "name": "x"}
    )
    opened, check = open_recorded_org(load(path))
    assert opened is not None and check.status == "changed" and check.available
    assert check.actual == org.digest and check.expected == "d" * 64
    code, out, err = _replay(capsys, str(path), "--check")
    assert code == 0
    assert f"Warning: org {org_path} changed since the recording" in err
    assert "re-run results may differ" in err


def test_org_option_overrides_the_recorded_path(make_recording, clocks, capsys, org, org_path):
    recorded = {"path": "/gone/elsewhere.db", "digest": org.digest, "name": "gone"}
    path = _finished(make_recording, clocks, org=recorded)
    assert open_recorded_org(load(path))[1].status == "missing"
    code, out, err = _replay(capsys, str(path), "--check", "--org", str(org_path))
    assert code == 0 and err == ""
    assert f"org: org {org_path} matches the recording" in out
    code, _, err = _replay(capsys, str(path), "--check", "--org", "/no/such/org.db")
    assert code == 2 and "org file not found" in err


def test_org_found_by_name_when_the_recorded_path_is_gone(make_recording, clocks, org, org_path):
    shutil.copy(org_path, paths.org_path("moved"))
    recording = load(
        _finished(
            make_recording,
            clocks,
            org={"path": "/gone/moved.db", "digest": org.digest, "name": "moved"},
        )
    )
    opened, check = open_recorded_org(recording)
    assert check.ok and Path(opened.path) == paths.org_path("moved")


def test_check_org_without_a_recorded_digest(make_recording, clocks, org):
    recording = load(
        _finished(make_recording, clocks, org={"path": None, "digest": None, "name": None})
    )
    check = check_org(recording, org)
    assert check.status == "unknown" and not check.ok and check.available
    missing = check_org(recording, None)
    assert missing.status == "missing" and "(no path recorded)" in missing.message


def test_truncated_recording_is_refused_like_verify_does_until_repaired(
    make_recording, clocks, capsys
):
    path = _finished(make_recording, clocks)
    data = path.read_bytes()
    path.write_bytes(data[: data.rstrip(b"\n").rfind(b"\n") + 20])  # cut the end line short
    code, out, err = _replay(capsys, str(path), "--check")
    assert code == 1
    assert err.startswith("Error: ") and err.count("\n") == 1
    assert ":5: refusing to replay: truncated final line (partial write) (lines 1-4" in err
    assert f"crmtui verify --repair {path}" in err
    assert main(["verify", "--repair", str(path)]) == 1  # repaired, and now unfinished
    out = capsys.readouterr().out
    assert "repaired (cut 19 bytes of a partial final line)" in out and "UNFINISHED" in out
    code, out, err = _replay(capsys, str(path), "--check")
    assert code == 0 and "3 events" in out


def test_help_text_names_the_keys(capsys):
    code, out, _ = _replay(capsys, "--help")
    assert code == 0
    assert "Space play/pause" in out and "--org PATH|NAME" in out


def test_cli_builds_the_replay_app_at_the_start_event(make_recording, clocks, monkeypatch):
    from crmtui.ui.replay_app import ReplayApp

    launched: list[ReplayApp] = []
    monkeypatch.setattr(ReplayApp, "run", lambda self: launched.append(self))
    path = _finished(make_recording, clocks)
    main(["replay", str(path), "--start", "3"])
    (app,) = launched
    assert app.start == 2 and len(app.source.replay.frames) == 4
    assert app.source.check.status == "missing" and app.source.org is None


def test_changed_org_asks_before_replaying_at_a_terminal(
    make_recording, clocks, monkeypatch, org_path
):
    from click.testing import CliRunner

    from crmtui.cli import cli
    from crmtui.commands import replay as command
    from crmtui.ui.replay_app import ReplayApp

    launched: list[ReplayApp] = []
    monkeypatch.setattr(ReplayApp, "run", lambda self: launched.append(self))
    monkeypatch.setattr(command, "_interactive", lambda: True)
    path = _finished(
        make_recording, clocks, org={"path": str(org_path), "digest": "d" * 64, "name": "x"}
    )
    refused = CliRunner().invoke(cli, ["replay", str(path)], input="n\n")
    assert refused.exit_code == 1 and "Replay on this org anyway?" in refused.output
    assert launched == []
    accepted = CliRunner().invoke(cli, ["replay", str(path)], input="y\n")
    assert accepted.exit_code == 0 and len(launched) == 1
    assert launched[0].source.check.status == "changed"
    CliRunner().invoke(cli, ["replay", str(path), "--yes"])
    assert len(launched) == 2
