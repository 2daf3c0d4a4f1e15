"""One name check for every org name: build, import and lookup stay inside CRMTUI_HOME."""

from __future__ import annotations

from pathlib import Path

import pytest

from crmtui import paths
from crmtui.cli import main
from crmtui.data.schema import builtin_schema
from crmtui.errors import ConfigError
from crmtui.org.importer import import_org
from crmtui.org.store import write_org

from .conftest import FIXED_META, hand_rows

BAD_NAMES = [
    "../../etc/x",
    "..",
    "a/b",
    "",
    "-rf",
    ".hidden",
    "name\n",
    "red\x1b[31m",
    "evil\u202egnp.db",
    "tab\there",
    "x" * 101,
    "café",
]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_check_refuses_names_that_are_not_plain_file_names(name: str) -> None:
    with pytest.raises(ConfigError, match="invalid org name") as info:
        paths.check_org_name(name)
    assert "\x1b" not in str(info.value) and "\u202e" not in str(info.value)


@pytest.mark.parametrize("name", ["sample", "full-3", "crmarena_data", "b2b.v2", "A" * 100])
def test_check_accepts_plain_names(name: str) -> None:
    assert paths.check_org_name(name) == name
    assert paths.org_path(name).parent == paths.orgs_dir()


def test_build_with_a_traversing_name_writes_nothing_outside_home(
    tmp_path: Path, crmtui_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["org", "build", "--name", "../../etc/x"])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert err.startswith("Error: invalid org name '../../etc/x'") and err.count("\n") == 1
    assert not any(tmp_path.rglob("x.db")) and not any(tmp_path.rglob("x.tasks.json"))


def test_import_refuses_the_same_names(tmp_path: Path) -> None:
    source = write_org(tmp_path / "src.db", builtin_schema(), hand_rows(), meta=FIXED_META)
    for name in ("../escape", "bad\x07name"):
        with pytest.raises(ConfigError, match="invalid org name"):
            import_org(source.path, name=name)
    assert sorted(p.name for p in paths.orgs_dir().iterdir()) == []


def test_lookup_by_a_bad_name_is_an_error_not_a_path(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["org", "info", "--org", "bad\x1bname"])
    assert info.value.code == 2
    assert "invalid org name 'bad\\x1bname'" in capsys.readouterr().err


def test_list_shows_stored_names_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    meta = {**FIXED_META, "name": "evil\x1b[2J\u202e[bold]x"}
    write_org(paths.orgs_dir() / "plain.db", builtin_schema(), hand_rows(), meta=meta)
    main(["org", "list"])
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out
    assert "evil\\x1b[2J\\u202e[bold]x" in out.replace("\n", "").replace(" ", "")
