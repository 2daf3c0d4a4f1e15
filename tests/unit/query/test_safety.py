"""Robustness and safety: only QueryError escapes; the org file can never change."""

from __future__ import annotations

import contextlib
import hashlib
import random
import sqlite3
import sys
import threading
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import crmtui.query
from crmtui.errors import CrmtuiError
from crmtui.query import QueryError, QueryResult, compile_soql, execute_soql, run
from crmtui.query.soql.engine import schema_and_connection

from .conftest import TODAY, C, FixtureOrg

MALFORMED = [
    "",
    "   \n\t ",
    "SELECT",
    "SELECT Id FROM",
    "SELECT Id FROM Case WHERE",
    "SELECT Id FROM Case WHERE Subject = 'unterminated",
    "SELECT * FROM Case",
    "DROP TABLE Case",
    "SELECT Id FROM Case; DROP TABLE Case",
    "DELETE FROM Case",
    "UPDATE Case SET Status = 'x'",
    "SELECT Id\x00 FROM Case",
    "\x00\x00\x00",
    "SELECT Id FROM Case WHERE " + "(" * 2000 + "Status = 'New'" + ")" * 2000,
    "(" * 2000,
    ")" * 2000,
    "SELECT Id FROM Case WHERE Subject = '" + "x" * 100_000 + "'",
    "SELECT " + ", ".join(["Id"] * 30_000) + " FROM Case",
    "SELECT Id FROM Case WHERE Id IN (" + ", ".join(["'x'"] * 5) + ")",
    "SELECT Id FROM Case WHERE Status = 'New' AND",
    "SELECT Id FROM Case LIMIT -1",
    "SELECT Id FROM Case LIMIT 99999999999999999999999",
    "SELECT Id FROM Case ORDER BY",
    "SELECT Id FROM Case GROUP BY",
    "SELECT Id, FROM Case",
    "SELECT Id FROM Case WHERE CreatedDate = 9999-99-99T99:99:99Z",
    "SELECT Id FROM Case WHERE Subject = '\\u0000'",
    "SELECT Id FROM Foo__c",
    "SELECT Id FROM _crmtui_meta",
    "SELECT Id FROM sqlite_master",
    "SELECT (SELECT (SELECT Id FROM Cases) FROM Cases) FROM Account",
    "SELECT Id FROM Case WHERE Id IN (SELECT Id FROM Case WHERE Id IN (SELECT Id FROM Case "
    "WHERE Subject = 'x'))",
    "FINDX {x}",
    "SELECT Id FROM Case WHERE Subject = 'a' || 'b'",
    'SELECT Id FROM Case WHERE Subject = "x"',
    "SELECT Id FROM Case WHERE Subject = 'x' --comment",
    "SELECT Id FROM Case /* c */",
    "SELECT Account.Owner.Contact.Account.Owner.Contact.Id FROM Case",
    "SELECT Id FROM Case WHERE CreatedDate = LAST_N_DAYS:99999999999",
    "SELECT 𝔘nicode FROM Case",
]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("text", MALFORMED, ids=range(len(MALFORMED)))
def test_malformed_inputs_raise_query_error_only(org: FixtureOrg, text: str) -> None:
    try:
        execute_soql(org, text, today=TODAY)
    except QueryError as err:
        assert isinstance(err, CrmtuiError)
        assert err.code and err.message
        assert str(err).startswith(f"{err.code}: {err.message}")
    # Some inputs are valid SOQL (e.g. a semi-join in a semi-join); they just must not crash.


def test_non_text_input(org: FixtureOrg) -> None:
    with pytest.raises(QueryError):
        execute_soql(org, None, today=TODAY)  # type: ignore[arg-type]


