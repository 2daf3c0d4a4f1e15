"""An export never replaces what it did not make (issue #35).

The property: for every format and every kind of thing already at ``--out`` (a text file,
someone's database, a symlink, a folder, a FIFO, a device node), ``crmtui export`` either
writes where nothing was, or replaces an earlier export of its own in the same format when
``--force`` is given; otherwise it exits non-zero with one ``Error:`` line and what was there
is byte for byte (or, for a link, target for target) as it was.
"""

from __future__ import annotations

import csv
import os
import sqlite3
from pathlib import Path

import pytest

from crmtui.cli import main
from tests.unit.report import builders as b

FORMATS = ("csv", "jsonl", "sqlite", "hf")


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("rec")
    b.write_session(root, b.HUMAN_A, b.BRI, b.TINY_BRI, start=b.DAY1, session_id="8" * 32)
    return root


def _name(fmt: str) -> str:
    return {"csv": "out.csv", "jsonl": "out.jsonl", "sqlite": "out.db", "hf": "out.parquet"}[fmt]


def _export(
    recordings: Path, fmt: str, out: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, str, str]:
    try:
        main(["export", str(recordings), "--format", fmt, "--out", str(out), *extra])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _refused(code: int, err: str) -> None:
    assert code != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), err


def _foreign(kind: str, path: Path, elsewhere: Path) -> None:
    """Put a thing of ``kind`` that crmtui did not make at ``path``."""
    if kind == "text":
        path.write_text("my notes, not an export\n", "utf-8")
    elif kind == "database":
        with sqlite3.connect(path) as conn:
            conn.execute("create table mine (x)")
            conn.execute("insert into mine values (42)")
    elif kind == "symlink":
        elsewhere.write_text("the link's target\n", "utf-8")
        path.symlink_to(elsewhere)
    elif kind == "folder":
        path.mkdir()
        (path / "keep.txt").write_text("kept", "utf-8")
    elif kind == "fifo":
        os.mkfifo(path)


def _snapshot(path: Path) -> object:
    info = path.lstat()
    if path.is_symlink():
        return ("link", os.readlink(path), Path(os.readlink(path)).read_bytes())
    if path.is_dir():
        return ("dir", sorted(p.name for p in path.iterdir()))
    if path.is_file():
        return ("file", path.read_bytes())
    return ("other", info.st_mode, info.st_ino)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", ["text", "database", "symlink", "folder", "fifo"])
@pytest.mark.parametrize("force", [False, True])
def test_an_export_never_replaces_what_it_did_not_make(
    recordings: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    fmt: str,
    kind: str,
    force: bool,
) -> None:
    if fmt == "hf":
        pytest.importorskip("datasets")
    out = tmp_path / _name(fmt)
    _foreign(kind, out, tmp_path / "target.txt")
    before = _snapshot(out)
    code, stdout, err = _export(recordings, fmt, out, capsys, *(["--force"] if force else []))
    _refused(code, err)
    assert "Exported" not in stdout
    assert _snapshot(out) == before
    assert not out.with_name(out.name + ".partial").exists()


def test_a_device_node_is_refused(
    recordings: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # /dev/null is a character device every machine has; as root the old export replaced
    # such a node with a regular file.
    code, stdout, err = _export(recordings, "csv", Path("/dev/null"), capsys, "--force")
    _refused(code, err)
    assert "is a device" in err and Path("/dev/null").is_char_device()


@pytest.mark.parametrize("fmt", FORMATS)
def test_force_replaces_only_an_earlier_export_of_the_same_format(
    recordings: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    if fmt == "hf":
        pytest.importorskip("datasets")
    out = tmp_path / _name(fmt)
    assert _export(recordings, fmt, out, capsys)[0] == 0
    first = out.read_bytes()
    code, _, err = _export(recordings, fmt, out, capsys)
    _refused(code, err)
    assert "--force" in err and out.read_bytes() == first
    assert _export(recordings, fmt, out, capsys, "--force")[0] == 0
    # Another format's export is not this format's: refused even with --force.
    other = next(f for f in FORMATS if f not in (fmt, "hf"))
    code, _, err = _export(recordings, other, out, capsys, "--force")
    _refused(code, err)
    assert out.exists()


def test_csv_cells_hold_no_raw_control_or_bidi_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "rec"
    hostile = "ok\x1b[2J\x07\u202eevil\x1b]52;c;eA==\x07"
    b.write_session(
        root,
        b.HUMAN_A,
        b.BRI,
        [(1.0, "submit", b.submit(hostile, 0.0, "CA"))],
        start=b.DAY1,
        session_id="9" * 32,
    )
    out = tmp_path / "r.csv"
    assert _export(root, "csv", out, capsys)[0] == 0
    text = out.read_text("utf-8")
    assert not any(ch in text for ch in "\x1b\x07\u202e")
    with out.open(encoding="utf-8", newline="") as handle:
        row = next(csv.DictReader(handle))
    assert row["answer"] == "ok\\x1b[2J\\x07\\u202eevil\\x1b]52;c;eA==\\x07"
