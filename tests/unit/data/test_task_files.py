"""Hostile task files: each gives one ``Error:`` line before datasets/pyarrow sees it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from crmtui.cli import main
from crmtui.data.loaders import load_tasks
from crmtui.data.task_files import MAX_DEPTH, nesting_depth
from tests.unit.data.rowkit import sample_rows

HOSTILE: dict[str, tuple[bytes, str]] = {
    # A file holding null used to crash the process inside pyarrow's JSON reader.
    "null.json": (b"null", "holds no rows (null)"),
    "nulls.jsonl": (b"null\nnull\n", "row #1: expected an object, got null"),
    "number.json": (b"3", "holds no rows (a number)"),
    "brackets.json": (b"[" * 100_000 + b"]" * 100_000, f"nested more than {MAX_DEPTH}"),
    "deep-row.jsonl": (
        b'{"idx": 1, "a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n",
        f"nested more than {MAX_DEPTH}",
    ),
    "deep-ish.json": (
        b'[{"idx": 1, "a": ' + b"[" * 40 + b"]" * 40 + b"}]",
        f"row #1 is nested more than {MAX_DEPTH} levels deep",
    ),
    "huge-idx.json": (b'[{"idx": 1' + b"0" * 30 + b"}]", "idx of 31 digits is out of range"),
    "digits.json": (b'[{"idx": 1' + b"0" * 5000 + b"}]", "a number has thousands of digits"),
    "negative.json": (b'[{"idx": -5}]', "idx -5 is out of range"),
    "latin1.json": (b'[{"idx": 1, "query": "caf\xe9"}]', "not UTF-8 text (byte 0xe9 on line 1)"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_file_is_one_error_line(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    content, needle = HOSTILE[name]
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(SystemExit) as info:
        main(["tasks", "list", "--tasks", str(path)])
    err = capsys.readouterr().err
    assert info.value.code == 1
    assert err.startswith("Error: ") and err.count("\n") == 1, err
    assert needle in err
    assert "Traceback" not in err and "Exceeds the limit" not in err


def test_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    rows = sample_rows()
    for suffix, body in (
        (".json", json.dumps(rows)),
        (".jsonl", "\n".join(json.dumps(r) for r in rows)),
    ):
        path = tmp_path / f"bom{suffix}"
        path.write_bytes(b"\xef\xbb\xbf" + body.encode("utf-8"))
        assert len(load_tasks(path)) == len(rows)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_special_files_are_refused_without_reading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "tasks.json"
    os.mkfifo(fifo)  # reading it would block forever
    for source in (str(fifo), "/dev/zero"):
        with pytest.raises(SystemExit):
            main(["tasks", "list", "--tasks", source])
        assert "is not a regular file" in capsys.readouterr().err


def test_nesting_depth_is_iterative() -> None:
    value: list = []
    for _ in range(50_000):
        value = [value]
    assert nesting_depth(value, limit=10**6) == 50_001
    assert nesting_depth({"a": [1, {"b": None}]}) == 3
    assert nesting_depth("x") == 0
