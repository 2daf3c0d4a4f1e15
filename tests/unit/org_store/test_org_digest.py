"""The content digest: stable for the same data, sensitive to any change of it."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from crmtui.data.schema import builtin_schema
from crmtui.org.digest import compute_digest
from crmtui.org.store import Org, write_org

from .conftest import Rows, hand_rows, write_raw


def _digest_of(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return compute_digest(conn)
    finally:
        conn.close()


def test_same_content_gives_same_digest_whatever_order_or_meta(tmp_path: Path) -> None:
    a = write_org(
        tmp_path / "a.db", builtin_schema(), hand_rows(), {"created_at": "1", "name": "a"}
    )
    reversed_rows = {
        name: list(reversed(records)) for name, records in reversed(hand_rows().items())
    }
    b = write_org(tmp_path / "b.db", builtin_schema(), reversed_rows, {"created_at": "2"})
    assert a.digest == b.digest
    assert a.digest == _digest_of(a.path) == _digest_of(b.path)


def test_digest_ignores_meta_indexes_and_fts(small_org: Org, tmp_path: Path) -> None:
    copy = tmp_path / "stripped.db"
    shutil.copy(small_org.path, copy)
    conn = sqlite3.connect(copy)
    for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type='index' AND sql IS NOT NULL"
    ).fetchall():
        conn.execute(f'DROP INDEX "{name}"')
    for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name LIKE '\\_fts\\_%' ESCAPE '\\' "
        "AND sql LIKE 'CREATE VIRTUAL%'"
    ).fetchall():
        conn.execute(f'DROP TABLE "{name}"')
    conn.execute("UPDATE _crmtui_meta SET value = 'other' WHERE key IN ('name', 'created_at')")
    conn.commit()
    conn.close()
    assert Org.open(copy).fts_table("Case") is None
    assert _digest_of(copy) == small_org.digest


def test_raw_file_and_written_org_with_same_records_share_the_digest(
    small_org: Org, raw_db: Path
) -> None:
    # The raw file has its columns in another order and no crmtui tables at all.
    assert _digest_of(raw_db) == small_org.digest
    assert Org.open(raw_db).digest == small_org.digest


def _variant(tmp_path: Path, name: str, rows: Rows) -> str:
    return write_org(tmp_path / f"{name}.db", builtin_schema(), rows).digest


def test_changing_one_value_changes_the_digest(small_org: Org, tmp_path: Path) -> None:
    base = small_org.digest
    seen = {base}

    rows = hand_rows()
    rows["Case"][0]["Status"] = "Escalated"
    seen.add(_variant(tmp_path, "value", rows))

    rows = hand_rows()
    rows["Case"][1]["Description"] = None  # was text: NULL must differ from any text
    seen.add(_variant(tmp_path, "null", rows))

    rows = hand_rows()
    rows["Case"][1]["Description"] = ""  # empty string differs from NULL
    seen.add(_variant(tmp_path, "empty", rows))

    rows = hand_rows()
    rows["Issue__c"].append({"Id": "a1MWs0000012u7BMAQ", "Name": "Wrong item received"})
    seen.add(_variant(tmp_path, "added", rows))

    rows = hand_rows()
    rows["CaseHistory__c"][0]["Id"] = "a0HWs000000Ch1zIAC"  # Ids are content too
    seen.add(_variant(tmp_path, "id", rows))

    assert len(seen) == 6


def test_value_boundaries_cannot_collide(tmp_path: Path) -> None:
    # "ab" + "c" and "a" + "bc" concatenate equally; length prefixes keep them apart.
    left = {"Issue__c": [{"Id": "a1M1ab", "Name": "c"}]}
    right = {"Issue__c": [{"Id": "a1M1a", "Name": "bc"}]}
    assert _variant(tmp_path, "l", left) != _variant(tmp_path, "r", right)


def test_duplicate_ids_still_hash_in_a_canonical_order(tmp_path: Path) -> None:
    schema = builtin_schema()
    rows_a = {"Issue__c": [{"Id": "a1M1", "Name": "x"}, {"Id": "a1M1", "Name": "y"}]}
    rows_b = {"Issue__c": [{"Id": "a1M1", "Name": "y"}, {"Id": "a1M1", "Name": "x"}]}
    a = write_raw(tmp_path / "a.db", schema, rows_a)
    b = write_raw(tmp_path / "b.db", schema, rows_b)
    assert _digest_of(a) == _digest_of(b)


def test_values_stored_with_other_types_hash_as_their_text(tmp_path: Path) -> None:
    texts = tmp_path / "texts.db"
    numbers = tmp_path / "numbers.db"
    for path, quantity in ((texts, "15.0"), (numbers, 15.0)):
        conn = sqlite3.connect(path)
        conn.execute('CREATE TABLE "OrderItem" (Id, Quantity)')  # no affinity: REAL stays REAL
        conn.execute('INSERT INTO "OrderItem" VALUES (?, ?)', ("802A", quantity))
        conn.commit()
        conn.close()
    assert _digest_of(texts) == _digest_of(numbers)
