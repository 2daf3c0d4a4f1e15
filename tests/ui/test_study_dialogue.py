"""Multi-turn studies in the play app: a participant's seat follows their role.

A study made with ``--interactive`` gives an annotator in the agent role the chat region
with simulated user (a scripted model over real HTTP), recording into the study; the
picker's title says whom they talk to. With ``--roles agent,user`` two people are paired:
both open the same instance, meet on the pair's channel, and both record into the study.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from crmtui.factory import build_play_app
from crmtui.play.dialogue import STOP_TOKEN
from crmtui.play.workspace import Workspace
from crmtui.record.verify import load, verify
from crmtui.review.dialogue_report import scored_reward
from crmtui.review.export import CSV_COLUMNS, _csv_row
from crmtui.study import StudyPlan, StudyRequest, create_study, load_study, study_status
from crmtui.study.launch import play_config
from crmtui.study.render import status_grids
from crmtui.study.report import report_study
from crmtui.study.roles import Conversation
from crmtui.ui.screens.as_user import UserScreen
from crmtui.ui.screens.picker import PickerScreen
from crmtui.ui.screens.play import PlayScreen
from crmtui.ui.widgets.chat import ChatPanel
from crmtui.ui.widgets.transcript import Transcript
from tests.fakes.openai_server import FakeOpenAI, text
from tests.fixtures import pro_org as fx
from tests.ui.dialogue_helpers import ANSWER, ASK, IDX, OPENING
from tests.ui.dialogue_helpers import screen_text as _screen_text
from tests.ui.dialogue_helpers import wait as _wait


def _chat_open(app: Any) -> bool:
    return isinstance(app.screen, PlayScreen) and bool(app.screen.query(ChatPanel))


def _study(tmp_path: Path, workspace: Any, conversation: Conversation, **kwargs: Any) -> Any:
    made, _ = create_study(
        StudyRequest(
            name=str(tmp_path / "studies" / "chat"),
            annotators=kwargs.pop("annotators", ["ann"]),
            idx=[IDX],
            shared=0.0,
            overlap=1,
            conversation=conversation,
            **kwargs,
        ),
        workspace=workspace,
    )
    return made


async def test_a_participant_in_the_agent_role_talks_to_the_simulated_user(
    pro_workspace: Workspace, user_server: Any, tmp_path: Path, clock: Any, wall: Any
) -> None:
    study = _study(
        tmp_path,
        pro_workspace,
        Conversation(user_model="openai/user", user_api_base=user_server.base_url),
    )
    assert "api_key" not in study.definition_path.read_text() and "sk-" not in (
        study.definition_path.read_text()
    )
    user_server.push(text(OPENING), text(STOP_TOKEN))
    config = play_config(study, "ann", fsync=False)
    app = build_play_app(
        config, workspace=pro_workspace, plan=StudyPlan(study, "ann"), clock=clock, wall=wall
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert "talking to simulated user openai/user" in app.plan.title
        # The query is the user's hidden instruction: the picker does not show it either.
        listed = _screen_text(app.screen)
        assert "(the user will tell you)" in listed
        assert " ".join(fx.PRO_ROWS[IDX]["query"].split())[:25] not in listed
        await pilot.press("n")
        await _wait(
            pilot, lambda: isinstance(app.screen, PlayScreen) and app.screen.query(ChatPanel)
        )
        screen = app.screen
        chat = screen.query_one(ChatPanel)
        await _wait(pilot, lambda: len(chat.messages) == 1)
        await pilot.press("f4", *f"Route it to {fx.U4}", "enter")
        await _wait(pilot, lambda: screen.session.submitted)
        assert "1.0" not in str(screen.query_one("#answer-result").render())  # blind
    (path,) = sorted(study.recordings.rglob("*.jsonl"))
    assert verify(path).ok
    recording = load(path)
    assert recording.header["dialogue"]["user"]["id"] == "openai/user"
    assert recording.submit is not None and recording.submit.payload["reward"] == 1.0
    assert recording.submit.payload["answer"] == f"Route it to {fx.U4}"
    result = report_study(load_study(study.folder))
    kinds = result.report.dialogue_kinds
    assert [(k.pairing, k.dialogues, k.success) for k in kinds] == [("human/model", 1, 1.0)]
    # Every table counts the dialogue: the annotators' accuracy as the pairing table does.
    (ann,) = result.annotators
    assert (ann.scored, ann.right) == (1, 1)
    # The export has it with a dialogue id (one recording: its session's) and its reward.
    _assert_export_agrees(study, tmp_path, {"ann": 1.0})
    # A counted dialogue that ended unanswered scores 0 in the report and in the export.
    summary = result.report.dialogues[0]
    unanswered = replace(summary, reward=None, submitted=False, answer=None,
                         end_reason="Out of user turns")  # fmt: skip
    assert scored_reward(unanswered) == 0.0 and scored_reward(unanswered, counted=False) is None
    assert _csv_row(unanswered, True, study.recordings)[CSV_COLUMNS.index("reward")] == 0.0


def _assert_export_agrees(study: Any, tmp_path: Path, rewards: dict[str, float]) -> None:
    import csv

    from crmtui.review.export import export_folder
    from crmtui.study.report import excluded_reason

    out = tmp_path / "export.csv"
    export_folder(study.recordings, "csv", out, exclude=lambda s: excluded_reason(study, s))
    rows = [r for r in csv.DictReader(out.open()) if r["counted"] == "True"]
    assert {r["actor_id"]: float(r["reward"]) for r in rows if r["dialogue_role"] == "agent"} == (
        rewards
    )
    assert all(r["dialogue_id"] for r in rows)


async def _until(pilots: list[Any], condition: Any, seconds: float = 60.0) -> None:
    """Until ``condition()`` holds, pausing both apps (a deadline: a loaded machine only
    makes two apps typing key by key slower)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for pilot in pilots:
            await pilot.pause(0.01)
        if condition():
            return
    raise AssertionError("condition not met in time")


