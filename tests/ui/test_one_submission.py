"""One counted submission: a submitted instance opens read-only, whichever way it is opened,
and an instance another live session holds cannot be opened at all."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from crmtui.factory import build_play_app
from crmtui.play.policy import FreePlay, PickerPolicy, PlayPolicy
from crmtui.play.session import PlaySession
from crmtui.record.claims import claim_instance
from crmtui.record.verify import load
from crmtui.ui.screens.dialogs import ConfirmScreen
from crmtui.ui.screens.picker import PickerScreen
from crmtui.ui.screens.play import PlayScreen
from crmtui.ui.screens.replay import ReplayScreen
from crmtui.ui.screens.submitted import SubmittedScreen
from tests.ui.test_play_flow import _wait

SIZE = (160, 48)


def _files(config: Any) -> list[Path]:
    return sorted(Path(config.recordings).rglob("*.jsonl"))


async def _submit_first(pilot: Any, answer: str) -> int:
    app = pilot.app
    await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
    await pilot.press("enter")
    await _wait(pilot, lambda: isinstance(app.screen, PlayScreen))
    screen = app.screen
    await pilot.press("f4", *answer, "ctrl+s")
    await _wait(pilot, lambda: isinstance(app.screen, ConfirmScreen))
    await pilot.press("y")
    await _wait(pilot, lambda: screen.session.submitted)
    return int(screen.session.instance.idx)


async def test_a_second_open_of_a_submitted_instance_creates_no_counted_attempt(
    workspace, play_config, clock, wall
):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        idx = await _submit_first(pilot, "my answer")
        await pilot.press("escape")  # back to the list (the session ends: "next")
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert len(_files(play_config)) == 1

        # Every way in: Enter on its row, open_instance (what --idx and studies call).
        for open_it in (lambda: pilot.press("enter"), lambda: _call(app.open_instance, idx)):
            await open_it()
            await _wait(pilot, lambda: isinstance(app.screen, SubmittedScreen))
            text = str(app.screen.query_one("#submitted-text").render())
            assert "Your answer: my answer" in text and "Gold answer:" in text
            await pilot.press("escape")
            await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert len(_files(play_config)) == 1

        # n skips it: the next unsolved instance is another one.
        await pilot.press("n")
        await _wait(pilot, lambda: isinstance(app.screen, PlayScreen))
        assert app.screen.session.instance.idx != idx
        await pilot.press("escape")
        await _wait(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))

    # --idx in a new process: read-only too, and r replays the recording.
    again = dataclasses.replace(play_config, idx=idx)
    app = build_play_app(again, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, SubmittedScreen))
        await pilot.press("r")
        await _wait(pilot, lambda: isinstance(app.screen, ReplayScreen))
    counted = [p for p in _files(play_config) if f"-idx{idx}-" in p.name]
    assert len(counted) == 1
    assert [e.type for e in load(counted[0]).events].count("submit") == 1


def _shows(pilot: Any, kind: type) -> Any:
    return lambda: isinstance(pilot.app.screen, kind)


async def _call(fn: Any, *args: Any) -> None:
    fn(*args)


async def test_an_instance_held_elsewhere_does_not_open_and_one_submitted_meanwhile_is_read_only(
    workspace, play_config, clock, wall
):
    inst = next(iter(workspace.tasks))
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    said = _told(app)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        # Another terminal (or server) has the instance open.
        elsewhere = claim_instance(
            play_config.recordings, play_config.annotator, workspace.tasks_label, inst.idx
        )
        app.open_instance(inst.idx)
        await pilot.pause(0.05)
        assert isinstance(app.screen, PickerScreen) and app.session is None
        assert any("another crmtui session" in m for m in said), said
        assert _files(play_config) == []

        # It submits there and lets go; here the instance now opens read-only.
        other = PlaySession.begin(
            inst,
            workspace.org,
            actor=play_config.actor,
            tasks_source=workspace.tasks_label,
            recordings=play_config.recordings,
            clock=clock,
            wall=wall,
            fsync=False,
            claim=elsewhere,
        )
        other.submit("theirs")
        other.close("next")
        assert not elsewhere.held
        app.open_instance(inst.idx)
        await _wait(pilot, lambda: isinstance(app.screen, SubmittedScreen))
    assert len(_files(play_config)) == 1


class _Blind(FreePlay):
    """A blind study's plan, reduced to what the screens ask."""

    def picker(self) -> PickerPolicy:
        return PickerPolicy(report=False)

    def play(self, idx: int) -> PlayPolicy:
        return PlayPolicy(reveal=False)


