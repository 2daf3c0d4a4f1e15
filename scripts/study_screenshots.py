"""Save SVG screenshots of the study screens into assets/ for the README.

Usage: python scripts/study_screenshots.py [--out assets]

Builds the sample org into a temporary CRMTUI_HOME, creates a six-annotator study, records
a few sessions through the real play session (frozen clocks), then saves: the study status
screen, an annotator's picker in a blind study, and a blind play screen after submitting.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import tempfile
from pathlib import Path
from typing import Any

NAMES = ["ann", "ben", "cat", "dan", "eve", "fay"]


class _Clock:
    def __init__(self) -> None:
        self.mono = 100.0
        self.now = dt.datetime(2026, 1, 2, 9, 0, tzinfo=dt.UTC)

    def __call__(self) -> float:
        return self.mono

    def wall(self) -> dt.datetime:
        self.now += dt.timedelta(milliseconds=1)
        return self.now

    def advance(self, seconds: float) -> None:
        self.mono += seconds
        self.now += dt.timedelta(seconds=seconds)


def _record(study: Any, workspace: Any, clock: _Clock) -> None:
    from crmtui.play.session import PlaySession

    for n, name in enumerate(NAMES):
        todo = study.assignments[name].order[: 3 + 4 * (n % 3)]
        for k, idx in enumerate(todo):
            inst = workspace.tasks.get(idx)
            session = PlaySession.begin(
                inst,
                workspace.org,
                actor={"kind": "human", "id": name},
                tasks_source="sample",
                recordings=study.recordings,
                clock=clock,
                wall=clock.wall,
                fsync=False,
            )
            session.start()
            for _ in range(3 + k % 4):  # steady work: input every 25 s, never idle
                clock.advance(25 + n)
                session.note_input()
            if k < len(todo) - 1 or n % 2:
                session.submit(str(inst.answer) if (k + n) % 3 else "CA")
                session.close("next")
            else:
                session.recorder.suspend()


async def _shoot(app: Any, name: str, out: Path, steps: Any = None) -> None:
    from crmtui.ui.scenes import settle

    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        if steps is not None:
            await steps(pilot)
        await pilot.pause(0.3)
        await settle(pilot)
        app.save_screenshot(filename=f"{name}.svg", path=str(out))
    print(out / f"{name}.svg")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("assets"))
    args = parser.parse_args()
    out = args.out.resolve()
    with tempfile.TemporaryDirectory(prefix="crmtui-study-shots-") as tmp:
        os.environ["CRMTUI_HOME"] = str(Path(tmp) / "home")
        os.environ["CRMTUI_STUDIES"] = str(Path(tmp) / "studies")
        from crmtui.config import PlayConfig
        from crmtui.factory import build_play_app, build_study_status_app
        from crmtui.play.workspace import load_workspace
        from crmtui.study import StudyPlan, StudyRequest, create_study
        from crmtui.study.launch import play_config
        from crmtui.ui.screens.picker import PickerScreen
        from crmtui.ui.screens.play import PlayScreen

        workspace = load_workspace(PlayConfig())
        study, _ = create_study(
            StudyRequest(
                name="pilot",
                annotators=NAMES,
                per_type=9,
                shared=1 / 3,
                overlap=2,
                practice=2,
                seed=1,
            ),
            workspace=workspace,
        )
        clock = _Clock()
        _record(study, workspace, clock)
        asyncio.run(_shoot(build_study_status_app(study, refresh_s=0), "study-status", out))

        def app_for(name: str) -> Any:
            config = play_config(study, name, fsync=False)
            return build_play_app(
                config,
                workspace=workspace,
                plan=StudyPlan(study, name),
                clock=clock,
                wall=clock.wall,
            )

        async def decline_resume(pilot: Any) -> None:
            if not isinstance(pilot.app.screen, PickerScreen):
                await pilot.press("escape")  # "close it" on the resume question

        asyncio.run(_shoot(app_for("ben"), "study-picker", out, decline_resume))

        async def submit_blind(pilot: Any) -> None:
            await decline_resume(pilot)
            counted = study.assignments["cat"].instances
            pilot.app.open_instance(counted[0])
            for _ in range(100):
                await pilot.pause(0.02)
                if isinstance(pilot.app.screen, PlayScreen):
                    break
            screen = pilot.app.screen
            gold = str(workspace.tasks.get(counted[0]).answer)
            screen.query_one("#answer-box").set_text(gold)
            screen._submit(gold)
            screen.query_one("#object-list").focus()

        asyncio.run(_shoot(app_for("cat"), "study-blind", out, submit_blind))


if __name__ == "__main__":
    main()
