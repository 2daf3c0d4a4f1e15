"""``crmtui query`` with stored plans prints what the engine prints, fails as it fails, and
treats a damaged cache, a changed org file or an unusable CRMTUI_HOME as no cache; the
command lines it reads without click mean what they mean to click."""

from __future__ import annotations

import io
import json
import random
import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from crmtui.cli import cli, main
from crmtui.commands.query import query
from crmtui.commands.query_run import read_args
from crmtui.query.soql import plan_store

QUERIES = [
    "SELECT Id, Subject, Status, CreatedDate FROM Case ORDER BY Id LIMIT 5",
    "SELECT Id, Account.Name, Owner.Name FROM Case ORDER BY Id LIMIT 3",
    "SELECT Id, (SELECT Id, Subject FROM Cases ORDER BY Id LIMIT 2) FROM Account ORDER BY Id "
    "LIMIT 3",
    "SELECT Status, COUNT(Id) n FROM Case GROUP BY Status ORDER BY Status",
    "SELECT COUNT() FROM Case WHERE CreatedDate = LAST_N_DAYS:3650",
    "SELECT Name, IsActive FROM Product2 ORDER BY Name LIMIT 4",
]
ERRORS = [
    "SELECT Nope FROM Case",
    "SELECT Id FROM Case WHERE",
    "SELECT Id FROM Nope__c",
    "SELECT Id FROM Case WHERE CreatedDate = 2024-13-01",
]


def _timeless(text: str) -> str:
    return re.sub(r" in \d+\.\d ms", " in _ ms", text)


def run_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``crmtui ARGS`` through :func:`crmtui.cli.main` (the path without click)."""
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, _timeless(out), err


def run_click(home: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, str]:
    """``crmtui ARGS`` through the click group, with an empty cache of its own."""
    monkeypatch.setenv("CRMTUI_HOME", str(home))
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, _timeless(result.stdout), result.stderr


def _plans(home: Path) -> list[Path]:
    return sorted((home / "cache" / plan_store.FOLDER).glob("*.plan"))


def _no_ordinary_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make opening the org the ordinary way fail: what still works ran a stored plan."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the ordinary path was taken")

    monkeypatch.setattr("crmtui.org.sample.open_org_or_sample", refuse)


@pytest.mark.parametrize("fmt", ["table", "json", "observation"])
def test_a_stored_plan_prints_what_the_engine_prints(
    fmt: str,
    built_org_path: Path,
    crmtui_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for n, text in enumerate(QUERIES, start=1):
        args = ("query", "--org", str(built_org_path), "--format", fmt, text)
        first = run_main(capsys, *args)
        assert first[0] == 0, first
        assert len(_plans(crmtui_home)) == n  # stored for next time
        with monkeypatch.context() as patch:
            _no_ordinary_path(patch)
            assert run_main(capsys, *args) == first
        with monkeypatch.context() as patch:
            assert run_click(tmp_path / f"fresh-{fmt}-{n}", patch, *args) == first


@pytest.mark.parametrize("text", ERRORS)
def test_a_rejected_query_fails_the_same_way_each_time_and_stores_nothing(
    text: str,
    built_org_path: Path,
    crmtui_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    args = ("query", "--org", str(built_org_path), text)
    first = run_main(capsys, *args)
    assert first[0] == 1 and first[1] == "" and first[2].count("\n") == 1
    assert re.match(r"[A-Z_]+: ", first[2])
    assert run_main(capsys, *args) == first
    assert _plans(crmtui_home) == []
    assert run_click(tmp_path / "fresh", monkeypatch, *args) == first


def test_a_damaged_cache_is_compiled_again(
    built_org_path: Path, crmtui_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ("query", "--org", str(built_org_path), "--format", "json", QUERIES[2])
    first = run_main(capsys, *args)
    (plan,) = _plans(crmtui_home)
    good = plan.read_bytes()
    rng = random.Random(37)
    for damaged in (b"", good[:-3], bytes(rng.randrange(256) for _ in range(len(good)))):
        plan.write_bytes(damaged)
        assert run_main(capsys, *args) == first
        assert plan.read_bytes() == good  # stored again, whole


def test_a_changed_org_file_is_read_as_it_is_now(
    built_org_path: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """New data shows through a stored plan; a changed schema never runs the old plan."""
    org = tmp_path / "org.db"
    shutil.copy(built_org_path, org)
    with sqlite3.connect(org) as conn:
        (case_id,) = conn.execute('SELECT Id FROM "Case" ORDER BY Id LIMIT 1').fetchone()
    args = (
        "query",
        "--org",
        str(org),
        "--format",
        "json",
        f"SELECT Subject FROM Case WHERE Id = '{case_id}'",
    )
    run_main(capsys, *args)
    with sqlite3.connect(org) as conn:
        conn.execute('UPDATE "Case" SET Subject = ? WHERE Id = ?', ("Changed since", case_id))
    code, out, _ = run_main(capsys, *args)
    assert code == 0 and json.loads(out)["records"][0]["Subject"] == "Changed since"

    with sqlite3.connect(org) as conn:
        (text,) = conn.execute("SELECT value FROM _crmtui_meta WHERE key = 'schema'").fetchone()
        schema = json.loads(text)
        for obj in schema["objects"]:
            if obj["name"] == "Case":
                obj["fields"] = [f for f in obj["fields"] if f["name"] != "Subject"]
        conn.execute(
            "UPDATE _crmtui_meta SET value = ? WHERE key = 'schema'", (json.dumps(schema),)
        )
    code, out, err = run_main(capsys, *args)
    assert (code, out) == (1, "") and err.startswith("INVALID_FIELD: ")
    assert run_click(tmp_path / "fresh", monkeypatch, *args) == (code, out, err)


@pytest.mark.parametrize("blocked", ["home", "cache"])
def test_an_unusable_crmtui_home_means_no_cache_and_the_same_output(
    blocked: str,
    built_org_path: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A CRMTUI_HOME that cannot be created, or a plan folder that cannot be written (a file
    in the way, which stops root too): the query runs as ever, every time."""
    args = ("query", "--org", str(built_org_path), QUERIES[1])
    expected = run_click(tmp_path / "fresh", monkeypatch, *args)
    wall = tmp_path / "wall"
    wall.write_text("a file, not a folder")
    if blocked == "home":
        monkeypatch.setenv("CRMTUI_HOME", str(wall / "home"))
    else:
        home = tmp_path / "home"
        (home / "cache").mkdir(parents=True)
        (home / "cache" / plan_store.FOLDER).write_text("in the way")
        monkeypatch.setenv("CRMTUI_HOME", str(home))
    for _ in range(2):
        assert run_main(capsys, *args) == expected


