"""Honest timing and answers: activity, terminal focus, the stop at submit, rules, resume."""

from __future__ import annotations

from textual import events

from crmtui.factory import build_play_app
from crmtui.record.verify import load, verify
from crmtui.ui.screens.dialogs import ConfirmScreen
from crmtui.ui.screens.picker import PickerScreen
from crmtui.ui.screens.play import PlayScreen
from crmtui.ui.widgets.console import QueryConsole
from tests.ui.test_play_flow import _open_first, _recording, _wait

SIZE = (160, 48)


async def test_typing_counts_as_activity_and_focus_changes_are_recorded(
    workspace, play_config, clock, wall
):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        await pilot.press("f4")
        clock.advance(50)
        await pilot.press("O")  # typed into the answer box: activity, so no idle gap
        clock.advance(50)
        await pilot.press("R")
        app.post_message(events.AppBlur())
        await pilot.pause(0.05)
        clock.advance(20)
        app.post_message(events.AppFocus())
        await pilot.pause(0.05)
        assert screen.session.active_seconds == 120
    types = [e.type for e in load(_recording(play_config)).events]
    assert "idle" not in types
    assert types.index("app_blur") < types.index("app_focus")


async def test_submit_names_no_rule_stops_the_clock_and_names_the_metric_after(
    workspace, play_config, clock, wall
):
    kqa = next(inst for inst in workspace.tasks if inst.reward_metric == "fuzzy_match")
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        app.open_instance(kqa.idx)
        await _wait(pilot, lambda: isinstance(app.screen, PlayScreen))
        screen = app.screen
        await pilot.press("f4", *"waterproof", "ctrl+s")
        await _wait(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        # Nothing of how it is scored before the answer is final (docs/parity.md).
        assert "token F1" not in app.screen.question and "Scored" not in app.screen.question
        clock.advance(7)
        await pilot.press("y")
        await _wait(pilot, lambda: screen.session.submitted)
        spent = screen.session.active_seconds
        clock.advance(300)
        await pilot.press("tab")
        assert screen.session.active_seconds == spent
        result = str(screen.query_one("#answer-result").render())
        assert "(token F1)" in result and "strict" not in result


async def test_no_exact_match_rule_before_submitting_and_picker_counts(
    workspace, play_config, clock, wall
):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)  # idx 0 is a knowledge question; take an exact one
        await pilot.press("escape")
        await pilot.press("y")
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        exact = [i for i in workspace.tasks if i.reward_metric == "exact_match"][:2]
        for inst, answer in ((exact[0], str(exact[0].answer)), (exact[1], "surely wrong")):
            app.open_instance(inst.idx)
            await _wait(pilot, lambda: isinstance(app.screen, PlayScreen))
            screen = app.screen
            screen.query_one("#answer-input").value = answer
            await pilot.press("ctrl+s")
            await _wait(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            assert "exact match" not in app.screen.question
            await pilot.press("y")
            await _wait(pilot, lambda s=screen: s.session.submitted)
            await pilot.press("escape")
            await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        summary = str(app.screen.query_one("#picker-summary").render())
        others = len(workspace.tasks) - 3
        assert f"1 right · 1 wrong · 1 unfinished · {others} not started" in summary


async def test_resume_restores_the_draft_answer_editor_notes_and_history(
    workspace, play_config, clock, wall
):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        await pilot.press("f3", *"SELECT Id FROM Issue__c", "f5")
        console = screen.query_one(QueryConsole)
        await _wait(pilot, lambda: console.query_one("#console-results").row_count > 0)
        await pilot.press("ctrl+a", *"SELECT Name FROM Issue__c")
        await pilot.press("ctrl+n", *"= 2 * 3")
        await pilot.press("f4", *"draft answer")
        clock.advance(5)
        screen.session.flush_pending(force=True)
        screen.session.recorder.suspend()  # the process dies here
        screen.session.claim.release()  # and the system lets its lock on the instance go
        app.session = None
    app2 = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app2.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app2.screen, ConfirmScreen))
        await pilot.press("y")
        await _wait(pilot, lambda: isinstance(app2.screen, PlayScreen))
        screen = app2.screen
        assert screen.query_one("#answer-input").value == "draft answer"
        assert screen.query_one("#notes-editor").text == "= 2 * 3"
        console = screen.query_one(QueryConsole)
        assert console.text == "SELECT Name FROM Issue__c"
        assert "SELECT Id FROM Issue__c" in console.history.entries
        assert screen.session.active_seconds >= 5
    assert verify(_recording(play_config)).ok
