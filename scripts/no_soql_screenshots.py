"""Save SVG screenshots of the no-SOQL way (docs/no-soql.md) into assets/.

Usage: python scripts/no_soql_screenshots.py [--out assets]

Builds the CRMArena sample org and the CRMArena-Pro ``sample-b2b`` org into a temporary
folder, then plays instances with keys only, as the scripted annotator of
``tests/ui/test_no_soql_solves.py`` does (``tests/ui/annotator.py``), with frozen clocks:

- ``no-soql-filter``: the filter dialog finding a related field (Case by its order item's
  product) by typing part of its name;
- ``no-soql-monthly``: the compute tool counting those cases per month;
- ``no-soql-columns``: choosing a line item list's columns, a contract's signature date
  among them;
- ``no-soql-sales``: line items of contracts signed in a period, totalled per opportunity
  owner;
- ``no-soql-record``: an opportunity's record page, its tasks' status and priority in
  the related list;
- ``no-soql-quote``: a quote's line items with product name, quantity and discount.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import re
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _frozen_wall() -> dt.datetime:
    return dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)


def _workspace(home: Path, org_type: str | None) -> Any:
    from crmtui.data.loaders import load_tasks
    from crmtui.org.build import build_org
    from crmtui.org.store import Org
    from crmtui.play.workspace import Workspace

    name = f"sample-{org_type}" if org_type else "sample"
    out = home / f"{name}.db"
    build_org(out, seed=7, scale="small", name=name, org_type=org_type)
    tasks = load_tasks(str(out.with_suffix(".tasks.json")))
    return Workspace(org=Org.open(out), tasks=tasks, tasks_label=name)


def _first(workspace: Any, task: str) -> Any:
    return next(inst for inst in workspace.tasks if inst.task == task)


Step = Callable[[Any], Awaitable[None]]


async def _play(workspace: Any, idx: int, home: Path, shots: list[tuple[str, Step]], out: Path):
    from crmtui.config import PlayConfig
    from crmtui.factory import build_play_app
    from crmtui.ui.scenes import settle
    from tests.ui.annotator import Annotator

    config = PlayConfig(annotator="alice", recordings=home / f"rec-{idx}", fsync=False, idx=idx)
    app = build_play_app(config, workspace=workspace, clock=lambda: 100.0, wall=_frozen_wall)
    app.steady_cursor = True  # a blinking cursor would be drawn or not at random
    async with app.run_test(size=(160, 48)) as pilot:
        annotator = Annotator(pilot)
        await annotator.started()
        for name, step in shots:
            await step(annotator)
            await settle(pilot)
            app.save_screenshot(filename=f"{name}.svg", path=str(out))
            print(out / f"{name}.svg")


async def _shoot(out: Path, home: Path) -> None:
    sample = _workspace(home, None)
    trend = _first(sample, "monthly_trend_analysis")
    product = trend.query.split("product Id is ")[1][:18]

    async def filter_dialog(a: Any) -> None:
        await a.open_object("Case")
        await a.add_filter("OrderItemId__r.Product2Id", "=", product)
        await a.press("f", "shift+tab", "shift+tab")
        await a.paste("product")

    async def monthly(a: Any) -> None:
        await a.press("escape")
        await a.compute(group="month(CreatedDate)", aggregate="count")
        await a.press("right", "s", "s")

    shots = [("no-soql-filter", filter_dialog), ("no-soql-monthly", monthly)]
    await _play(sample, trend.idx, home, shots, out)

    b2b = _workspace(home, "b2b")
    sales = _first(b2b, "sales_amount_understanding")
    signed = "Opportunity.ContractID__r.CompanySignedDate"

    async def columns(a: Any) -> None:
        await a.open_object("OpportunityLineItem")
        await a.press("C")
        await a.paste("signed")

    async def total(a: Any) -> None:
        dialog = a.app.screen
        await a.press("enter", "down", "down", "enter", "ctrl+s")
        assert signed in dialog.chosen
        await a.add_filter(signed, ">=", "2023-07-01")
        await a.add_filter(signed, "<", "2024-01-01")
        await a.compute(group="Opportunity.OwnerId", aggregate="sum", measure="TotalPrice")
        await a.press("right", "right", "s", "s")

    await _play(b2b, sales.idx, home, [("no-soql-columns", columns), ("no-soql-sales", total)], out)

    for task, prefix, name in (
        ("wrong_stage_rectification", "006", "no-soql-record"),
        ("quote_approval", "0Q0", "no-soql-quote"),
    ):
        inst = _first(b2b, task)
        record_id = re.search(prefix + r"[0-9A-Za-z]{15}", inst.metadata.required)
        assert record_id, f"no {prefix} Id in the {task} context"

        async def record(a: Any, record_id: str = record_id.group(0)) -> None:
            await a.press("ctrl+g")
            await a.paste(record_id)
            await a.press("enter")
            await a.shown_record()

        await _play(b2b, inst.idx, home, [(name, record)], out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "assets")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(_shoot(args.out.resolve(), Path(tmp)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
