"""Make the example recordings shipped in recordings/ (run from the repository root).

Usage: python scripts/make_examples.py [--out recordings]

* a scripted human ("example-annotator") solves a best-region instance through the real play
  UI (Pilot key presses: open an object, filter, open a record, follow a link, back, run a
  console query, answer, submit), with a clock that advances a few seconds per action;
* scripted agents ("openai/scripted-model") solve instances through litellm over real HTTP
  against the test suite's OpenAI-compatible fake server (react and tool_call strategies),
  one of them answering wrongly, so that replay, compare and report have something to show.

Everything runs on the built-in sample org (seed 7, small), which every machine rebuilds
identically, so the recordings replay anywhere.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any


class StepClock:
    """Monotonic and wall clocks that advance together by hand (deterministic examples)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.start = dt.datetime(2026, 11, 29, 10, 0, 0, tzinfo=dt.UTC)

    def monotonic(self) -> float:
        return self.now

    def wall(self) -> dt.datetime:
        return self.start + dt.timedelta(seconds=self.now - 1000.0)

    def think(self, seconds: float) -> None:
        self.now += seconds


class TickClock(StepClock):
    """A clock that moves 0.8 s every time it is read (a model's steps take time too)."""

    def monotonic(self) -> float:
        self.now += 0.8
        return self.now


async def _human(workspace: Any, out: Path, idx: int) -> Path:
    from crmtui.config import PlayConfig
    from crmtui.factory import build_play_app
    from crmtui.ui.scenes import settle, wait_for
    from crmtui.ui.screens.dialogs import ConfirmScreen, FilterScreen
    from crmtui.ui.screens.play import PlayScreen

    clock = StepClock()
    config = PlayConfig(annotator="example-annotator", recordings=out, fsync=False)
    app = build_play_app(config, workspace=workspace, clock=clock.monotonic, wall=clock.wall)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        app.open_instance(idx)
        await wait_for(pilot, lambda: isinstance(app.screen, PlayScreen))
        screen = app.screen
        objects = screen.query_one("#object-list")
        await wait_for(pilot, lambda: objects.option_count > 0)
        clock.think(20)  # reading the question and the metadata
        objects.focus()
        objects.highlighted = [o.id for o in objects._options].index("Case")
        await pilot.press("enter")
        table = screen.query_one("#records-table")
        await wait_for(pilot, lambda: table.row_count > 0)
        clock.think(8)
        table.focus()
        table.move_cursor(column=table.columns_names.index("Status"))
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, FilterScreen))
        await pilot.press(*"Closed", "enter")
        await wait_for(pilot, lambda: bool(screen.query_one("#record-browser").current.conditions))
        await settle(pilot)
        clock.think(6)
        table.move_cursor(row=0, column=0)
        await pilot.press("enter")
        panel = screen.query_one("#record-panel")
        await wait_for(pilot, lambda: panel.row_count > 0)
        clock.think(5)
        panel.focus()
        panel.move_cursor(
            row=next(i for i, ln in enumerate(panel._links) if ln and ln[1] == "Account")
        )
        await pilot.press("enter")
        await settle(pilot)
        clock.think(4)
        await pilot.press("left_square_bracket")
        await settle(pilot)
        clock.think(12)
        await pilot.press("f3")
        console = screen.query_one("#query-console")
        console.set_text(
            "SELECT Account.ShippingState, COUNT(Id) n FROM Case\n"
            "WHERE Status = 'Closed' AND CreatedDate = LAST_N_DAYS:28\n"
            "GROUP BY Account.ShippingState ORDER BY COUNT(Id) DESC"
        )
        await pilot.press("f5")
        await settle(pilot)
        clock.think(40)
        gold = screen.session.instance.answer
        await pilot.press("f4")
        await pilot.press(*str(gold))
        clock.think(3)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: screen.session.submitted)
        path = screen.session.path
        await pilot.press("escape")
        await settle(pilot)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("recordings"))
    args = parser.parse_args(argv)
    home = Path(tempfile.mkdtemp(prefix="crmtui-examples-"))
    os.environ["CRMTUI_HOME"] = str(home)
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

    from crmtui.data.loaders import load_tasks
    from crmtui.org.sample import ensure_sample
    from crmtui.play.workspace import Workspace

    org = ensure_sample()
    tasks = load_tasks("sample")
    workspace = Workspace(org, tasks, "sample")
    bri = next(i.idx for i in tasks if i.task == "best_region_identification")
    if args.out.exists():
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True)
    human = asyncio.run(_human(workspace, args.out, bri))
    # The play session's instance claim (crmtui.record.claims) is runtime state, not part of
    # the examples: without this the lock file would show up as a new file to commit.
    from crmtui.record.claims import CLAIMS_DIR

    shutil.rmtree(human.parent / CLAIMS_DIR, ignore_errors=True)
    print(f"wrote {human}")
    for path in _agents(org, tasks, args.out, bri):
        print(f"wrote {path}")
    return 0


# (task type, answer is right?, the query the scripted model runs first)
_AGENT_PLAN = [
    (
        "best_region_identification",
        False,
        "SELECT Account.ShippingState, COUNT(Id) n FROM Case WHERE Status = 'Closed' "
        "GROUP BY Account.ShippingState ORDER BY COUNT(Id) DESC LIMIT 5",
    ),
    (
        "handle_time",
        True,
        "SELECT OwnerId, COUNT(Id) n FROM Case WHERE Status = 'Closed' GROUP BY OwnerId",
    ),
    ("knowledge_qa", True, "FIND {care} IN ALL FIELDS RETURNING Knowledge__kav(Id, Title)"),
]


def _agents(org: Any, tasks: Any, out: Path, bri: int) -> list[Path]:
    """Scripted agents over real HTTP (litellm -> the fake OpenAI-compatible server)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from crmtui.agent.batch import BatchConfig, run_batch
    from tests.fakes.openai_server import FakeOpenAI, text, tool_call

    clock = TickClock()
    chosen = []
    script = []
    for task, right, query in _AGENT_PLAN:
        inst = (
            bri
            if task == "best_region_identification"
            else next(i.idx for i in tasks if i.task == task)
        )
        gold = tasks.get(inst).answer
        answer = str(gold) if right else "CA" if gold != "CA" else "TX"
        answer = "None" if right and gold is None else answer
        chosen.append(inst)
        script.append(text(f"<thought>Look at the data first.</thought><execute>{query}</execute>"))
        script.append(text(f"<thought>That answers it.</thought><respond>{answer}</respond>"))
    # The same best-region instance with native tool calls, answered correctly.
    gold = tasks.get(bri).answer
    script.append(tool_call("soql_query", {"query": _AGENT_PLAN[0][2]}))
    script.append(tool_call("respond", {"content": str(gold)}))

    work = Path(tempfile.mkdtemp(prefix="crmtui-example-runs-"))
    written: list[Path] = []
    with FakeOpenAI(script) as server:
        for strategy, idxs in (("react", tuple(chosen)), ("tool_call", (bri,))):
            config = BatchConfig(
                model="openai/scripted-model",
                strategy=strategy,
                idxs=idxs,
                out=work / strategy,
                api_base=server.base_url,
                fsync=False,
                client_options={"api_key": "not-a-real-key"},
            )
            run_batch(config, org=org, tasks=tasks, wall=clock.wall, monotonic=clock.monotonic)
            for path in sorted(config.recordings.rglob("*.jsonl")):
                target = out / path.relative_to(config.recordings)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(path, target)
                written.append(target)
    return written


if __name__ == "__main__":
    sys.exit(main())