def test_seeded_token_soup_only_raises_query_error(org: FixtureOrg) -> None:
    vocab = [
        "SELECT",
        "FROM",
        "WHERE",
        "AND",
        "OR",
        "NOT",
        "IN",
        "LIKE",
        "GROUP",
        "BY",
        "HAVING",
        "ORDER",
        "LIMIT",
        "OFFSET",
        "NULLS",
        "FIRST",
        "DESC",
        "Id",
        "Subject",
        "Case",
        "Account.Name",
        "COUNT(Id)",
        "COUNT()",
        "(",
        ")",
        ",",
        "=",
        "!=",
        "<",
        ">=",
        "'x'",
        "5",
        "-1.5",
        "TODAY",
        "LAST_N_DAYS:3",
        "2024-01-01",
        "2024-01-01T00:00:00Z",
        "null",
        "true",
        "CreatedDate",
        "Status",
        "'",
        "\\",
        "\x00",
        ";",
        "*",
        "Cases",
        "SUM(Quantity)",
    ]
    rng = random.Random(1234)
    for _ in range(400):
        words = rng.choices(vocab, k=rng.randint(0, 14))
        if rng.random() < 0.5:
            words = ["SELECT", rng.choice(["Id", "Subject", "COUNT()"]), "FROM", "Case", *words]
        with contextlib.suppress(QueryError):
            execute_soql(org, " ".join(words), today=TODAY)


def test_queries_never_change_the_org_file(org: FixtureOrg, org_file: Path) -> None:
    before = _digest(org_file)
    attempts = [
        "SELECT Id FROM Case WHERE Subject = '\\' ; DROP TABLE Case; --'",
        "SELECT Id FROM Case WHERE Subject = '\\'); DELETE FROM \"Case\"; --'",
        "SELECT Id FROM Case WHERE Status IN ('a', 'b\\'); DROP TABLE \"Case\"; --')",
        "SELECT Id FROM Case WHERE Subject LIKE '%\\'; ATTACH DATABASE \\'x\\' AS y; --%'",
        "DROP TABLE Case",
        "SELECT Id FROM Case; DELETE FROM Case",
        "SELECT Id, (SELECT Id FROM Cases) FROM Account",
        "SELECT Status, COUNT(Id) FROM Case GROUP BY Status",
    ]
    for text in attempts:
        with contextlib.suppress(QueryError):
            execute_soql(org, text, today=TODAY)
    assert _digest(org_file) == before
    assert execute_soql(org, "SELECT COUNT() FROM Case", today=TODAY).total_size == 12


def test_engine_connection_refuses_writes(org: FixtureOrg) -> None:
    _, conn = schema_and_connection(org)
    with pytest.raises(sqlite3.Error):
        conn.execute('DELETE FROM "Case"')


def test_one_connection_per_thread_per_org(org_file: Path) -> None:
    from crmtui.data.schema import builtin_schema

    fresh = FixtureOrg(org_file, builtin_schema())
    for _ in range(3):
        execute_soql(fresh, "SELECT Id FROM Case LIMIT 1", today=TODAY)
    assert fresh.connections == 1
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            execute_soql(fresh, "SELECT Id FROM Case LIMIT 1", today=TODAY)
            execute_soql(fresh, "SELECT Id FROM Case LIMIT 2", today=TODAY)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert not errors
    assert fresh.connections == 2


def test_connection_schema_pair(org_file: Path) -> None:
    from crmtui.data.schema import builtin_schema

    conn = sqlite3.connect(f"file:{org_file}?mode=ro", uri=True)
    try:
        result = execute_soql((conn, builtin_schema()), "SELECT COUNT() FROM Case", today=TODAY)
    finally:
        conn.close()
    assert result.total_size == 12


def test_plan_cache(org: FixtureOrg) -> None:
    text = "SELECT Id FROM Case WHERE CreatedDate = TODAY"
    first = compile_soql(org.schema, text, today=TODAY)
    assert compile_soql(org.schema, text, today=TODAY) is first
    other = compile_soql(org.schema, text, today=TODAY.replace(day=1))
    assert other is not first and other.params != first.params


