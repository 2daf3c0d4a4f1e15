"""A BLOB where text belongs (a damaged org) is shown and serialised safely (issue #35).

The property: whatever bytes a text column holds as a BLOB, ``crmtui query`` prints them as
text in the table and in ``--format json`` (bytes that are not UTF-8 as ``\\xNN``), exit 0,
never ``b'...'`` and never an internal error.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from crmtui.cli import main


@pytest.mark.parametrize("blob", [b"\xc3(", b"ok", b"\x00\xff\x1b[2J"])
def test_a_blob_in_a_text_column(
    fts_org_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], blob: bytes
) -> None:
    org = tmp_path / "damaged.db"
    shutil.copy(fts_org_path, org)
    with sqlite3.connect(org) as conn:
        conn.execute('UPDATE "Case" SET Subject = ? WHERE rowid = 1', (blob,))
    query = "SELECT Id, Subject FROM Case ORDER BY Id LIMIT 50"
    main(["query", "--org", str(org), "--format", "json", query])
    out = capsys.readouterr().out
    subjects = [r["Subject"] for r in json.loads(out)["records"]]
    assert blob.decode("utf-8", "backslashreplace") in subjects
    main(["query", "--org", str(org), query])
    table = capsys.readouterr().out
    assert "b'" not in table and "\x1b" not in table
