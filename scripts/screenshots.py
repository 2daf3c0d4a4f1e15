"""Save SVG screenshots of crmtui's screens into assets/ for the docs.

Usage: python scripts/screenshots.py [--out assets] [SCENE ...]

SCENE is a play scene of ``crmtui.ui.scenes``, one of :data:`VIEWER_SHOTS` (replay,
replay-80x24, compare, report) or ``play-pro`` (a CRMArena-Pro instance); without any, every
screenshot is taken.

Builds the small sample org into a temporary CRMTUI_HOME, then drives the app through the
scripted scenes in ``crmtui.ui.scenes`` (the same ones the snapshot tests use) with frozen
clocks, so the pictures are reproducible.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import sys
import tempfile
from pathlib import Path


def _frozen_wall() -> dt.datetime:
    return dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)


async def _shoot(name: str, out: Path, workspace: object, recordings: Path) -> Path:
    from crmtui.config import PlayConfig
    from crmtui.factory import build_play_app
    from crmtui.ui.scenes import SCENE_SIZES, SCENES

    config = PlayConfig(annotator="alice", recordings=recordings, fsync=False)
    app = build_play_app(config, workspace=workspace, clock=lambda: 100.0, wall=_frozen_wall)
    app.steady_cursor = True  # a blinking cursor would be drawn or not at random
    async with app.run_test(size=SCENE_SIZES.get(name, (160, 48))) as pilot:
        await SCENES[name](pilot)
        path = out / f"{name}.svg"
        app.save_screenshot(filename=path.name, path=str(out))
    return path


async def _shoot_app(
    app: object,
    name: str,
    out: Path,
    keys: tuple[str, ...] = (),
    size: tuple[int, int] = (160, 48),
) -> Path:
    """Screenshot an app (replay, compare, report) after pressing ``keys``."""
    from crmtui.ui.scenes import settle

    async with app.run_test(size=size) as pilot:  # type: ignore[attr-defined]
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        app.save_screenshot(filename=f"{name}.svg", path=str(out))  # type: ignore[attr-defined]
    return out / f"{name}.svg"


async def _shoot_watch(workspace: object, out: Path, recordings: Path) -> Path:
    """Watch mode: a scripted model (fake OpenAI server over real HTTP) solves a BRI instance."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from crmtui.agent.client import load_litellm
    from crmtui.agent.watch_config import WatchConfig
    from crmtui.factory import build_watch_app
    from crmtui.ui.scenes import settle
    from tests.fakes.openai_server import FakeOpenAI, text

    load_litellm(online=False)
    os.environ.setdefault("OPENAI_API_KEY", "not-a-real-key")
    tasks = workspace.tasks  # type: ignore[attr-defined]
    inst = next(i for i in tasks if i.task == "best_region_identification" and i.answer)
    query = (
        "SELECT Account.ShippingState, COUNT(Id) n FROM Case WHERE Status = 'Closed' "
        "AND CreatedDate = LAST_N_DAYS:28 GROUP BY Account.ShippingState ORDER BY COUNT(Id) DESC"
    )
    script = [
        text(
            "<thought>Closed cases of the last four weeks, per state.</thought>"
            f"<execute>{query}</execute>",
            prompt_tokens=2130,
            completion_tokens=48,
        ),
        text(
            f"<thought>{inst.answer} closes its cases fastest.</thought>"
            f"<respond>{inst.answer}</respond>",
            prompt_tokens=2290,
            completion_tokens=21,
        ),
    ]
    with FakeOpenAI(script) as server:
        config = WatchConfig(
            model="openai/scripted-demo",
            api_base=server.base_url,
            idx=inst.idx,
            recordings=recordings,
            fsync=False,
            stream=False,
        )
        app = build_watch_app(config, workspace=workspace, wall=_frozen_wall)
        async with app.run_test(size=(160, 48)) as pilot:
            for _ in range(500):
                await pilot.pause(0.02)
                screen = app.watch_screen
                if screen is not None and screen.result is not None:
                    break
            await settle(pilot)
            app.save_screenshot(filename="watch.svg", path=str(out))
    return out / "watch.svg"


