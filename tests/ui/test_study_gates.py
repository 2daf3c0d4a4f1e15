"""Before a study's instances: the instructions to accept, the practice that qualifies, and
a query history of the study's own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button, DataTable, Static

from crmtui import paths
from crmtui.factory import build_play_app
from crmtui.play.query_history import history_path
from crmtui.study import StudyPlan, StudyRequest, create_study, set_qualify
from crmtui.study.consent import answers, text_digest
from crmtui.study.definition import Settings
from crmtui.study.launch import play_config
from crmtui.ui.screens.dialogs import ConfirmScreen
from crmtui.ui.screens.instructions import InstructionsScreen
from crmtui.ui.screens.picker import PickerScreen
from crmtui.ui.screens.play import PlayScreen
from crmtui.ui.widgets.console import QueryConsole
from tests.waiting import until

SIZE = (160, 48)
TEXT = "# How to annotate\n\nAnswer from the org only.\n\nYour answers are *recorded*.\n"


async def _wait(pilot: Any, condition: Any) -> None:
    """Pause ``pilot`` until ``condition()`` holds (a deadline only against a hang)."""
    await until(pilot, condition)


@pytest.fixture
def make_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workspace: Any, clock, wall):
    """Builds the play app for ann of a study made with the given options."""
    monkeypatch.setenv("CRMTUI_STUDIES", str(tmp_path / "studies"))
    made: dict[str, Any] = {}

    def make(name: str = "gates", **options: Any) -> Any:
        study = made.get(name)
        if study is None:
            study, _ = create_study(
                StudyRequest(
                    name=name,
                    annotators=["ann", "ben"],
                    per_type=1,
                    shared=0.0,
                    overlap=1,
                    seed=4,
                    practice=options.pop("practice", 0),
                    settings=Settings(qualify=options.pop("qualify", None)),
                    instructions=options.pop("instructions", None),
                ),
                workspace=workspace,
            )
            made[name] = study
        config = play_config(study, "ann", fsync=False)
        return build_play_app(
            config, workspace=workspace, plan=StudyPlan(study, "ann"), clock=clock, wall=wall
        )

    return make


async def test_nothing_opens_before_the_instructions_are_accepted(make_app) -> None:
    app = make_app(instructions=TEXT)
    study = app.plan.study
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, InstructionsScreen))
        assert app.picker is None  # not even the list of instances
        heading = app.screen.query_one("#instructions-text").query_one("MarkdownH1")
        assert "How to annotate" in str(heading.render())
        await pilot.press("y", "enter", "a")  # no key alone agrees
        assert isinstance(app.screen, InstructionsScreen) and answers(study) == []
        await pilot.click("#decline")
        await _wait(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        [declined] = answers(study)
        assert (declined.annotator, declined.accepted) == ("ann", False)
        assert declined.sha256 == text_digest(TEXT)
        await pilot.click("#yes")  # read them again
        await _wait(pilot, lambda: isinstance(app.screen, InstructionsScreen))
        app.screen.query_one("#accept", Button).press()
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert [a.accepted for a in answers(study)] == [False, True]
    # Accepted once: the next start goes straight to the list.
    again = make_app()
    async with again.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(again.screen, PickerScreen))
        assert len(answers(study)) == 2
        # Nothing before the list: the picker is the app's first screen (drawn whole at once).
        assert again.screen_stack == [again.picker]
    # A changed text is asked for again, before the next instance.
    study.instructions_path.write_text(TEXT + "\nNew: no calculators.\n", encoding="utf-8")
    third = make_app()
    async with third.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(third.screen, InstructionsScreen))


async def test_declining_and_quitting_records_no_consent_and_opens_nothing(make_app) -> None:
    app = make_app(instructions=TEXT)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, InstructionsScreen))
        app.screen.query_one("#decline", Button).press()
        await _wait(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        app.screen.query_one("#no", Button).press()  # quit
        await _wait(pilot, lambda: not app.is_running)
    assert [a.accepted for a in answers(app.plan.study)] == [False]
    assert not list(app.plan.study.recordings.rglob("*.jsonl"))


def _locked(picker: PickerScreen) -> list[str]:
    table = picker.query_one("#picker-table", DataTable)
    return [str(key.value) for key in table.rows if str(table.get_row(key)[2]) == "locked"]


async def _answer(pilot: Any, app: Any, text: str) -> None:
    await pilot.press("n")
    await _wait(pilot, lambda: isinstance(app.screen, PlayScreen))
    screen = app.screen
    await pilot.press("f4", *text, "ctrl+s")
    await _wait(pilot, lambda: isinstance(app.screen, ConfirmScreen))
    await pilot.press("y")
    await _wait(pilot, lambda: screen.session.submitted)
    await pilot.press("escape")
    await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))


async def test_counted_instances_open_only_after_enough_practice_is_right(
    make_app, workspace
) -> None:
    app = make_app(practice=2, qualify=1)
    plan = app.plan
    counted = [str(idx) for idx in plan.counted]
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        picker = app.screen
        assert _locked(picker) == counted
        banner = str(picker.query_one("#picker-gate", Static).render())
        assert "open once 1 of your 2 practice answers are right" in banner
        app.open_instance(plan.counted[0])  # chosen anyway: refused, said why
        await pilot.pause(0.05)
        assert isinstance(app.screen, PickerScreen)
        # A wrong first practice answer: still pending (one practice instance left).
        await _answer(pilot, app, "surely wrong")
        assert _locked(picker) == counted
        # The second one right (its gold): qualified, everything opens.
        gold = str(workspace.tasks.get(plan.practice[1]).answer)
        await _answer(pilot, app, gold)
        assert _locked(picker) == [] and picker.gate is None
        assert not picker.query_one("#picker-gate").has_class("-shown")
        await pilot.press("n")
        await _wait(pilot, lambda: isinstance(app.screen, PlayScreen))
        assert app.screen.session.instance.idx == plan.counted[0]


async def test_an_annotator_who_cannot_qualify_any_more_is_told_so(make_app) -> None:
    app = make_app(practice=2, qualify=2)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        picker = app.screen
        await _answer(pilot, app, "wrong")  # 2 of 2 needed, one already wrong
        assert picker.gate is not None and picker.gate.final
        banner = picker.query_one("#picker-gate", Static)
        assert banner.has_class("-final")
        assert "You did not qualify" in str(banner.render())
        assert _locked(picker) == [str(idx) for idx in app.plan.counted]
        # The organizer lowers the bar: the next instance opens.
        set_qualify(str(app.plan.study.folder), 1)
        await _answer(pilot, app, str(app.workspace.tasks.get(app.plan.practice[1]).answer))
        assert picker.gate is None


async def test_next_says_why_nothing_opens_while_instances_are_locked(make_app) -> None:
    # Practice answered and not qualified: "n" (in the picker, and from the play screen's
    # way to the next instance) says the counted instances are locked and why, never
    # "Every instance in this list has been answered".
    app = make_app(practice=1, qualify=1)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        picker = app.screen
        await _answer(pilot, app, "wrong")
        assert picker.gate is not None and picker.gate.final
        for ask in (lambda: pilot.press("n"), lambda: _call(app.open_next_unsolved)):
            app.clear_notifications()
            await ask()
            await _wait(pilot, lambda: bool(list(app._notifications)))
            said = [note.message for note in app._notifications]
            assert said == [picker.gate.message] and "did not qualify" in said[0]
            assert isinstance(app.screen, PickerScreen)


async def _call(function: Any) -> None:
    function()


async def test_a_study_keeps_its_own_query_history(make_app) -> None:
    home_file = history_path("ann")  # free play's, under CRMTUI_HOME
    home_file.parent.mkdir(parents=True, exist_ok=True)
    home_file.write_text(json.dumps({"text": "SELECT Id FROM Account"}) + "\n")
    app = make_app()
    study = app.plan.study
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("n")
        await _wait(pilot, lambda: isinstance(app.screen, PlayScreen))
        console = app.screen.query_one(QueryConsole)
        assert console.history.entries == []  # nothing from free play
        await pilot.press("f3", *"SELECT Id FROM Case LIMIT 1", "f5")
        await _wait(pilot, lambda: "SELECT Id FROM Case LIMIT 1" in console.history.entries)
    own = history_path("ann", study.history)
    assert own.parent == study.folder / "history"
    assert "SELECT Id FROM Case LIMIT 1" in own.read_text()
    assert "Case" not in home_file.read_text()
    assert home_file.parent == paths.home() / "history"
    # Another study of the same annotator starts empty.
    other = make_app("other")
    async with other.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(other.screen, PickerScreen))
        await pilot.press("n")
        await _wait(pilot, lambda: isinstance(other.screen, PlayScreen))
        assert other.screen.query_one(QueryConsole).history.entries == []
