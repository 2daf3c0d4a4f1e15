"""The types that needed a join, solved without SOQL: list views over related fields.

A CRM professional filters Cases by the product of their order item, summarises them by
month or by their account's state, and totals line items by the owner of an opportunity
whose contract was signed in a period, all in list views and the compute tool's report.
Each test plays one instance with keys only (``tests/ui/annotator.py``) and checks that it
earns reward 1, that the recording holds no console query at all, and that every browse
step and summary carries the SOQL it is equivalent to.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crmtui.config import PlayConfig
from crmtui.data.tasktypes import abbreviation
from crmtui.factory import build_play_app
from crmtui.org.solvers.periods import MONTH_NAMES
from crmtui.record import BROWSE_TYPES
from crmtui.record.verify import load, verify
from crmtui.review.replay import replay
from tests.ui.annotator import Annotator

SIZE = (100, 30)  # small: every dialog redraws the screen under it


@pytest.fixture(scope="module")
def b2b_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from crmtui.org.build import build_org

    out = tmp_path_factory.mktemp("b2b-org") / "sample-b2b.db"
    build_org(out, seed=7, scale="small", name="sample-b2b", org_type="b2b")
    return out


@pytest.fixture(scope="module")
def b2b_workspace(b2b_path: Path) -> Any:
    from crmtui.data.loaders import load_tasks
    from crmtui.org.store import Org
    from crmtui.play.workspace import Workspace

    tasks = load_tasks(str(b2b_path.with_suffix(".tasks.json")), via_datasets=False)
    return Workspace(org=Org.open(b2b_path), tasks=tasks, tasks_label="sample-b2b")


def _gold(inst: Any) -> str | None:
    """The one gold value (Pro's answers are one-item lists), None for none or a tie."""
    answer = inst.answer
    if isinstance(answer, list):
        answer = answer[0] if len(answer) == 1 else None
    return answer if isinstance(answer, str) and answer != "None" else None


def _pick(workspace: Any, solutions: dict[str, Any], solver: str) -> tuple[Any, dict[str, Any]]:
    """The first instance of ``solver`` with one gold value (not None, no tie)."""
    for inst in workspace.tasks:
        entry = solutions.get(str(inst.idx))
        single = _gold(inst) is not None
        if entry and entry["solver"] == solver and single:
            return inst, entry
    pytest.skip(f"no single-answer {solver} instance")


def _day(moment: str) -> str:
    return moment[:10]


def _rows(table: Any) -> list[list[Any]]:
    return [list(row) for row in table.raw_rows]


async def _monthly_trend(a: Annotator, inst: Any, entry: dict[str, Any]) -> None:
    p = entry["params"]
    await a.open_object("Case")
    await a.add_filter("OrderItemId__r.Product2Id", "=", p["product_id"])
    await a.add_filter("CreatedDate", ">=", _day(p["start"]))
    await a.add_filter("CreatedDate", "<", _day(p["end"]))
    table = await a.compute(group="month(CreatedDate)", aggregate="count")
    # Choosing count counts rows, open cases too (not the durations the form started on).
    spec = a.app.screen.last_run.spec
    assert spec.field is None and not spec.is_duration
    await a.cursor_to_column(table, 1)
    await a.press("s", "s")  # most cases first
    month = _rows(table)[0][0]
    await a.close_dialog()
    await a.answer_by_typing(MONTH_NAMES[int(month[5:7]) - 1])


async def _best_region(a: Annotator, inst: Any, entry: dict[str, Any]) -> None:
    p = entry["params"]
    await a.open_object("Case")
    await a.add_filter("Status", "=", "Closed")
    await a.add_filter("CreatedDate", ">=", _day(p["start"]))
    await a.add_filter("CreatedDate", "<", _day(p["end"]))
    await a.add_filter("Account.ShippingState", "!=", "null")
    table = await a.compute(group="Account.ShippingState")  # avg(ClosedDate - CreatedDate)
    await a.cursor_to_column(table, 2)
    await a.press("s")  # fastest first
    await a.copy_cell(table, 0, 0)
    await a.close_dialog()
    await a.answer_with_register()


async def _sales_amount(a: Annotator, inst: Any, entry: dict[str, Any]) -> None:
    p = entry["params"]
    signed = f"Opportunity.ContractID__r.{p['signed_field']}"
    await a.open_object("OpportunityLineItem")
    await a.choose_columns("Opportunity.OwnerId", signed)
    await a.add_filter(signed, ">=", _day(p["start"]))
    await a.add_filter(signed, "<", _day(p["end"]))
    table = await a.compute(group="Opportunity.OwnerId", aggregate="sum", measure="TotalPrice")
    await a.cursor_to_column(table, 2)
    await a.press("s")
    if p["mode"] == "max":
        await a.press("s")
    await a.copy_cell(table, 0, 0)
    await a.close_dialog()
    await a.answer_with_register()


async def _lead_routing(a: Annotator, inst: Any, entry: dict[str, Any]) -> None:
    state = entry["params"]["state"]
    # 1. The territory whose description lists the state, and its agents.
    await a.open_object("UserTerritory2Association")
    await a.choose_columns("Territory2.Description")
    await a.add_filter("Territory2.Description", "contains", state)
    table = a.play.query_one("#records-table")
    at = table.columns_names.index("UserId")
    agents = {row[at] for row in table.raw_rows}
    # 2. Accepted quotes per opportunity owner.
    await a.open_object("Quote")
    await a.add_filter("Status", "=", "Accepted")
    counts = await a.compute(group="Opportunity.OwnerId", aggregate="count")
    accepted = {row[0]: row[1] for row in _rows(counts)}
    await a.close_dialog()
    best = max(accepted.get(agent, 0) for agent in agents)
    tied = sorted(agent for agent in agents if accepted.get(agent, 0) == best)
    if len(tied) > 1:
        # 3. Fewest open leads among the tied.
        await a.open_object("Lead")
        await a.add_filter("IsConverted", "=", "false")
        await a.add_filter("Status", "!=", "Closed")
        counts = await a.compute(group="OwnerId", aggregate="count")
        open_leads = {row[0]: row[1] for row in _rows(counts)}
        await a.close_dialog()
        fewest = min(open_leads.get(agent, 0) for agent in tied)
        tied = [agent for agent in tied if open_leads.get(agent, 0) == fewest]
    await a.answer_by_typing(tied[0])


# Top issue takes MTA's path (cases by their order item's product) grouped by IssueId__c:
# tests/unit/play/test_list_views.py holds that summary to its SOQL.
CRMARENA = {"MTA": _monthly_trend, "BRI": _best_region}
PRO = {"sales_amount": _sales_amount, "lead_routing": _lead_routing}
SOLVERS = {"MTA": "monthly_trend", "BRI": "best_region"}


async def _play(workspace: Any, tmp_path: Path, clock: Any, wall: Any, inst: Any, script, entry):
    config = PlayConfig(
        annotator="crm-pro", recordings=tmp_path / "recordings", fsync=False, idx=inst.idx
    )
    app = build_play_app(config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        a = Annotator(pilot)
        await a.started()
        await script(a, inst, entry)
        reward = await a.submit()
        assert reward == 1.0, f"idx {inst.idx}: gold {inst.answer!r}"
        path = a.play.session.path
    report = verify(path)
    assert report.ok and report.finished, report.problem
    events = load(path).events
    kinds = [e.type for e in events]
    assert "run_query" not in kinds  # no SOQL typed at all
    assert "compute" in kinds or "filter" in kinds
    for event in events:
        if event.type in BROWSE_TYPES and event.type not in ("back", "forward"):
            assert event.payload["query"].startswith("SELECT"), event.type
        if event.type == "compute" and event.payload["spec"]["start"] is None:
            assert event.payload["summary_query"].startswith("SELECT")
    final = replay(load(path)).frames[-1]
    assert final.submission is not None and final.submission.answer == _gold(inst)
    return events


@pytest.mark.parametrize("code", list(CRMARENA))
async def test_a_join_type_is_solved_without_soql(
    code: str, workspace: Any, sample_org_path: Path, tmp_path: Path, clock: Any, wall: Any
) -> None:
    solutions = json.loads(sample_org_path.with_suffix(".solutions.json").read_text())
    inst, entry = _pick(workspace, solutions, SOLVERS[code])
    assert abbreviation(inst.task) == code
    events = await _play(workspace, tmp_path, clock, wall, inst, CRMARENA[code], entry)
    filters = [e.payload for e in events if e.type == "filter"]
    if code == "MTA":
        assert filters[0]["field"] == "OrderItemId__r.Product2Id"
        assert "OrderItemId__r.Product2Id = " in filters[0]["query"]


@pytest.mark.parametrize("solver", list(PRO))
async def test_a_pro_join_type_is_solved_without_soql(
    solver: str, b2b_workspace: Any, b2b_path: Path, tmp_path: Path, clock: Any, wall: Any
) -> None:
    solutions = json.loads(b2b_path.with_suffix(".solutions.json").read_text())
    inst, entry = _pick(b2b_workspace, solutions, solver)
    events = await _play(b2b_workspace, tmp_path, clock, wall, inst, PRO[solver], entry)
    columns = [e.payload for e in events if e.type == "columns"]
    assert columns and any("." in c for c in columns[0]["columns"])  # a related field shown
