"""A damaged org file, or a data folder that cannot be written, is one ``Error:`` line.

Flipped bytes in the table list (sqlite3 decodes names itself and raised UnicodeDecodeError),
in a stored value, a missing object table, a read-only or full disk under ``org build``: every
one is named, none is an internal error, and no crash log is written for them.
"""

from __future__ import annotations

import errno
import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from crmtui.cli import main
from crmtui.org.store import Org


def _error_line(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(list(argv))
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("Error: ") and "internal error" not in err[0], err[0]
    return int(info.value.code), err[0]


def _no_crash_logs(home: Path) -> None:
    assert not list((home / "logs").glob("crash-*")) if (home / "logs").exists() else True


def test_a_table_name_that_is_not_utf8_is_named(
    small_org: Org, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    damaged = tmp_path / "damaged.db"
    data = bytearray(small_org.path.read_bytes())
    # sqlite_master's record: type, name, tbl_name, rootpage, sql; the name made not UTF-8.
    at = data.index(b"tableContactContact")
    data[at + len(b"table")] = 0xFF
    damaged.write_bytes(bytes(data))
    query = ("query", "--org", str(damaged), "SELECT Id FROM Case")
    for argv in (("org", "info", str(damaged)), query):
        code, line = _error_line(capsys, *argv)
        assert code == 1 and "not UTF-8 text (the file is damaged)" in line


def test_a_missing_object_table_is_named_by_org_info(
    small_org: Org, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "nocase.db"
    shutil.copyfile(small_org.path, copy)
    conn = sqlite3.connect(copy)
    conn.execute('DROP TABLE "Case"')
    conn.commit()
    conn.close()
    code, line = _error_line(capsys, "org", "info", str(copy))
    assert code == 1 and "no such table: Case" in line


def test_a_stored_schema_of_the_wrong_shape_is_named(
    small_org: Org, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "schema.db"
    shutil.copyfile(small_org.path, copy)
    conn = sqlite3.connect(copy)
    (text,) = conn.execute("SELECT value FROM _crmtui_meta WHERE key = 'schema'").fetchone()
    damaged = text.replace('"name"', '"nbme"', 1)  # one flipped byte in a key: valid JSON
    conn.execute("UPDATE _crmtui_meta SET value = ? WHERE key = 'schema'", (damaged,))
    conn.commit()
    conn.close()
    code, line = _error_line(capsys, "org", "info", str(copy))
    assert code == 1 and "has an invalid stored schema (KeyError" in line


@pytest.mark.parametrize("seed", range(12))
def test_flipped_bytes_anywhere_never_make_an_internal_error(
    small_org: Org, tmp_path: Path, capsys: pytest.CaptureFixture[str], seed: int
) -> None:
    rng = random.Random(seed)
    data = bytearray(small_org.path.read_bytes())
    for _ in range(300):
        at = rng.randrange(100, len(data))  # the 100-byte file header stays (else: not SQLite)
        data[at] ^= 0xFF
    damaged = tmp_path / "flipped.db"
    damaged.write_bytes(bytes(data))
    for argv in (
        ["org", "info", str(damaged)],
        ["query", "--org", str(damaged), "SELECT Id, Subject FROM Case"],
    ):
        try:
            main(argv)
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
        captured = capsys.readouterr()
        assert code in (0, 1), (argv, captured.err)
        assert "internal error" not in captured.err and "Traceback" not in captured.err
        assert "\x1b" not in captured.err + captured.out


def test_org_build_into_a_home_that_cannot_exist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    monkeypatch.setenv("CRMTUI_HOME", str(blocker / "home"))
    code, line = _error_line(capsys, "org", "build", "--name", "t")
    assert code == 2 and "cannot create the data folder" in line and "CRMTUI_HOME" in line


def test_org_build_on_a_read_only_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CRMTUI_HOME", str(tmp_path / "home"))
    real_touch = Path.touch

    def read_only(self: Path, *args: object, **kwargs: object) -> None:
        if self.name.endswith(".tmp"):
            raise OSError(errno.EROFS, "Read-only file system", str(self))
        real_touch(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "touch", read_only)
    code, line = _error_line(capsys, "org", "build", "--name", "t")
    assert code == 1 and line.endswith("t.db: Read-only file system")
    assert not list((tmp_path / "home" / "orgs").glob("*.tmp"))
    _no_crash_logs(tmp_path / "home")


def test_an_environment_oserror_that_escapes_is_one_line_without_a_crash_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The CLI's last resort: a full disk is the machine's state, not a bug to report."""
    monkeypatch.setenv("CRMTUI_HOME", str(tmp_path / "home"))
    import crmtui.commands.org as org_command

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", "/x/y.db")

    monkeypatch.setattr(org_command, "build_org", full, raising=False)
    monkeypatch.setattr("crmtui.org.build.build_org", full)
    code, line = _error_line(capsys, "org", "build", "--name", "t")
    assert code == 1 and line == "Error: cannot use /x/y.db: No space left on device"
    _no_crash_logs(tmp_path / "home")
