"""write_org + Org.open: layout, indexes, FTS, meta, atomicity and errors."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from crmtui.data.schema import Field, Schema, SObject, builtin_schema
from crmtui.errors import OrgError
from crmtui.org.store import Org, column_layout, searchable_columns, write_org

from .conftest import FIXED_META, Rows


def _plain(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path)


def test_round_trip_keeps_every_value(small_org: Org, rows: Rows) -> None:
    conn = small_org.connect()
    try:
        for obj_name, records in rows.items():
            obj = small_org.schema.require(obj_name)
            columns = column_layout(obj)
            stored = conn.execute(
                f'SELECT {", ".join(columns)} FROM "{obj.name}" ORDER BY Id'
            ).fetchall()
            expected = sorted(
                (tuple(r.get(c) for c in columns) for r in records), key=lambda t: t[0]
            )
            assert stored == expected, obj_name
    finally:
        conn.close()
    assert small_org.count("Case") == 2
    assert small_org.count("case") == 2  # case-insensitive like SOQL


def test_tables_are_text_with_id_first_then_schema_order(small_org: Org) -> None:
    conn = _plain(small_org.path)
    for obj in builtin_schema():
        info = conn.execute(f'PRAGMA table_info("{obj.name}")').fetchall()
        assert [r[1] for r in info] == ["Id"] + [f.name for f in obj.fields if f.name != "Id"]
        assert {r[2] for r in info} == {"TEXT"}
    conn.close()


def test_id_first_even_when_schema_lists_it_later(tmp_path: Path) -> None:
    # CRMArena-Pro schema files list fields alphabetically, Id among them.
    obj = SObject("Lead", (Field("Company"), Field("Id", "id"), Field("Email", "email")))
    org = write_org(tmp_path / "lead.db", Schema([obj]), {"Lead": [{"Id": "00Q1", "Company": "X"}]})
    conn = _plain(org.path)
    assert [r[1] for r in conn.execute('PRAGMA table_info("Lead")')] == ["Id", "Company", "Email"]
    conn.close()


def test_indexes_on_id_and_every_reference(small_org: Org) -> None:
    conn = _plain(small_org.path)
    for obj in builtin_schema():
        indexed = set()
        for (index_name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='index' AND tbl_name=?", (obj.name,)
        ):
            indexed.update(r[2] for r in conn.execute(f'PRAGMA index_info("{index_name}")'))
        assert indexed == {"Id", *(f.name for f in obj.references)}, obj.name
    conn.close()


def test_fts_tables_follow_the_contract(small_org: Org) -> None:
    conn = small_org.connect()
    try:
        for obj in small_org.schema:
            table = small_org.fts_table(obj.name)
            searchable = searchable_columns(obj)
            if not searchable:
                assert table is None
                continue
            assert table == f"_fts_{obj.name}"
            columns = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
            assert columns == ["Id", *searchable]
        assert searchable_columns(small_org.schema.require("Case")) == [
            "Description",
            "Priority",
            "Status",
            "Subject",
        ]
        # rowid of the FTS row is the raw row's rowid; diacritics are folded.
        hits = conn.execute(
            'SELECT f.rowid, f.Id, c.rowid, c.Subject FROM "_fts_Case" f '
            'JOIN "Case" c ON c.rowid = f.rowid WHERE "_fts_Case" MATCH ?',
            ("resume",),
        ).fetchall()
        assert [(h[1], h[3]) for h in hits] == [("500Ws000005Ds1bIAC", "Where is my order?")]
        assert hits[0][0] == hits[0][2]
        # Id is UNINDEXED: searching for an Id finds nothing.
        assert conn.execute(
            'SELECT count(*) FROM "_fts_Case" WHERE "_fts_Case" MATCH ?', ('"500Ws000005Ds1aIAC"',)
        ).fetchone() == (0,)
    finally:
        conn.close()
    assert small_org.has_fts
    assert small_org.fts_table("knowledge__kav") == "_fts_Knowledge__kav"
    assert small_org.fts_table("NoSuchObject") is None


def test_meta_holds_schema_digest_and_passed_values(small_org: Org) -> None:
    meta = small_org.meta
    assert meta["format_version"] == "1"
    assert meta["created_at"] == FIXED_META["created_at"]
    assert meta["source"] == "tests"
    assert meta["name"] == "small" == small_org.name
    assert len(meta["digest"]) == 64 and meta["digest"] == small_org.digest
    assert Schema.from_json(json.loads(meta["schema"])).to_json() == builtin_schema().to_json()
    reopened = Org.open(small_org.path)
    assert reopened.schema.to_json() == builtin_schema().to_json()


def test_extra_meta_such_as_seed_and_scale_is_kept(tmp_path: Path, rows: Rows) -> None:
    org = write_org(
        tmp_path / "built.db", builtin_schema(), rows, {"seed": "7", "scale": "small", "name": "x"}
    )
    assert (org.meta["seed"], org.meta["scale"], org.name) == ("7", "small", "x")


def test_rows_are_streamed_from_generators(tmp_path: Path) -> None:
    consumed = []

    def cases() -> Iterator[dict[str, str]]:
        for i in range(2500):
            consumed.append(i)
            yield {"Id": f"500Ws{i:013d}", "Subject": f"subject {i}"}

    org = write_org(tmp_path / "gen.db", builtin_schema(), {"Case": cases()})
    assert len(consumed) == 2500
    assert org.count("Case") == 2500
    conn = org.connect()
    plan = conn.execute('EXPLAIN QUERY PLAN SELECT * FROM "Case" WHERE Id = ?', ("x",)).fetchall()
    conn.close()
    assert "USING INDEX _idx_Case_Id" in plan[0][3]
    assert org.count("Account") == 0  # absent objects still get an (empty) table


def test_numbers_and_booleans_are_stored_as_text(tmp_path: Path) -> None:
    rows = {
        "OrderItem": [{"Id": "802A", "Quantity": 15.0, "UnitPrice": 476.99}],
        "Product2": [{"Id": "01tA", "IsActive": True}, {"Id": "01tB", "IsActive": False}],
    }
    org = write_org(tmp_path / "n.db", builtin_schema(), rows)
    conn = org.connect()
    assert conn.execute(
        'SELECT Quantity, UnitPrice, typeof(Quantity) FROM "OrderItem"'
    ).fetchone() == (
        "15.0",
        "476.99",
        "text",
    )
    assert conn.execute('SELECT IsActive FROM "Product2" ORDER BY Id').fetchall() == [
        ("1",),
        ("0",),
    ]
    conn.close()


def test_existing_file_is_replaced_atomically_and_no_temp_left(tmp_path: Path, rows: Rows) -> None:
    target = tmp_path / "org.db"
    write_org(target, builtin_schema(), rows, FIXED_META)
    first = target.read_bytes()

    def failing() -> Iterator[dict[str, str]]:
        yield {"Id": "500X"}
        raise RuntimeError("generator died half-way")

    with pytest.raises(RuntimeError):
        write_org(target, builtin_schema(), {"Case": failing()})
    assert target.read_bytes() == first  # the old org is untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["org.db"]

    replaced = write_org(target, builtin_schema(), {"Issue__c": [{"Id": "a1M1", "Name": "x"}]})
    assert replaced.count("Issue__c") == 1 and replaced.count("Case") == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["org.db"]


@pytest.mark.parametrize(
    ("tables", "message"),
    [
        ({"Opportunity": []}, "table 'Opportunity' is not an object of the schema"),
        ({"Case": [{"Id": "500A", "Subjekt": "typo"}]}, "unknown column(s): Subjekt"),
        ({"Case": [{"Id": "500A"}], "case": [{"Id": "500B"}]}, "given twice"),
        ({"Case": [{"Id": "500A", "Subject": {"not": "text"}}]}, "cannot store a value in Case"),
    ],
)
def test_bad_tables_raise_org_error(
    tmp_path: Path, tables: dict[str, list[dict[str, object]]], message: str
) -> None:
    with pytest.raises(OrgError) as err:
        write_org(tmp_path / "bad.db", builtin_schema(), tables)  # type: ignore[arg-type]
    assert message in str(err.value)
    assert not any(tmp_path.iterdir())


def test_info_reports_counts_dates_and_fts(small_org: Org, rows: Rows) -> None:
    info = small_org.info()
    by_name = {o.name: o for o in info.objects}
    assert [o.name for o in info.objects] == builtin_schema().object_names
    assert by_name["Case"].rows == 2
    # Case dates span CreatedDate and ClosedDate.
    assert by_name["Case"].date_min == "2024-03-02T10:15:00.000+0000"
    assert by_name["Case"].date_max == "2024-05-26T06:58:00.000+0000"
    assert by_name["Order"].date_min == by_name["Order"].date_max == "2024-02-20"
    assert by_name["Issue__c"].date_min is None
    assert by_name["OrderItem"].has_fts is False and by_name["Case"].has_fts is True
    assert info.total_rows == sum(len(records) for records in rows.values()) == 20
    assert info.date_range == ("2023-01-01T00:00:00.000+0000", "2025-01-01T00:00:00.000+0000")
    assert info.digest == small_org.digest
    assert info.size == small_org.path.stat().st_size
    assert info.has_fts


def test_count_of_unknown_object_is_an_org_error(small_org: Org) -> None:
    with pytest.raises(OrgError, match="has no object 'Opportunity'"):
        small_org.count("Opportunity")
