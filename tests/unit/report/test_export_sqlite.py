"""``crmtui export --format sqlite``: the example recordings as tables analysts can query."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from crmtui.cli import main
from crmtui.review.export import export_folder

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "recordings"


def test_sqlite_export_holds_what_the_jsonl_export_holds(tmp_path: Path) -> None:
    sqlite_utils = pytest.importorskip("sqlite_utils")
    result = export_folder(EXAMPLES, "sqlite", tmp_path / "results.db")
    lines = export_folder(EXAMPLES, "jsonl", tmp_path / "sessions.jsonl").path.read_text()
    rows = [json.loads(line) for line in lines.splitlines()]
    db = sqlite_utils.Database(result.path)
    assert {"sessions", "events", "queries", "answers", "rewards"} <= set(db.table_names())
    assert db["sessions"].count == result.sessions == len(rows)
    assert db["events"].count == sum(len(r["events"]) for r in rows)
    runs = [e for r in rows for e in r["events"] if e["type"] == "run_query"]
    assert db["queries"].count == len(runs)
    submits = [e for r in rows for e in r["events"] if e["type"] == "submit"]
    assert db["answers"].count == len(submits)
    assert db["rewards"].count == sum(1 for r in rows if r["submitted"])
    # Every row points at its session, and the foreign keys say so.
    assert {fk.other_table for fk in db["queries"].foreign_keys} == {"sessions"}
    orphans = (
        "select count(*) from events where session_id not in (select session_id from sessions)"
    )
    assert db.execute(orphans).fetchone()[0] == 0
    # Full-text search over what was queried and answered.
    word = next(w for w in runs[0]["payload"]["text"].split() if w.isalpha() and len(w) > 3)
    assert list(db["queries"].search(word))
    answer = next(e["payload"]["answer"] for e in submits if e["payload"]["answer"])
    assert list(db["answers"].search(f'"{answer.split()[0]}"'))
    # Rewards match the sessions' own numbers.
    by_id = {r["session_id"]: r["reward"] for r in rows if r["submitted"]}
    assert {r["session_id"]: r["reward"] for r in db["rewards"].rows} == by_id


def test_cli_writes_a_file_sqlite_opens(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sqlite_utils")
    target = tmp_path / "out" / "results.db"
    main(["export", str(EXAMPLES), "--format", "sqlite", "--out", str(target)])
    assert "Exported" in capsys.readouterr().out
    with sqlite3.connect(target) as conn:
        n = conn.execute("select count(*) from sessions where counted").fetchone()[0]
    assert n >= 1
    # Exporting again (--force: it is our own export) replaces the file instead of adding
    # rows twice.
    main(["export", str(EXAMPLES), "--format", "sqlite", "--out", str(target), "--force"])
    with sqlite3.connect(target) as conn:
        assert conn.execute("select count(*) from sessions where counted").fetchone()[0] == n
