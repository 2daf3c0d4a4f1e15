"""Save SVG screenshots of the study screens into assets/ for the docs.

Usage: python scripts/study_screenshots.py [--out assets] [NAME ...]

Builds the sample org into a temporary CRMTUI_HOME, creates a six-annotator study, records
a few sessions through the real play session (frozen clocks), then saves: the study status
screen, an annotator's picker in a blind study, a blind play screen after submitting, the
instructions (and consent) page, the picker of an annotator who did not qualify, and the
status of a multi-turn study with roles (who plays which side, with whom). NAME
(``study-status``, ``study-picker``, ``study-blind``, ``study-instructions``,
``study-qualify``, ``study-roles``) shoots only those.
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
SHOTS = (
    "study-status",
    "study-picker",
    "study-blind",
    "study-instructions",
    "study-qualify",
    "study-roles",
)

#: The instructions page of the screenshot (and the example in docs/studies.md).
INSTRUCTIONS = """\
# Pilot study: instructions and consent

You will answer questions about a fictional company's customer-service records, using the
record browser (F2), the query console (F3) and the answer box (F4).

## What to do

- Start with the **two practice instances**: they show the right answer after you submit.
  The counted instances open once one of them is right.
- Answer from the records only; give Ids exactly as shown (copy them with **Ctrl+T**).
- An answer cannot be changed once submitted. Take the time you need; **F7** pauses.

## What is recorded

Every query, every record you open, your answer and the time you spend, under your
annotator name. Nothing else about you or your computer. The recordings are used to compare
people with AI models and may be published without your name.

## Consent

Taking part is voluntary; you may stop at any time by closing the window. Questions:
*study-team@example.org*. Choose **I accept** to take part.
"""


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
    parser.add_argument("names", nargs="*", metavar="NAME", help=", ".join(SHOTS))
    args = parser.parse_args()
    out = args.out.resolve()
    wanted = set(args.names or SHOTS)
    with tempfile.TemporaryDirectory(prefix="crmtui-study-shots-") as tmp:
        os.environ["CRMTUI_HOME"] = str(Path(tmp) / "home")
        os.environ["CRMTUI_STUDIES"] = str(Path(tmp) / "studies")
        from crmtui.config import PlayConfig
        from crmtui.factory import build_play_app, build_study_status_app
        from crmtui.play.workspace import load_workspace
        from crmtui.study import StudyPlan, StudyRequest, create_study
        from crmtui.study.consent import record_answer, text_digest
        from crmtui.study.definition import Settings
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
        if "study-status" in wanted:
            asyncio.run(_shoot(build_study_status_app(study, refresh_s=0), "study-status", out))

        def app_for(name: str, target: Any = study) -> Any:
            config = play_config(target, name, fsync=False)
            return build_play_app(
                config,
                workspace=workspace,
                plan=StudyPlan(target, name),
                clock=clock,
                wall=clock.wall,
            )

        async def decline_resume(pilot: Any) -> None:
            if not isinstance(pilot.app.screen, PickerScreen):
                await pilot.press("escape")  # "close it" on the resume question

        if "study-picker" in wanted:
            asyncio.run(_shoot(app_for("ben"), "study-picker", out, decline_resume))

        async def submit_blind(pilot: Any) -> None:
            # A study reopens an unfinished instance straight away; else the first counted
            # instance cat has not submitted (a submitted one opens read-only).
            for _ in range(100):
                await pilot.pause(0.02)
                if isinstance(pilot.app.screen, PlayScreen | PickerScreen):
                    break
            if not isinstance(pilot.app.screen, PlayScreen):
                done = pilot.app.status()
                counted = [
                    idx
                    for idx in study.assignments["cat"].instances
                    if idx not in done or not done[idx].done
                ]
                pilot.app.open_instance(counted[0])
                for _ in range(100):
                    await pilot.pause(0.02)
                    if isinstance(pilot.app.screen, PlayScreen):
                        break
            screen = pilot.app.screen
            gold = str(screen.session.instance.answer)
            screen.query_one("#answer-box").set_text(gold)
            screen._submit(gold)
            screen.query_one("#object-list").focus()

        if "study-blind" in wanted:
            asyncio.run(_shoot(app_for("cat"), "study-blind", out, submit_blind))

        # A second study with instructions and a qualification gate (1 of 2 practice right).
        gated, _ = create_study(
            StudyRequest(
                name="pilot-2",
                annotators=["gus", "hal"],
                per_type=1,
                shared=0.0,
                overlap=1,
                practice=2,
                seed=3,
                settings=Settings(qualify=1),
                instructions=INSTRUCTIONS,
            ),
            workspace=workspace,
        )
        if "study-instructions" in wanted:
            asyncio.run(_shoot(app_for("gus", gated), "study-instructions", out))
        if "study-qualify" in wanted:
            _fail_practice(gated, "hal", workspace, clock)
            record_answer(gated, "hal", text_digest(INSTRUCTIONS), True)
            asyncio.run(_shoot(app_for("hal", gated), "study-qualify", out))
        if "study-roles" in wanted:
            from crmtui.study.roles import Conversation

            talking, _ = create_study(
                StudyRequest(
                    name="pilot-chat",
                    annotators=["ivy", "jon", "kim", "lee", "max"],
                    per_type=2,
                    shared=0.0,
                    overlap=1,
                    seed=4,
                    conversation=Conversation(
                        user_model="gpt-4o-2024-08-06", agent_model="openai/gpt-4o"
                    ),
                    roles=["agent", "user", "agent", "user", "user"],
                ),
                workspace=workspace,
            )
            app = build_study_status_app(talking, refresh_s=0)
            asyncio.run(_shoot(app, "study-roles", out))


def _fail_practice(study: Any, name: str, workspace: Any, clock: _Clock) -> None:
    """Wrong answers to every practice instance (the annotator does not qualify)."""
    from crmtui.play.session import PlaySession

    for idx in study.assignments[name].practice:
        session = PlaySession.begin(
            workspace.tasks.get(idx),
            workspace.org,
            actor={"kind": "human", "id": name},
            tasks_source="sample",
            recordings=study.recordings,
            clock=clock,
            wall=clock.wall,
            fsync=False,
        )
        session.start()
        clock.advance(40)
        session.note_input()
        session.submit("not sure")
        session.close("next")


if __name__ == "__main__":
    main()
