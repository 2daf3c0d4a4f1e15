"""A study in the terminal: assigned instances in order, blinding, practice, time limit."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Static

from crmtui.factory import build_play_app
from crmtui.record.verify import load, verify
from crmtui.study import StudyPlan, StudyRequest, create_study
from crmtui.study.definition import Settings
from crmtui.study.launch import play_config
from crmtui.ui.screens.picker import PickerScreen
from crmtui.ui.screens.play import PlayScreen
from tests.waiting import deadline, until

SIZE = (160, 48)


async def _wait(pilot: Any, condition: Any) -> None:
    """Pause ``pilot`` until ``condition()`` holds (a deadline only against a hang)."""
    await until(pilot, condition)


def _study(tmp_path: Path, workspace: Any, **settings: Any) -> Any:
    made, _ = create_study(
        StudyRequest(
            name="ui",
            annotators=["ann", "ben"],
            per_type=1,
            shared=0.0,
            overlap=1,
            seed=4,
            practice=settings.pop("practice", 0),
            settings=Settings(**settings),
        ),
        workspace=workspace,
    )
    return made


@pytest.fixture
def study_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workspace: Any, clock, wall):
    """Builds the play app for annotator ann of a fresh study."""
    monkeypatch.setenv("CRMTUI_STUDIES", str(tmp_path / "studies"))

    def make(**settings: Any) -> Any:
        study = _study(tmp_path, workspace, **settings)
        config = play_config(study, "ann", fsync=False)
        plan = StudyPlan(study, "ann")
        return build_play_app(config, workspace=workspace, plan=plan, clock=clock, wall=wall)

    return make


def _svg(app: Any) -> str:
    return app.export_screenshot()


async def _submit(pilot: Any, screen: PlayScreen, text: str) -> None:
    await pilot.press("f4")
    await pilot.press(*text)
    await pilot.press("ctrl+s")
    await pilot.pause(0.05)
    await pilot.press("y")
    await _wait(pilot, lambda: screen.session.submitted)


async def test_blind_study_shows_only_done_never_reward_or_gold(study_app, workspace) -> None:
    app = study_app()
    plan = app.plan
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        picker = app.screen
        table = picker.query_one("#picker-table", DataTable)
        keys = [row.value for row in table.rows]
        assert keys == [str(idx) for idx in plan.order]  # only ann's, in ann's order
        assert not app.check_action("open_report", ())  # no report key in a blind study
        await pilot.press("n")
        await _wait(pilot, lambda: isinstance(app.screen, PlayScreen))
        screen = app.screen
        idx = screen.session.instance.idx
        assert idx == plan.order[0]
        assert f"1 of {len(plan.order)}" in str(screen.query_one("#status-bar").render())
        gold = str(workspace.tasks.get(idx).answer)
        await _submit(pilot, screen, gold)
        result = str(screen.query_one("#answer-result", Static).render())
        assert result.startswith("Submitted.")
        svg = _svg(app)
        assert "reward" not in svg and "gold" not in svg and "✔" not in svg
        await pilot.press("escape")
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        row = table.get_row(str(idx))
        assert str(row[2]) == "done"
        assert "1.00" not in _svg(app) and "✔" not in _svg(app)
    # The researcher's recording still has the score.
    path = next(Path(app.config.recordings).rglob(f"*-idx{idx}-*.jsonl"))
    assert verify(path).ok
    assert load(path).submit.payload["reward"] == 1.0


async def test_practice_reveals_and_counts_separately(study_app) -> None:
    app = study_app(practice=1)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("n")
        await _wait(pilot, lambda: isinstance(app.screen, PlayScreen))
        screen = app.screen
        assert screen.session.instance.idx == app.plan.practice[0]
        assert "practice 1 of 1" in str(screen.query_one("#status-bar").render())
        await _submit(pilot, screen, "nothing")
        assert "reward 0.00" in str(screen.query_one("#answer-result", Static).render())


async def test_time_limit_submits_the_answer_as_typed(study_app, clock) -> None:
    app = study_app(time_limit_s=30.0)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("n")
        await _wait(pilot, lambda: isinstance(app.screen, PlayScreen))
        screen = app.screen
        await pilot.press("f4")
        await pilot.press(*"half")
        clock.advance(10)
        screen._tick()
        assert "0:20 left" in str(screen.query_one("#status-bar").render())
        clock.advance(25)
        screen.session.note_input()
        screen._tick()
        await _wait(pilot, lambda: screen.session.submitted)
        path = screen.session.path
    rec = load(path)
    assert rec.submit.payload["answer"] == "half"
    assert rec.end.payload["reason"] == "time_limit"


def test_blind_submitted_snapshot(snap_compare, study_app, workspace) -> None:
    app = study_app()

    async def submit_gold(pilot: Any) -> None:
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("n")
        await _wait(pilot, lambda: isinstance(app.screen, PlayScreen))
        screen = app.screen
        gold = str(workspace.tasks.get(screen.session.instance.idx).answer)
        screen.query_one("#answer-box").set_text(gold)
        screen._submit(gold)
        screen.query_one("#object-list").focus()
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=SIZE, run_before=submit_gold)


async def test_a_study_reopens_an_unfinished_instance_before_any_picker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workspace: Any, clock, wall
) -> None:
    """ann's connection drops mid-instance; her next start shows that instance first (the
    picker is never on screen before it), with her draft, and the picker comes when she
    leaves the instance."""
    monkeypatch.setenv("CRMTUI_STUDIES", str(tmp_path / "studies"))
    study = _study(tmp_path, workspace)

    def app() -> Any:
        config = play_config(study, "ann", fsync=False)
        plan = StudyPlan(study, "ann")
        return build_play_app(config, workspace=workspace, plan=plan, clock=clock, wall=wall)

    first = app()
    async with first.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(first.screen, PickerScreen))
        await pilot.press("n")
        await _wait(pilot, lambda: isinstance(first.screen, PlayScreen))
        idx = first.screen.session.instance.idx
        await pilot.press("f4", *"draft")
        await pilot.pause(0.1)
        first.exit()  # not Ctrl+Q: a dropped connection, the attempt stays resumable

    second = app()
    screens: list[str] = []
    async with second.run_test(size=SIZE) as pilot:
        # Every screen the app shows on its way, from its first frame on.
        until = deadline()
        while time.monotonic() < until:
            screens.append(type(second.screen).__name__)
            if isinstance(second.screen, PlayScreen):
                break
            await pilot.pause(0.01)
        assert "PickerScreen" not in screens and screens[-1] == "PlayScreen"
        screen = second.screen
        assert screen.session.instance.idx == idx
        assert screen.query_one("#answer-input").value == "draft"
        assert second.picker is None
        await pilot.press("escape")
        await _wait(pilot, lambda: type(second.screen).__name__ == "ConfirmScreen")
        await pilot.press("y")  # leave the instance: the picker comes now
        await _wait(pilot, lambda: isinstance(second.screen, PickerScreen))
        table = second.screen.query_one("#picker-table", DataTable)
        assert [row.value for row in table.rows] == [str(i) for i in second.plan.picker().order]