async def test_two_participants_in_opposite_roles_meet_and_both_record_into_the_study(
    pro_workspace: Workspace, tmp_path: Path, clock: Any, wall: Any
) -> None:
    study = _study(
        tmp_path,
        pro_workspace,
        Conversation(user_model="openai/unused"),
        annotators=["ann", "ben"],
        roles=["agent", "user"],
    )
    apps = []
    for who in ("ann", "ben"):
        # Two apps in one process: a loaded machine may delay a heartbeat for seconds.
        config = replace(play_config(study, who, fsync=False), partner_timeout_s=60.0)
        apps.append(build_play_app(config, workspace=pro_workspace,
                                   plan=StudyPlan(study, who), clock=clock, wall=wall))  # fmt: skip
    agent_app, user_app = apps
    assert "you play the user, talking to ann (person)" in user_app.plan.title
    async with agent_app.run_test(size=(160, 48)) as ap, user_app.run_test(size=(80, 24)) as up:
        pilots = [ap, up]
        await _until(pilots, lambda: all(isinstance(a.screen, PickerScreen) for a in apps))
        await ap.press("n")
        # ann waits for ben; the box says how a study partner joins (not play --channel).
        await _until(pilots, lambda: agent_app.screen.__class__.__name__ == "WaitingScreen")
        waiting = "\n".join(str(s.render()) for s in agent_app.screen.query(".dialog-text"))
        assert "crmtui play --study" in waiting and "--annotator ben" in waiting
        assert "--channel" not in waiting
        await up.press("n")
        await _until(
            pilots, lambda: _chat_open(agent_app) and isinstance(user_app.screen, UserScreen)
        )
        agent_chat = agent_app.screen.query_one(ChatPanel)
        user_screen = user_app.screen
        await up.press(*"Who gets my lead?", "enter")
        await _until(pilots, lambda: len(agent_chat.messages) == 1)
        await ap.press("f4", *f"Route it to {fx.U4}", "enter")
        await _until(pilots, lambda: len(user_screen.query_one(ChatPanel).messages) == 2)
        await up.press("f9")
        await _until(pilots, lambda: user_app.screen.__class__.__name__ == "ConfirmScreen")
        await up.press("y")
        await _until(pilots, lambda: agent_app.screen.session.submitted)
    paths = sorted(study.recordings.rglob("*.jsonl"))
    assert [p.relative_to(study.recordings).parts[0] for p in paths] == ["ann", "ben"]
    recordings = [load(p) for p in paths]
    assert all(verify(p).ok for p in paths)
    agent, user = recordings
    assert agent.header["dialogue"]["id"] == user.header["dialogue"]["id"]
    assert agent.header["dialogue"]["user"]["id"] == "ben"
    assert user.header["dialogue"]["agent"]["id"] == "ann"
    assert agent.submit is not None and agent.submit.payload["answer"] == f"Route it to {fx.U4}"
    # study status: both sides are done, each row says the role and the partner.
    rows = {row.annotator: row for row in study_status(load_study(study.folder)).annotators}
    assert rows["ann"].done == rows["ben"].done == 1
    assert (rows["ann"].role, rows["ann"].partner) == ("agent", "ben (person)")
    assert (rows["ben"].role, rows["ben"].partner) == ("user", "ann (person)")
    grid = status_grids(study_status(study))[0]
    assert grid[1][:3] == ["Annotator", "Role", "Talks to"]
    assert "Practice" not in grid[1]  # no practice in this study: no column of dashes
    # study report: the dialogue counts once (from ann's recording), as person/person.
    result = report_study(load_study(study.folder))
    assert [(k.pairing, k.dialogues, k.success) for k in result.report.dialogue_kinds] == [
        ("human/human", 1, 1.0)
    ]
    # The agent's accuracy counts it; a pair is one seat, so nothing is shared, in the
    # status as in the report.
    stats = {row.annotator: (row.scored, row.right) for row in result.annotators}
    assert stats == {"ann": (1, 1), "ben": (0, 0)}
    assert result.study.shared == [] and not any(i.shared for i in study_status(study).instances)
    _assert_export_agrees(study, tmp_path, {"ann": 1.0})


