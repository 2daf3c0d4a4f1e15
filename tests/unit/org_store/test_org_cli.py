"""``crmtui org`` commands through the real CLI entry points."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from crmtui import paths
from crmtui.cli import cli, main
from crmtui.commands.org import org as org_group
from crmtui.data.schema import builtin_schema
from crmtui.org.store import Org, write_org

from .conftest import FIXED_META, hand_rows


def _run(*args: str) -> click.testing.Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _fail(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    return int(exit_info.value.code or 0), capsys.readouterr().err


def test_every_org_command_and_option_has_help() -> None:
    result = _run("org", "--help")
    assert result.exit_code == 0
    for name in ("build", "import", "info", "list"):
        assert name in result.output
    for name, command in org_group.commands.items():
        assert command.help, name
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"{name} {param.name}"
        sub = _run("org", name, "--help")
        assert sub.exit_code == 0
        assert command.help.splitlines()[0] in sub.output


def test_import_info_and_list(raw_db: Path) -> None:
    result = _run("org", "import", str(raw_db), "--name", "upstream")
    assert result.exit_code == 0, result.output
    org = Org.open(paths.org_path("upstream"))
    assert "Imported 16 objects, 20 rows as 'upstream'" in result.output
    assert f"Digest: {org.digest}" in result.output

    info = _run("org", "info", "--org", "upstream")
    assert info.exit_code == 0, info.output
    case_line = next(line for line in info.output.splitlines() if " Case " in line)
    assert "2024-03-02" in case_line and "2024-05-26" in case_line and "yes" in case_line
    assert f"Digest:     {org.digest}" in info.output
    assert "FTS:        yes" in info.output
    assert f"Source:     {raw_db.resolve()}" in info.output

    listing = _run("org", "list")
    assert listing.exit_code == 0
    row = next(line for line in listing.output.splitlines() if "upstream" in line)
    assert " 16 " in row and " 20 " in row


def test_info_on_a_raw_file_by_path(raw_db: Path) -> None:
    result = _run("org", "info", "--org", str(raw_db))
    assert result.exit_code == 0, result.output
    assert "FTS:        no (search scans tables)" in result.output
    assert "raw file (no crmtui metadata)" in result.output


def test_list_when_empty_and_with_a_damaged_file() -> None:
    empty = _run("org", "list")
    assert "No orgs in" in empty.output
    paths.org_path("junk").write_text("not sqlite")
    listing = _run("org", "list")
    assert "invalid: not an SQLite database" in listing.output.replace("\n", " ").replace("│", "")


def test_import_errors_are_one_line(
    capsys: pytest.CaptureFixture[str], raw_writer: Callable[..., Path]
) -> None:
    broken = raw_writer("broken.db", drop={"Case": ["*"]})
    code, err = _fail(capsys, "org", "import", str(broken))
    assert code == 1
    assert err.startswith("Error: ") and "missing table Case" in err
    assert err.count("\n") == 1

    good = raw_writer("good.db")
    assert main(["org", "import", str(good)]) is None
    code, err = _fail(capsys, "org", "import", str(good))
    assert code == 2 and "already exists" in err and "--force" in err
    assert main(["org", "import", str(good), "--force"]) is None


def test_import_warnings_go_to_stderr(raw_writer: Callable[..., Path]) -> None:
    path = raw_writer("extra.db", extra_tables={"Notes": ["Id", "Body"]})
    result = CliRunner().invoke(cli, ["org", "import", str(path)], catch_exceptions=False)
    assert result.exit_code == 0
    assert "Warning: extra table Notes kept" in result.stderr
    assert "Warning" not in result.stdout


def test_import_with_schema_option(tmp_path: Path, raw_db: Path) -> None:
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(builtin_schema().dumps())
    result = _run("org", "import", str(raw_db), "--schema", str(schema_file), "--name", "s")
    assert result.exit_code == 0, result.output
    assert Org.open(paths.org_path("s")).schema.to_json() == builtin_schema().to_json()


def test_info_on_a_missing_org_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _fail(capsys, "org", "info", "--org", "nothere")
    assert code == 2 and err.startswith("Error: no org named 'nothere'")


@dataclass
class _Result:
    path: Path
    tasks_path: Path
    counts: dict[str, int]
    seconds: float
    digest: str


def test_build_uses_defaults_and_prints_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, Any]] = []

    def build_org(out: Path, **kwargs: Any) -> _Result:
        calls.append({"out": out, **kwargs})
        kwargs["progress"]("writing Case", 0.5)
        org = write_org(out, builtin_schema(), hand_rows(), FIXED_META)
        counts = {o.name: org.count(o.name) for o in org.schema}
        return _Result(out, out.with_suffix(".tasks.json"), counts, 1.25, org.digest)

    module = types.ModuleType("crmtui.org.build")
    module.build_org = build_org  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "crmtui.org.build", module)

    result = _run("org", "build")
    assert result.exit_code == 0, result.output
    assert calls[0]["out"] == paths.org_path("sample")
    assert (calls[0]["seed"], calls[0]["scale"], calls[0]["name"]) == (7, "small", "sample")
    assert "Time:   1.2 s" in result.output
    assert f"Digest: {Org.open(paths.org_path('sample')).digest}" in result.output
    assert "CaseHistory__c" in result.output and "20" in result.output

    again = _run("org", "build", "--seed", "3", "--scale", "full")
    assert again.exit_code == 0
    assert calls[1]["out"] == paths.org_path("full-3") and calls[1]["name"] == "full-3"


def test_build_refuses_to_overwrite_without_force(capsys: pytest.CaptureFixture[str]) -> None:
    paths.org_path("sample").write_text("existing")
    code, err = _fail(capsys, "org", "build")
    assert code == 2 and "already exists; pass --force" in err
    assert paths.org_path("sample").read_text() == "existing"


def test_build_rejects_unknown_scale() -> None:
    result = CliRunner().invoke(cli, ["org", "build", "--scale", "huge"])
    assert result.exit_code == 2 and "huge" in result.output


def test_build_with_the_real_generator(tmp_path: Path) -> None:
    """End to end with crmtui.org.build (skipped until that module lands)."""
    pytest.importorskip("crmtui.org.build")
    out = tmp_path / "built.db"
    result = _run("org", "build", "--out", str(out), "--seed", "7")
    assert result.exit_code == 0, result.output
    org = Org.open(out)
    assert f"Digest: {org.digest}" in result.output
    assert org.meta["format_version"] == "1"
    assert org.count("Case") > 0 and "Case" in result.output


def _task_rows(ids: list[str]) -> list[dict[str, Any]]:
    return [
        {
            "idx": n,
            "answer": agent,
            "task": "handle_time",
            "metadata": {"required": "- Today's date: 2024-05-26", "optional": ""},
            "reward_metric": "exact_match",
            "query": f"Which agent closed cases fastest? Consider agent {agent}.",
        }
        for n, agent in enumerate(ids)
    ]


def test_info_takes_the_org_positionally(raw_db: Path) -> None:
    assert _run("org", "import", str(raw_db), "--name", "upstream").exit_code == 0
    by_name = _run("org", "info", "upstream")
    assert by_name.exit_code == 0, by_name.output
    assert by_name.output == _run("org", "info", "--org", "upstream").output
    assert "Tasks:      none of its own" in by_name.output


def test_import_keeps_tasks_that_belong_to_the_org(raw_db: Path, tmp_path: Path) -> None:
    import json

    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps(_task_rows(["005Ws000001AgT1IAK", "005Ws000001AgT2IAK"])))
    result = _run("org", "import", str(raw_db), "--name", "withtasks", "--tasks", str(tasks))
    assert result.exit_code == 0, result.output
    kept = paths.org_path("withtasks").with_suffix(".tasks.json")
    assert f"Tasks:  {kept}" in result.output.replace("\n", "")
    assert [row["idx"] for row in json.loads(kept.read_text())] == [0, 1]
    assert f"Tasks:      {kept}" in _run("org", "info", "withtasks").output.replace("\n", "")


def test_import_refuses_tasks_of_another_org(
    raw_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps(_task_rows(["005Ws000009ZZZZIA4", "005Ws000009ZZZYIA4"])))
    code, err = _fail(capsys, "org", "import", str(raw_db), "--name", "x", "--tasks", str(tasks))
    assert code == 2 and err.startswith("Error: ") and "not kept" in err
    assert not paths.org_path("x").with_suffix(".tasks.json").exists()
