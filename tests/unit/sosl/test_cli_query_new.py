"""``crmtui query`` on a query never asked before (no stored plan): it is parsed and compiled
without lark, the org's object or ``dataclasses``, prints what the ordinary path prints and
fails as it fails, and stores its plan; and it fits an import budget."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from crmtui.query.soql import plan_store
from tests.unit.import_budget import TUI, loaded, run_command
from tests.unit.sosl.test_cli_query_plans import ERRORS, QUERIES, run_main

#: Beyond the stored-plan tests' queries: semi-joins, dates, a fence, literals the parser
#: refuses (a bad date, a number out of range), syntax errors at line 2, TYPEOF, SOSL.
MORE = [
    "SELECT Id FROM Account WHERE Id IN (SELECT AccountId FROM Case) ORDER BY Id LIMIT 2",
    "SELECT Id FROM Case WHERE CreatedDate > 2020-01-01T00:00:00Z AND Status != 'New' "
    "ORDER BY CreatedDate DESC NULLS LAST LIMIT 3",
    "```sql\nSELECT Id FROM Case ORDER BY Id LIMIT 1\n```",
    "SELECT Id FROM Case WHERE CreatedDate = 2024-02-30",
    "SELECT Id FROM Case LIMIT 99999999999999999999999999999999999999999999",
    "SELECT Id FROM Case\nWHERE Status = 'New' AND OR",
    "SELECT Id FROM Case WHERE Status = New",
    "SELECT TYPEOF What WHEN Account THEN Name END FROM Event",
    "SELECT Id FROM Case WHERE Subject = 'é' AND Status IN ('a', 'b') LIMIT 1",
    "FIND {tent} RETURNING Case(Id)",
]


def _ordinary(monkeypatch: pytest.MonkeyPatch) -> None:
    """No plan store, no schema text: the org opened and the query run by `run`."""
    monkeypatch.setattr("crmtui.commands.query_run._run_stored", lambda *args: None)


def _refuse_ordinary(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the ordinary path was taken")

    monkeypatch.setattr("crmtui.org.sample.open_org_or_sample", refuse)


def _plans(home: Path) -> list[Path]:
    return sorted((home / "cache" / plan_store.FOLDER).glob("*.plan"))


@pytest.mark.parametrize("fmt", ["table", "json", "observation"])
def test_a_new_query_prints_and_fails_as_the_ordinary_path_does(
    fmt: str,
    built_org_path: Path,
    crmtui_home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stored = 0
    for text in [*QUERIES, *ERRORS, *MORE]:
        args = ("query", "--org", str(built_org_path), "--format", fmt, text)
        with monkeypatch.context() as patch:
            _ordinary(patch)
            expected = run_main(capsys, *args)
        shutil.rmtree(crmtui_home / "cache" / plan_store.FOLDER, ignore_errors=True)
        with monkeypatch.context() as patch:
            if not text.startswith("FIND"):  # SOSL always takes the ordinary path
                _refuse_ordinary(patch)
            assert run_main(capsys, *args) == expected, text
        stored += expected[0] == 0 and not text.startswith("FIND")
        assert len(_plans(crmtui_home)) == (expected[0] == 0 and not text.startswith("FIND"))
        with monkeypatch.context() as patch:  # and the plan it stored runs alike
            _refuse_ordinary(patch)
            if _plans(crmtui_home):
                assert run_main(capsys, *args) == expected, text
    assert stored >= len(QUERIES)


def test_a_damaged_stored_schema_takes_the_ordinary_path(
    built_org_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A schema text that is not a schema: the org is opened, which reports the damage."""
    import sqlite3

    org = tmp_path / "org.db"
    shutil.copy(built_org_path, org)
    with sqlite3.connect(org) as conn:
        conn.execute("UPDATE _crmtui_meta SET value = '{\"objects\": 3}' WHERE key = 'schema'")
    code, out, err = run_main(capsys, "query", "--org", str(org), "SELECT Id FROM Case")
    assert (code, out) == (1, "") and "invalid stored schema" in err


#: CPU for a query never asked: ~0.075 s at load 9 (a stored plan ~0.06 s, a lean
#: sqlite-utils ~0.18 s; benchmarks/bench_cli.py).
NEW_QUERY_BUDGET_S = 0.25
#: What a new query does without: lark (the tables are generated), click, dataclasses, the
#: org object and the engine's entry points (it compiles and runs the plan itself).
NOT_FOR_A_NEW_QUERY = (
    "click",
    "lark",
    "dataclasses",
    "crmtui.commands.group",
    "crmtui.org.store",
    "crmtui.org.sample",
    "crmtui.query.dispatch",
    "crmtui.query.soql.engine",
    "crmtui.query.grammar",
)


def test_a_new_query_loads_no_lark_no_click_no_dataclasses(
    built_org_path: Path, crmtui_home: Path
) -> None:
    text = "SELECT Id, Subject FROM Case WHERE Status != 'New' ORDER BY Id LIMIT 3"
    plans = crmtui_home / "cache" / plan_store.FOLDER
    cpu, modules, out = run_command(
        "query",
        "--org",
        str(built_org_path),
        text,
        before=lambda: shutil.rmtree(plans, ignore_errors=True),
    )
    assert "3 rows in" in out
    assert len(_plans(crmtui_home)) == 1  # compiled (and stored) by the measured run
    assert "crmtui.query.soql.compiler" in modules  # it was a new query indeed
    assert loaded(modules, (*TUI, "rich", *NOT_FOR_A_NEW_QUERY)) == []
    assert cpu < NEW_QUERY_BUDGET_S, f"crmtui query took {cpu:.2f} s of CPU"