async def test_a_participant_in_the_user_role_talks_to_the_studys_model_agent(
    pro_workspace: Workspace, tmp_path: Path, clock: Any, wall: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI(model_name="agent") as agent:
        study = _study(
            tmp_path,
            pro_workspace,
            Conversation(user_model="openai/unused", agent_model="openai/agent",
                         agent_api_base=agent.base_url),
            roles=["user"],
        )  # fmt: skip
        agent.push(text(ASK), text(ANSWER))
        app = build_play_app(play_config(study, "ann", fsync=False), workspace=pro_workspace,
                             plan=StudyPlan(study, "ann"), clock=clock, wall=wall)  # fmt: skip
        assert "you play the user, talking to model agent openai/agent" in app.plan.title
        async with app.run_test(size=(80, 24)) as pilot:
            await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
            await pilot.press("n")
            await _wait(pilot, lambda: isinstance(app.screen, UserScreen))
            screen = app.screen
            chat = screen.query_one(ChatPanel)
            await pilot.press(*"I need to route a new lead.", "enter")
            await _wait(pilot, lambda: len(chat.messages) == 2)
            await pilot.press(*"Ohio", "enter")
            await _wait(pilot, lambda: len(chat.messages) == 4)
            await pilot.press("f9")
            await _wait(pilot, lambda: app.screen.__class__.__name__ == "ConfirmScreen")
            await pilot.press("y")
            await _wait(pilot, lambda: screen.seat.outcome is not None)
            # Ended: said in the person's words (not upstream's "Submit action"), and F9
            # offers what it now does, the next instance.
            await _wait(pilot, lambda: screen.active_bindings["f9"].binding.description
                        == "Next instance")  # fmt: skip
            transcript = screen.query_one(Transcript).plain_text
            assert "Ended: " in transcript and "Submit action" not in transcript
            assert "End the conversation" not in [
                b.binding.description for b in screen.active_bindings.values()
            ]
            # The conversation counts once: back in the picker, "n" finds nothing left.
            await pilot.press("escape")
            await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
            assert app.picker.status[IDX].done  # marked done as it ended, not left to a rescan
            assert "1 done" in str(app.picker.query_one("#picker-summary").render())
            await pilot.press("n")
            await pilot.pause(0.2)
            assert isinstance(app.screen, PickerScreen)
            app.open_instance(IDX)  # and opening it again says so instead of starting over
            await pilot.pause(0.1)
            assert isinstance(app.screen, PickerScreen)
    paths = sorted(study.recordings.rglob("*.jsonl"))
    assert len(paths) == 2 and all(verify(p).ok for p in paths)
    result = report_study(load_study(study.folder))
    assert [(k.pairing, k.dialogues, k.success) for k in result.report.dialogue_kinds] == [
        ("model/human", 1, 1.0)
    ]
    assert "not a human session" not in result.excluded
    status = study_status(study)
    assert status.skipped == 0  # the model agent's recording is not an unreadable file
    (row,) = status.annotators
    assert row.done == 1 and row.partner == "model agent openai/agent"
