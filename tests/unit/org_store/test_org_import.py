"""import_org: validation against a schema, copying into the data dir, source untouched."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from crmtui import paths
from crmtui.data.schema import Schema, builtin_schema
from crmtui.errors import ConfigError, OrgError, SchemaError
from crmtui.org.importer import import_org
from crmtui.org.store import Org, column_layout

from .conftest import hand_rows


def _fingerprint(path: Path) -> tuple[str, int]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


def test_import_copies_into_the_data_dir_with_indexes_fts_and_meta(raw_db: Path) -> None:
    warnings: list[str] = []
    org = import_org(raw_db, on_warning=warnings.append)
    assert warnings == []
    assert org.path == paths.org_path("crmarena_data")
    assert org.name == "crmarena_data"
    assert org.meta["source"] == str(raw_db.resolve())
    assert org.meta["format_version"] == "1"
    assert org.has_fts and org.fts_table("EmailMessage") == "_fts_EmailMessage"
    assert org.schema.to_json() == builtin_schema().to_json()
    # Same records, so the same digest as the raw file computes.
    assert org.digest == Org.open(raw_db).digest
    conn = org.connect()
    columns = [r[1] for r in conn.execute('PRAGMA table_info("Case")')]
    assert columns == column_layout(builtin_schema().require("Case"))
    assert conn.execute(
        'SELECT Subject FROM "Case" WHERE Id = ?', ("500Ws000005Ds1aIAC",)
    ).fetchone() == ("Broken zipper",)
    conn.close()


def test_import_never_modifies_the_source(raw_db: Path) -> None:
    before = _fingerprint(raw_db)
    import_org(raw_db, name="copy")
    import_org(raw_db, name="copy", force=True)
    assert _fingerprint(raw_db) == before
    # No -journal/-wal beside the source; crmtui-home is the test's data dir.
    assert sorted(p.name for p in raw_db.parent.iterdir()) == [raw_db.name, "crmtui-home"]


def test_broken_file_lists_every_problem_in_one_error(raw_writer: Callable[..., Path]) -> None:
    broken = raw_writer(
        "broken.db",
        drop={"Order": ["*"], "Case": ["Status", "Subject"], "Issue__c": ["Id"]},
    )
    with pytest.raises(OrgError) as err:
        import_org(broken)
    message = str(err.value)
    assert "does not match the expected schema" in message
    assert "missing table Order" in message
    assert "table Case is missing column(s): Status, Subject" in message
    assert "table Issue__c has no Id column" in message
    assert "\n" not in message
    assert not paths.org_path("broken").exists()


def test_missing_unlisted_columns_and_extras_are_warnings(raw_writer: Callable[..., Path]) -> None:
    path = raw_writer(
        "upstream.db",
        drop={"Knowledge__kav": ["PublishStatus", "Language"], "EmailMessage": ["ToAddress"]},
        extra_tables={"Notes": ["Id", "Body"]},
    )
    conn = sqlite3.connect(path)
    conn.execute('ALTER TABLE "Case" ADD COLUMN "Channel" TEXT')
    conn.commit()
    conn.close()
    warnings: list[str] = []
    org = import_org(path, name="upstream", on_warning=warnings.append)
    assert warnings == [
        "table Case has extra column(s) kept: Channel",
        "table EmailMessage lacks unlisted column(s) ToAddress; queries using them will fail",
        "table Knowledge__kav lacks PublishStatus, Language; every record is given "
        "PublishStatus = 'Online', Language = 'en_US' (their only values upstream)",
        "extra table Notes kept (not in the schema; types inferred)",
    ]
    assert "Notes" in org.schema and org.count("Notes") == 0
    assert org.schema.require("Case").field_names[-1] == "Channel"
    assert org.schema.require("EmailMessage").field("ToAddress") is None
    # Salesforce always has these two: the copy holds them, with upstream's only values.
    language = org.schema.require("Knowledge__kav").field("Language")
    assert language is not None and language.constant is None


def test_existing_name_needs_force(raw_db: Path) -> None:
    first = import_org(raw_db, name="org1")
    with pytest.raises(ConfigError, match="already exists.*--force"):
        import_org(raw_db, name="org1")
    again = import_org(raw_db, name="org1", force=True)
    assert again.digest == first.digest


def test_bad_names_and_sources_are_clear_errors(raw_db: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="invalid org name"):
        import_org(raw_db, name="../escape")
    with pytest.raises(OrgError, match="org file not found"):
        import_org(tmp_path / "missing.db")
    not_db = tmp_path / "x.db"
    not_db.write_text("hello")
    with pytest.raises(OrgError, match="not an SQLite database"):
        import_org(not_db)
    with pytest.raises(SchemaError, match="schema file not found"):
        import_org(raw_db, schema=tmp_path / "no-schema.json")


def test_importing_an_org_over_itself_is_refused(raw_db: Path) -> None:
    org = import_org(raw_db, name="self")
    with pytest.raises(ConfigError, match="already the org 'self'"):
        import_org(org.path, name="self", force=True)


def _pro_like_schema_file(tmp_path: Path) -> Path:
    """An upstream-format schema: the 16 objects plus Pro-only objects and fields."""
    rows = []
    for obj in builtin_schema():
        rows.append({"object": obj.name, "fields": {f.name: f.description for f in obj.fields}})
    rows[1]["fields"]["Industry"] = "Industry of the business account"
    rows += [
        {
            "object": "Opportunity",
            "fields": {
                "Id": "Opportunity Id",
                "AccountId": "Account of the deal. References Account object",
                "Amount": "Deal amount",
                "CloseDate": "Expected close date, 'YYYY-MM-DD'",
                "StageName": "Sales stage",
            },
        },
        {
            "object": "Lead",
            "fields": {"Id": "Lead Id", "Company": "Company name", "Email": "Lead email"},
        },
    ]
    path = tmp_path / "pro_schema.json"
    path.write_text(json.dumps(rows))
    return path


def test_pro_like_file_imports_with_a_schema_file(
    tmp_path: Path, raw_writer: Callable[..., Path]
) -> None:
    schema_file = _pro_like_schema_file(tmp_path)
    schema = Schema.load(schema_file)
    rows = hand_rows()
    rows["Account"][0]["Industry"] = "Retail"
    rows["Opportunity"] = [
        {
            "Id": "006Ws000000Op1aIAC",
            "AccountId": "001Ws000003Bq1aIAC",
            "Amount": "12000.0",
            "CloseDate": "2024-07-01",
            "StageName": "Prospecting",
        }
    ]
    rows["Lead"] = [{"Id": "00QWs000000Ld1aIAC", "Company": "Acme", "Email": "a@acme.test"}]
    src = raw_writer("crmarenapro_b2b_data.db", schema, rows)
    before = _fingerprint(src)

    # Against the builtin schema the Pro-only parts are extras: kept, with warnings.
    warnings: list[str] = []
    plain = import_org(src, name="plain", on_warning=warnings.append)
    assert "extra table Opportunity kept (not in the schema; types inferred)" in warnings
    assert "table Account has extra column(s) kept: Industry" in warnings
    assert plain.schema.require("Opportunity").require_field("AccountId").reference_to == "Account"

    org = import_org(src, name="b2b", schema=schema_file)
    assert _fingerprint(src) == before
    assert org.schema.object_names == schema.object_names
    opp = org.schema.require("Opportunity")
    assert opp.require_field("AccountId").reference_to == "Account"
    assert opp.require_field("Amount").type == "currency"
    assert opp.require_field("CloseDate").type == "date"
    assert opp.key_prefix == "006"
    assert org.count("Opportunity") == 1
    assert org.info().objects[-1].name == "Lead"
    assert org.digest == Org.open(src).digest


def test_real_pro_schema_file_drives_a_27_object_import(
    shared_dir: Path, tmp_path: Path, raw_writer: Callable[..., Path]
) -> None:
    schema_file = shared_dir / "crmarenapro_b2b_schema.json"
    schema = Schema.load(schema_file)
    assert len(schema) == 27
    src = raw_writer("b2b.db", schema, {"Lead": [{"Id": "00QWs000000Ld1aIAC", "Company": "Acme"}]})
    org = import_org(src, name="b2b-real", schema=schema_file)
    assert len(org.schema) == 27
    assert org.count("Lead") == 1
    assert {o.name for o in org.schema} == set(schema.object_names)


def test_reimporting_a_crmtui_org_uses_its_stored_schema(tmp_path: Path) -> None:
    from crmtui.data.schema import Field, SObject
    from crmtui.org.store import write_org

    lead = SObject("Lead", (Field("Id", "id"), Field("Company", description="Company name")))
    src = write_org(
        tmp_path / "leads.db", Schema([lead]), {"Lead": [{"Id": "00Q1", "Company": "A"}]}
    )
    warnings: list[str] = []
    org = import_org(src.path, name="leads2", on_warning=warnings.append)
    assert warnings == []
    assert org.schema.to_json() == src.schema.to_json()
    assert org.digest == src.digest