def test_run_dispatches_find_to_sosl(org: FixtureOrg, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, str, Any]] = []

    def execute_sosl(org: Any, text: str, *, today: Any = None) -> QueryResult:
        calls.append((org, text, today))
        return QueryResult(kind="sosl", records=[], total_size=0)

    fake = types.ModuleType("crmtui.query.sosl")
    fake.execute_sosl = execute_sosl  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "crmtui.query.sosl", fake)
    monkeypatch.setattr(crmtui.query, "sosl", fake, raising=False)
    result = run(org, "  find {tent} IN ALL FIELDS RETURNING Product2(Id)", today=TODAY)
    assert result.kind == "sosl" and result.to_salesforce() == {"searchRecords": []}
    assert calls == [(org, "  find {tent} IN ALL FIELDS RETURNING Product2(Id)", TODAY)]
    assert run(org, f"SELECT Id FROM Case WHERE Id = '{C[0]}'", today=TODAY).kind == "soql"


@pytest.mark.parametrize(
    ("text", "code", "message", "position"),
    [
        (
            "SELECT Foo FROM Case",
            "INVALID_FIELD",
            "No such column 'Foo' on entity 'Case'. If you are attempting to use a custom field, "
            "be sure to append the '__c' after the custom field name. Please reference your WSDL "
            "or the describe call for the appropriate names.",
            (1, 8),
        ),
        (
            "SELECT Id FROM Foo",
            "INVALID_TYPE",
            "sObject type 'Foo' is not supported. If you are attempting to use a custom object, "
            "be sure to append the '__c' after the entity name. Please reference your WSDL or the "
            "describe call for the appropriate names.",
            (1, 16),
        ),
        (
            "SELECT Id,\n  Account.Foo FROM Case",
            "INVALID_FIELD",
            "No such column 'Foo' on entity 'Account'. If you are attempting to use a custom "
            "field, be sure to append the '__c' after the custom field name. Please reference "
            "your WSDL or the describe call for the appropriate names.",
            (2, 3),
        ),
        (
            "SELECT Acount.Name FROM Case",
            "INVALID_FIELD",
            "Didn't understand relationship 'Acount' in field path. If you are attempting to use "
            "a custom relationship, be sure to append the '__r' after the custom relationship "
            "name. Please reference your WSDL or the describe call for the appropriate names.",
            (1, 8),
        ),
        (
            "SELECT Id, (SELECT Id FROM Foos) FROM Account",
            "INVALID_TYPE",
            "Didn't understand relationship 'Foos' in FROM part of query call. If you are "
            "attempting to use a custom relationship, be sure to append the '__r' after the "
            "custom relationship name. Please reference your WSDL or the describe call for the "
            "appropriate names.",
            (1, 28),
        ),
        ("SELECT Id, Id FROM Case", "MALFORMED_QUERY", "duplicate field selected: Id", (1, 12)),
        (
            "SELECT A.B.C.D.E.F.G FROM Case",
            "MALFORMED_QUERY",
            "SOQL statements cannot query more than 5 levels of parent relationships: "
            "'A.B.C.D.E.F.G'",
            (1, 8),
        ),
    ],
)
def test_error_codes_messages_positions(
    q: Callable[[str], QueryResult],
    text: str,
    code: str,
    message: str,
    position: tuple[int, int],
) -> None:
    with pytest.raises(QueryError) as info:
        q(text)
    err = info.value
    assert (err.code, err.message, (err.line, err.column)) == (code, message, position)
    assert str(err) == f"{code}: {message} at line {position[0]}, column {position[1]}"


def test_generated_shaper_never_embeds_names() -> None:
    from crmtui.query.soql.plan import Output
    from crmtui.query.soql.shaping import shape
    from crmtui.query.soql.values import converter, is_identity

    evil = "x'}; import os; os.remove('/'); {'"
    conv = converter("double")
    outputs = [
        Output(evil, (), (), (), 1, conv, is_identity(conv)),
        Output("Name", (evil + "2",), ("Evil\n'Type",), (3,), 2, converter("string"), True),
    ]
    records = shape([("id1", "2.5", "n", "pid")], "Obj'\"", outputs)
    assert records == [
        {
            "attributes": {"type": "Obj'\"", "url": "/services/data/v60.0/sobjects/Obj'\"/id1"},
            evil: 2.5,
            evil + "2": {
                "attributes": {
                    "type": "Evil\n'Type",
                    "url": "/services/data/v60.0/sobjects/Evil\n'Type/pid",
                },
                "Name": "n",
            },
        }
    ]