def test_the_query_from_standard_input_takes_the_same_path(
    built_org_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ("query", "--org", str(built_org_path), QUERIES[0])
    expected = run_main(capsys, *args)
    for _ in range(2):
        stdin = io.TextIOWrapper(io.BytesIO(("\ufeff" + QUERIES[0]).encode()), "utf-8")
        monkeypatch.setattr("sys.stdin", stdin)
        assert run_main(capsys, *args[:-1], "-") == expected


TOKENS = [
    "--org", "--org=x.db", "--org=", "x.db", "--today", "2024-05-01", "--today=bad",
    "--format", "--format=json", "json", "observation", "JSON", "--timeout", "--timeout=2.5",
    "0", "-1", "nan", "inf", " 3 ", "1e2", "--", "-", "--help", "-h", "--fo", "--org=-x",
    "SELECT Id FROM Case", "FIND {x}", "",
]  # fmt: skip


def test_a_command_line_read_without_click_means_what_it_means_to_click() -> None:
    """Seeded command lines: whenever :func:`read_args` takes one, click parses it without
    an error into the very same parameters (everything else is left to click)."""
    rng = random.Random(37)
    taken = 0
    for _ in range(3000):
        args = [rng.choice(TOKENS) for _ in range(rng.randrange(1, 6))]
        mine = read_args(args)
        if mine is None:
            continue
        taken += 1
        ctx = query.make_context("query", list(args))
        assert ctx.params == mine, args
    assert taken > 100  # the test saw the fast path, not only refusals


def test_help_and_usage_errors_are_still_clicks(
    built_org_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_main(capsys, "query", "--help")
    assert code == 0 and "Usage: crmtui query" in out
    code, _, err = run_main(capsys, "query", "--format", "yaml", "SELECT Id FROM Case")
    assert code == 2 and "Invalid value for '--format'" in err
    code, _, err = run_main(capsys, "query", "--timeout", "0", "SELECT Id FROM Case")
    assert code == 2 and "--timeout" in err