async def test_blind_read_only_view_shows_no_reward_gold_or_replay(
    workspace, play_config, clock, wall
):
    app = build_play_app(play_config, workspace=workspace, plan=_Blind(), clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        idx = await _submit_first(pilot, "blind answer")
        await pilot.press("escape")
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        app.open_instance(idx)
        await _wait(pilot, lambda: isinstance(app.screen, SubmittedScreen))
        text = str(app.screen.query_one("#submitted-text").render())
        assert "Your answer: blind answer" in text
        assert "Gold" not in text and "Reward" not in text
        assert not app.screen.query("#replay")
        await pilot.press("r")  # no replay in a blind study
        await pilot.pause(0.05)
        assert isinstance(app.screen, SubmittedScreen)


async def test_next_unsolved_skips_an_instance_open_in_another_session(
    workspace, play_config, clock, wall
):
    first = next(iter(workspace.tasks))
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    said = _told(app)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        with claim_instance(
            play_config.recordings, play_config.annotator, workspace.tasks_label, first.idx
        ):
            await pilot.press("n")
            await _wait(pilot, lambda: isinstance(app.screen, PlayScreen))
            assert app.screen.session.instance.idx != first.idx
            assert any(f"another crmtui session: {first.idx}" in m for m in said), said


def _told(app: Any) -> list[str]:
    """Every notice the app shows (a toast may time out before a slow test looks)."""
    said: list[str] = []
    notify = app.notify

    def record(message: str, *args: Any, **kwargs: Any) -> None:
        said.append(str(message))
        notify(message, *args, **kwargs)

    app.notify = record
    return said


async def test_a_study_that_reveals_the_gold_never_lets_it_be_submitted_again(
    tmp_path: Path, monkeypatch: Any, workspace: Any, clock: Any, wall: Any
) -> None:
    """The issue's case: with --reveal-gold an annotator saw the gold, reopened the
    instance and submitted it: now the reopened instance is read-only, and a second open of
    the study (another server, another terminal) changes nothing."""
    from crmtui.study import StudyPlan, StudyRequest, create_study
    from crmtui.study.definition import Settings
    from crmtui.study.launch import play_config as study_config
    from crmtui.study.report import report_study

    monkeypatch.setenv("CRMTUI_STUDIES", str(tmp_path / "studies"))
    study, _ = create_study(
        StudyRequest(
            name="reveal", annotators=["ann"], per_type=1, shared=0.0, overlap=1, seed=4,
            settings=Settings(reveal_gold=True),
        ),
        workspace=workspace,
    )  # fmt: skip
    config = study_config(study, "ann", fsync=False)
    plan = StudyPlan(study, "ann")
    for attempt in range(2):
        app = build_play_app(config, workspace=workspace, plan=plan, clock=clock, wall=wall)
        async with app.run_test(size=SIZE) as pilot:
            await _wait(pilot, _shows(pilot, PickerScreen))
            idx = plan.order[0]
            if attempt == 0:
                await _submit_first(pilot, "a wrong answer")  # its gold is shown now
                await pilot.press("escape")
                await _wait(pilot, _shows(pilot, PickerScreen))
            pilot.app.open_instance(idx)
            await _wait(pilot, _shows(pilot, SubmittedScreen))
            text = str(pilot.app.screen.query_one("#submitted-text").render())
            assert "Your answer: a wrong answer" in text and "Gold answer:" in text
    assert len(_files(config)) == 1
    report = report_study(study)
    assert report.report.later == [] and report.annotators[0].right == 0


async def test_opening_an_instance_continues_its_kept_attempt(workspace, play_config, clock, wall):
    """Two attempts kept to resume (two terminals quit with Ctrl+Q): the next start offers
    the latest, and the other one continues when its instance is opened, never restarts."""
    first, second = list(workspace.tasks)[:2]
    kept = []
    for inst in (first, second):
        session = PlaySession.begin(
            inst,
            workspace.org,
            actor=play_config.actor,
            tasks_source=workspace.tasks_label,
            recordings=play_config.recordings,
            clock=clock,
            wall=wall,
            fsync=False,
        )
        clock.advance(20)
        session.answer_edited(f"draft {inst.idx}")
        session.suspend("quit")
        kept.append(session.path)
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, _shows(pilot, ConfirmScreen))  # the latest is offered
        await pilot.press("y")
        await _wait(pilot, _shows(pilot, PlayScreen))
        assert app.screen.session.path == kept[1]
        await pilot.press("escape")
        await _wait(pilot, _shows(pilot, ConfirmScreen))
        await pilot.press("y")  # leave it
        await _wait(pilot, _shows(pilot, PickerScreen))
        app.open_instance(first.idx)
        await _wait(pilot, _shows(pilot, PlayScreen))
        session = app.screen.session
        assert session.resumed and session.path == kept[0]
        assert session.active_seconds >= 20
        assert app.screen.query_one("#answer-input").value == f"draft {first.idx}"
    assert len(_files(play_config)) == 2


async def test_a_browser_is_never_shown_where_the_server_keeps_recordings(
    workspace, play_config, clock, wall, monkeypatch
):
    # Served to a browser (a web driver), the dialog of a submitted instance leaves out the
    # recording's path, which is the server's; in a terminal it is the person's own.
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        await _submit_first(pilot, "my answer")
        await pilot.press("escape")
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        shown = {}
        for web in (False, True):
            monkeypatch.setattr(type(app), "is_web", property(lambda self, web=web: web))
            await pilot.press("enter")
            await _wait(pilot, lambda: isinstance(app.screen, SubmittedScreen))
            shown[web] = str(app.screen.query_one("#submitted-text").render())
            await pilot.press("escape")
            await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
    folder = str(Path(play_config.recordings))
    assert folder in shown[False].replace("\n", "")
    assert folder not in shown[True].replace("\n", "") and "Recording:" not in shown[True]
    assert "Your answer: my answer" in shown[True]
