"""``crmtui query`` loads what a query needs and no more: no Textual, no Rich (its table is
drawn plainly), no ``regex``; and a one-line query fits an import-time budget."""

from __future__ import annotations

from pathlib import Path

from tests.unit.import_budget import TUI, loaded, run_command

#: CPU for the whole ``crmtui query`` process (interpreter, imports, query, table): ~0.13 s
#: on the 2-core dev machine at load 7; Textual alone would add ~0.25 s, Rich ~0.06 s.
QUERY_BUDGET_S = 0.35


def test_a_one_line_query_loads_no_tui_no_rich_and_fits_its_budget(fts_org_path: Path) -> None:
    cpu, modules, out = run_command(
        "query", "--org", str(fts_org_path), "SELECT Id, Title FROM Knowledge__kav LIMIT 2"
    )
    assert "2 rows in" in out
    assert loaded(modules, (*TUI, "rich", "regex")) == []
    assert cpu < QUERY_BUDGET_S, f"crmtui query took {cpu:.2f} s of CPU"


def test_json_output_does_not_load_the_table_drawing(fts_org_path: Path) -> None:
    _, modules, out = run_command(
        "query", "--org", str(fts_org_path), "--format", "json", "SELECT Id FROM Case LIMIT 1"
    )
    assert '"totalSize": 1' in out
    assert loaded(modules, (*TUI, "rich", "crmtui.commands.plain_table")) == []


#: CPU for a query whose plan is stored: ~0.06 s at load 10 (a lean sqlite-utils: ~0.16 s).
STORED_PLAN_BUDGET_S = 0.2
#: What running a stored plan does without: click, the parser and compiler, schema objects.
NOT_FOR_A_STORED_PLAN = (
    "click",
    "lark",
    "dataclasses",
    "crmtui.commands.group",
    "crmtui.query.soql.parser",
    "crmtui.query.soql.compiler",
    "crmtui.query.dispatch",
    "crmtui.data.schema",
    "crmtui.org.store",
)


def test_a_stored_plan_loads_no_click_no_parser_no_schema(built_org_path: Path) -> None:
    """The first run compiles and stores the plan; the measured second one runs it."""
    cpu, modules, out = run_command(
        "query", "--org", str(built_org_path), "SELECT Id, Subject FROM Case LIMIT 3"
    )
    assert "3 rows in" in out
    assert loaded(modules, (*TUI, "rich", *NOT_FOR_A_STORED_PLAN)) == []
    assert cpu < STORED_PLAN_BUDGET_S, f"crmtui query took {cpu:.2f} s of CPU"
