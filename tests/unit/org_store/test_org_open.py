"""Org.open: read-only access, validation errors, and raw upstream files without meta."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from crmtui.data.schema import Field, Schema, SObject, builtin_schema
from crmtui.errors import OrgError
from crmtui.org.store import Org, open_org


def _fingerprint(path: Path) -> tuple[str, int, int]:
    stat = path.stat()
    return hashlib.sha256(path.read_bytes()).hexdigest(), stat.st_mtime_ns, stat.st_size


def test_connections_are_read_only_and_file_bytes_never_change(small_org: Org) -> None:
    before = _fingerprint(small_org.path)
    org = Org.open(small_org.path)
    conn = org.connect()
    try:
        assert conn.execute('SELECT count(*) FROM "Case"').fetchone() == (2,)
        for statement in (
            "INSERT INTO \"Case\" (Id) VALUES ('500new')",
            "UPDATE \"Case\" SET Status = 'Closed'",
            'DELETE FROM "Issue__c"',
            "CREATE TABLE scratch (x)",
            "UPDATE _crmtui_meta SET value = 'x' WHERE key = 'name'",
        ):
            with pytest.raises(sqlite3.OperationalError, match="readonly"):
                conn.execute(statement)
    finally:
        conn.close()
    org.info()
    org.count("Account")
    assert _fingerprint(small_org.path) == before


def test_raw_file_is_never_touched_by_open_and_digest(raw_db: Path) -> None:
    before = _fingerprint(raw_db)
    org = Org.open(raw_db)
    assert len(org.digest) == 64
    org.info()
    assert _fingerprint(raw_db) == before
    assert sorted(p.name for p in raw_db.parent.iterdir()) == [raw_db.name]  # no -journal/-wal


def test_raw_layout_without_meta_uses_builtin_field_definitions(raw_db: Path) -> None:
    org = Org.open(raw_db)
    assert org.meta == {}
    assert org.name == "crmarena_data"
    assert org.has_fts is False and org.fts_table("Case") is None
    assert org.schema.object_names == builtin_schema().object_names
    case = org.schema.require("Case")
    assert case.field_names[0] == "Id"
    assert case.key_prefix == "500"
    assert case.require_field("ClosedDate").type == "datetime"
    assert case.require_field("AccountId").reference_to == "Account"
    assert case.require_field("Subject").description == "One-line subject of the case"
    assert org.count("Case") == 2


def test_raw_layout_extra_columns_and_tables_are_inferred(
    raw_writer: Callable[..., Path],
) -> None:
    lead = SObject(
        "Lead",
        (
            Field("Id", "id"),
            Field("Company"),
            Field("ConvertedAccountId"),
            Field("CreatedDate"),
            Field("IsConverted"),
        ),
    )
    schema = Schema([*builtin_schema(), lead])
    rows = {"Lead": [{"Id": "00QWs000001Ld1aIAC", "Company": "Acme", "IsConverted": "0"}]}
    path = raw_writer("pro.db", schema, rows)
    conn = sqlite3.connect(path)
    conn.execute('ALTER TABLE "Account" ADD COLUMN "Industry" TEXT')
    conn.execute('ALTER TABLE "Case" ADD COLUMN "ProductId__c" TEXT')
    conn.commit()
    conn.close()

    org = Org.open(path)
    assert org.schema.object_names[-1] == "Lead"
    inferred = org.schema.require("Lead")
    assert inferred.key_prefix == "00Q"  # from the first Id
    assert inferred.field_names[0] == "Id"
    assert inferred.require_field("CreatedDate").type == "datetime"
    assert inferred.require_field("IsConverted").type == "boolean"
    assert inferred.require_field("Company").type == "string"
    assert org.schema.require("Account").require_field("Industry").type == "string"
    assert org.schema.require("Account").require_field("Phone").type == "phone"
    assert org.count("Lead") == 1


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(OrgError, match="org file not found"):
        Org.open(tmp_path / "nope.db")


def test_empty_file_is_a_clear_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    with pytest.raises(OrgError, match="org file is empty"):
        Org.open(empty)


def test_non_sqlite_file_is_a_clear_error(tmp_path: Path) -> None:
    text = tmp_path / "tasks.db"
    text.write_text('{"not": "a database"}')
    with pytest.raises(OrgError, match="not an SQLite database"):
        Org.open(text)


def test_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(OrgError, match="not a file"):
        Org.open(tmp_path)


def test_database_without_tables_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "blank.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x)")
    conn.execute("DROP TABLE t")  # leaves a valid, table-less SQLite file
    conn.commit()
    conn.close()
    with pytest.raises(OrgError, match="contains no tables"):
        Org.open(path)


def test_table_without_id_is_not_an_org(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(OrgError, match="table 'notes' has no Id column"):
        Org.open(path)


def test_corrupt_stored_schema_is_an_error(small_org: Org, tmp_path: Path) -> None:
    conn = sqlite3.connect(small_org.path)
    conn.execute("UPDATE _crmtui_meta SET value = '{broken' WHERE key = 'schema'")
    conn.commit()
    conn.close()
    with pytest.raises(OrgError, match="invalid stored schema"):
        Org.open(small_org.path)


def test_open_org_by_name_and_by_path(small_org: Org, crmtui_home: Path) -> None:
    from crmtui import paths
    from crmtui.errors import ConfigError

    named = paths.org_path("mine")
    named.write_bytes(small_org.path.read_bytes())
    assert open_org("mine").path == named
    assert open_org(small_org.path).digest == small_org.digest
    assert open_org(str(small_org.path)).name == "small"
    with pytest.raises(ConfigError, match="no org named 'other'"):
        open_org("other")


def test_paths_with_uri_special_characters_open(small_org: Org, tmp_path: Path) -> None:
    # The read-only connection is a file: URI, so '?', '#' and '%' must be escaped.
    odd = tmp_path / "my org #1 ?50%.db"
    odd.write_bytes(small_org.path.read_bytes())
    org = Org.open(odd)
    assert org.count("Case") == 2 and org.name == "small"


def test_unreadable_file_is_a_clear_error(small_org: Org, tmp_path: Path) -> None:
    import os

    locked = tmp_path / "locked.db"
    locked.write_bytes(small_org.path.read_bytes())
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):  # root ignores permissions
            pytest.skip("running with privileges that bypass file permissions")
        with pytest.raises(OrgError, match="cannot read org file"):
            Org.open(locked)
    finally:
        locked.chmod(0o644)
