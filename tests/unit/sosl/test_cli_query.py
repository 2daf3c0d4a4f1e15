"""``crmtui query``: output formats, stdin, and the one-line error contract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from crmtui.cli import cli, main

SOQL = "SELECT Id, Title FROM Knowledge__kav WHERE Language = 'en_US' ORDER BY Title LIMIT 2"


def invoke(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["query", *args], input=input)
    return result.exit_code, result.stdout, result.stderr


def test_table_output_has_columns_rows_and_footer(fts_org_path: Path) -> None:
    code, out, _ = invoke("--org", str(fts_org_path), SOQL)
    assert code == 0
    assert "Title" in out and "Blender warranty" in out and "How to clean a blender" in out
    assert "2 rows in" in out and " ms" in out


def test_table_flattens_relationship_columns(fts_org_path: Path) -> None:
    code, out, _ = invoke(
        "--org",
        str(fts_org_path),
        "SELECT LastName, Account.ShippingCity FROM Contact "
        "WHERE AccountId != null ORDER BY LastName",
    )
    assert code == 0
    assert "Account.ShippingCity" in out and "Berlin" in out


def test_table_of_sosl_shows_object_type(fts_org_path: Path) -> None:
    code, out, _ = invoke("--org", str(fts_org_path), "FIND {toaster} RETURNING Product2(Name)")
    assert code == 0
    assert "attributes.type" in out and "Product2" in out and "ToastMaster" in out
    assert "1 row in" in out


def test_count_footer_shows_total_size(fts_org_path: Path) -> None:
    code, out, _ = invoke("--org", str(fts_org_path), "SELECT COUNT() FROM Case")
    assert code == 0
    assert "0 rows (totalSize 2)" in out


def test_json_is_salesforce_shaped(fts_org_path: Path) -> None:
    code, out, _ = invoke("--org", str(fts_org_path), "--format", "json", SOQL)
    assert code == 0
    body = json.loads(out)
    assert body["totalSize"] == 2 and body["done"] is True
    assert body["records"][0]["attributes"]["type"] == "Knowledge__kav"


def test_json_sosl(scan_org_path: Path) -> None:
    code, out, _ = invoke(
        "--org",
        str(scan_org_path),
        "--format",
        "json",
        "FIND {blender} IN ALL FIELDS RETURNING Product2(Id, Name, Description)",
    )
    assert code == 0
    assert json.loads(out)["searchRecords"][0]["Name"] == "PowerBlend 3000"


def test_observation_format(fts_org_path: Path) -> None:
    code, out, _ = invoke("--org", str(fts_org_path), "--format", "observation", SOQL)
    assert code == 0
    assert out.strip().startswith("[{'Id': 'ka0")
    assert "attributes" not in out


def test_query_from_stdin(fts_org_path: Path) -> None:
    code, out, _ = invoke(
        "--org",
        str(fts_org_path),
        "--format",
        "json",
        "-",
        input="SELECT Id FROM Product2\nWHERE IsActive = true\n",
    )
    assert code == 0
    assert json.loads(out)["totalSize"] == 2


def test_today_makes_relative_dates_deterministic(fts_org_path: Path) -> None:
    text = "SELECT Id FROM Case WHERE CreatedDate = LAST_N_DAYS:3"
    code, out, _ = invoke(
        "--org", str(fts_org_path), "--today", "2024-03-02", "--format", "json", text
    )
    assert code == 0 and json.loads(out)["totalSize"] == 1


def test_query_error_is_one_line_with_code(fts_org_path: Path) -> None:
    code, out, err = invoke("--org", str(fts_org_path), "SELECT Id FROM Case WHERE")
    assert code == 1
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("MALFORMED_QUERY: ")
    assert "line 1, column" in lines[0]


def test_sosl_error_code(fts_org_path: Path) -> None:
    code, _, err = invoke("--org", str(fts_org_path), "FIND {a}")
    assert code == 1
    assert err.startswith("MALFORMED_SEARCH: search term must be longer than one character")


def test_invalid_field_error(fts_org_path: Path) -> None:
    code, _, err = invoke("--org", str(fts_org_path), "SELECT Nmae FROM Case")
    assert code == 1 and err.startswith("INVALID_FIELD: ")


def test_bad_today_and_missing_org_go_through_main(
    fts_org_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["query", "--org", str(fts_org_path), "--today", "tomorrow", "SELECT Id FROM Case"])
    assert info.value.code != 0
    assert "--today must be a date" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["query", "--org", "/nonexistent/org.db", "SELECT Id FROM Case"])
    assert info.value.code != 0
    assert capsys.readouterr().err.startswith("Error: ")


def test_main_prints_error_code_line(
    fts_org_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["query", "--org", str(fts_org_path), "SELECT FROM Case"])
    assert info.value.code == 1
    assert capsys.readouterr().err.startswith("MALFORMED_QUERY: ")


def test_help_describes_every_option() -> None:
    code, out, _ = invoke("--help")
    assert code == 0
    for word in (
        "--org",
        "--today",
        "--format",
        "QUERY",
        "standard input",
        "table",
        "json",
        "observation",
    ):
        assert word in out


def test_raw_org_file_is_left_untouched(scan_org_path: Path) -> None:
    before = scan_org_path.read_bytes()
    code, _, _ = invoke("--org", str(scan_org_path), "FIND {blender}")
    assert code == 0
    assert scan_org_path.read_bytes() == before


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("SELECT Id FROM Case WHERE " + "(" * 100_000, "MALFORMED_QUERY: SOQL statements cannot"),
        ("SELECT Id FROM Case LIMIT " + "9" * 5000, "NUMBER_OUTSIDE_VALID_RANGE: LIMIT must be"),
        ("FIND {" + "x" * 1_000_000 + "}", "MALFORMED_SEARCH: SOSL statements cannot be longer"),
        ("FIND {" + " ".join(["late"] * 150) + "} RETURNING Case(Id OFFSET 9999999999)", "NUMBER"),
    ],
)
def test_hostile_queries_are_one_line_each(
    fts_org_path: Path, text: str, start: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["query", "--org", str(fts_org_path), text])
    err = capsys.readouterr().err
    assert info.value.code == 1 and err.startswith(start) and err.count("\n") == 1


def test_timeout_option(fts_org_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["query", "--org", str(fts_org_path), "--timeout", "1e-9", "SELECT Id FROM Case"])
    assert info.value.code == 1
    assert capsys.readouterr().err == (
        "QUERY_TIMEOUT: Your query request was running for too long.\n"
    )
    code, out, _ = invoke("--org", str(fts_org_path), "--timeout", "5", "SELECT COUNT() FROM Case")
    assert code == 0 and "totalSize 2" in out