async def _shoot_pro(out: Path, home: Path) -> Path:
    """A CRMArena-Pro instance in play: the persona under the query, the guide as context.

    On the small Pro org the tests build (tests/fixtures/pro_org.py), lead qualification.
    """
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from crmtui.config import PlayConfig
    from crmtui.data.instances import TaskSet
    from crmtui.factory import build_play_app
    from crmtui.play.workspace import Workspace
    from crmtui.ui.scenes import settle
    from tests.fixtures.pro_org import PRO_ROWS, build_pro_org

    org = build_pro_org(home)
    workspace = Workspace(org, TaskSet.from_rows(PRO_ROWS, "pro"), "pro")
    config = PlayConfig(annotator="alice", recordings=home / "pro-rec", fsync=False, idx=0)
    app = build_play_app(config, workspace=workspace, clock=lambda: 100.0, wall=_frozen_wall)
    app.steady_cursor = True
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("f4", *"Authority")
        await settle(pilot)
        app.save_screenshot(filename="play-pro.svg", path=str(out))
    return out / "play-pro.svg"


#: The screens over the example recordings (not play scenes); name them to shoot only them.
VIEWER_SHOTS = ("replay", "replay-80x24", "compare", "report")


def _viewer_shots(recordings: Path, out: Path, only: tuple[str, ...] = VIEWER_SHOTS) -> list[Path]:
    """Replay, compare and report screens over the example recordings."""
    from crmtui.commands.compare import build_comparison
    from crmtui.factory import build_compare_app, build_replay_app, build_report_app
    from crmtui.review.report import report_folder

    human = sorted((recordings / "example-annotator").glob("*.jsonl"))
    if not human:
        print(f"no example recordings under {recordings}: run scripts/make_examples.py first")
        return []
    idx = int(human[0].name.split("-idx")[1].split("-")[0])
    shots = {
        "replay": lambda: _shoot_app(build_replay_app(human[0], start=5), "replay", out),
        # The compact layout: the side columns as tabs, the Browse tab at a record.
        "replay-80x24": lambda: _shoot_app(
            build_replay_app(human[0], start=3), "replay-80x24", out, ("f2",), (80, 24)
        ),
        "compare": lambda: _shoot_app(
            build_compare_app(build_comparison((recordings,), idx, None, True)),
            "compare",
            out,
            ("d",),
        ),
        "report": lambda: _shoot_app(build_report_app(report_folder(recordings)), "report", out),
    }
    return [asyncio.run(shots[name]()) for name in only]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("assets"))
    parser.add_argument("--recordings", type=Path, default=Path("recordings"))
    parser.add_argument("scenes", nargs="*")
    args = parser.parse_args(argv)
    home = Path(tempfile.mkdtemp(prefix="crmtui-shots-"))
    os.environ["CRMTUI_HOME"] = str(home)

    from crmtui.data.loaders import load_tasks
    from crmtui.org.build import build_org
    from crmtui.org.store import Org
    from crmtui.play.workspace import Workspace
    from crmtui.ui.scenes import SCENES

    built = build_org(home / "sample.db", seed=7, scale="small", name="sample")
    workspace = Workspace(Org.open(built.path), load_tasks(str(built.tasks_path)), "sample")
    args.out.mkdir(parents=True, exist_ok=True)
    if "play-pro" in args.scenes:
        print(f"wrote {asyncio.run(_shoot_pro(args.out, home))}")
        args.scenes = [name for name in args.scenes if name != "play-pro"]
        if not args.scenes:
            return 0
    viewers = tuple(name for name in args.scenes if name in VIEWER_SHOTS)
    if viewers:
        for path in _viewer_shots(args.recordings.resolve(), args.out, viewers):
            print(f"wrote {path}")
        args.scenes = [name for name in args.scenes if name not in VIEWER_SHOTS]
        if not args.scenes:
            return 0
    for name in args.scenes or list(SCENES):
        # A scene's app is closed from outside, which leaves its instance to resume: each scene
        # gets its own recordings folder so the next one starts at the picker, not a dialog.
        path = asyncio.run(_shoot(name, args.out, workspace, home / "recordings" / name))
        print(f"wrote {path}")
    if not args.scenes:
        print(f"wrote {asyncio.run(_shoot_watch(workspace, args.out, home / 'watch'))}")
        print(f"wrote {asyncio.run(_shoot_pro(args.out, home))}")
        for path in _viewer_shots(args.recordings.resolve(), args.out):
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
