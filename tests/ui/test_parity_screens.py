"""The screens show what docs/parity.md says a person sees, and no hint of the scoring.

tests/unit/test_parity.py checks :func:`crmtui.play.person_view.person_view` against the
table for every task type and mode; this checks the screens draw that view and nothing more,
in each person mode: free play (on every Pro reward metric, the three confidentiality types
included), the agent of a dialogue and its user. Read from the screen as drawn: the query,
who is asking (the model's words), the task context; never the persona (it is the user's),
a confidentiality type's code, the gold, or how the answer will be scored (the submit dialog said
"Scored by a refusal" on the confidentiality types, "use the article's words" on insight
mining).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from crmtui.agent.prompts import audience_text
from crmtui.config import PlayConfig
from crmtui.data.instances import Instance
from crmtui.data.parity import person_task_label
from crmtui.factory import build_play_app
from crmtui.play.person_view import ANSWER_FORMAT
from crmtui.ui.screens.dialogs import ConfirmScreen
from crmtui.ui.screens.picker import PickerScreen
from crmtui.ui.screens.play import PlayScreen
from tests.fakes.openai_server import FakeOpenAI, text
from tests.fixtures import pro_org as fx
from tests.ui.dialogue_helpers import IDX, OPENING, screen_text, wait

SCORING_WORDS = ("scored", "reward", "token f1", "exact match", "refusal", "refuse", "judge",
                 "article's words", "confidential", "privacy")  # fmt: skip
PRIVACY = ("private_customer_information", "internal_operation_data",
           "confidential_company_knowledge")  # fmt: skip


def _row(idx: int) -> dict[str, Any]:
    return next(r for r in fx.PRO_ROWS if r["idx"] == idx)


def _no_hint(shown: str, where: str) -> None:
    low = shown.lower()
    for word in SCORING_WORDS:
        assert word not in low, (where, word)
    for code in PRIVACY:
        assert code not in shown, (where, code)


@pytest.mark.parametrize("idx", [12, 13, 14, 10, 11, 9])
async def test_free_play_shows_the_models_information_and_no_hint(
    pro_workspace: Any, tmp_path: Path, clock: Any, wall: Any, idx: int
) -> None:
    row = _row(idx)
    instance = Instance.from_row(row)
    config = PlayConfig(annotator="tester", recordings=tmp_path / "rec", fsync=False, idx=idx)
    app = build_play_app(config, workspace=pro_workspace, clock=clock, wall=wall)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait(pilot, lambda: isinstance(app.screen, PlayScreen))
        screen = app.screen
        query = " ".join(row["query"].split())[:40]
        await wait(pilot, lambda: query in " ".join(screen_text(screen).split()))  # drawn
        shown = " ".join(screen_text(screen).split())
        where = f"idx {idx} {row['task']}"
        assert " ".join(row["query"].split())[:40] in shown, where
        audience = audience_text(instance)
        assert audience is not None and audience[:60] in shown, where  # the model's words
        assert row["persona"][:40] not in shown, where  # the simulated user's, not the agent's
        assert f"idx {idx} · {person_task_label(row['task'])[1]} ·" in shown, where
        assert ANSWER_FORMAT[:30] in shown, where
        _no_hint(shown, where)
        # The submit dialog asks, and says nothing of how the answer is scored.
        await pilot.press("f4", *"Sure", "ctrl+s")
        await wait(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await wait(pilot, lambda: app.screen.query("#yes"))
        question = app.screen.question
        assert "Sure" in question
        _no_hint(question, where + " submit dialog")
        _no_hint(screen_text(app.screen), where + " submit dialog")


async def test_the_picker_labels_tell_no_confidentiality_type(
    pro_workspace: Any, tmp_path: Path, clock: Any, wall: Any
) -> None:
    config = PlayConfig(annotator="tester", recordings=tmp_path / "rec", fsync=False)
    app = build_play_app(config, workspace=pro_workspace, clock=clock, wall=wall)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        picker = app.screen
        mounting = picker._mount_filter()
        if mounting is not None:
            await mounting
        await pilot.pause(0.1)
        shown = screen_text(picker)
        _no_hint(shown, "picker")
        options = [str(prompt) for prompt, _ in picker.query_one("#picker-filter")._options]
        assert not any(code in option for option in options for code in PRIVACY)
        assert "CR · customer_request" in options
        # The five customer-facing types (KQA, NED, the three confidentiality ones) share it.
        labels = {row["task"]: picker.query_one("#picker-table").get_row(str(row["idx"]))[1]
                  for row in fx.PRO_ROWS}  # fmt: skip
        assert {labels[t] for t in (*PRIVACY, "knowledge_qa")} == {"CR"}


@pytest.fixture
def agent_server(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI(model_name="agent") as server:
        yield server


async def test_the_agent_of_a_dialogue_sees_the_context_not_the_query_or_persona(
    pro_workspace: Any, user_server: Any, tmp_path: Path, clock: Any, wall: Any
) -> None:
    from tests.ui.test_dialogue_agent import _config

    row = _row(IDX)
    user_server.push(text(OPENING))
    app = build_play_app(
        _config(tmp_path, user_server), workspace=pro_workspace, clock=clock, wall=wall
    )
    async with app.run_test(size=(160, 48)) as pilot:
        await wait(pilot, lambda: isinstance(app.screen, PlayScreen))
        screen = app.screen
        await wait(pilot, lambda: OPENING[:30] in screen_text(screen))
        shown = " ".join(screen_text(screen).split())
        assert " ".join(row["query"].split())[:30] not in shown
        assert row["persona"][:40] not in shown
        assert "Lead Routing Policy" in shown  # the task context
        assert audience_text(Instance.from_row(row))[:32] in shown  # wrapped in its panel
        _no_hint(shown, "agent seat")


async def test_the_user_of_a_dialogue_sees_persona_and_instruction_not_the_context(
    pro_workspace: Any, agent_server: Any, tmp_path: Path, clock: Any, wall: Any
) -> None:
    from crmtui.ui.screens.as_user import UserScreen
    from tests.ui.test_dialogue_user import _config

    row = _row(IDX)
    app = build_play_app(
        _config(tmp_path, agent_server), workspace=pro_workspace, clock=clock, wall=wall
    )
    async with app.run_test(size=(160, 48)) as pilot:
        await wait(pilot, lambda: isinstance(app.screen, UserScreen))
        persona = row["persona"][:40]
        await wait(pilot, lambda: persona in " ".join(screen_text(app.screen).split()))  # drawn
        shown = " ".join(screen_text(app.screen).split())
        assert row["persona"][:40] in shown
        assert " ".join(row["query"].split())[:30] in shown
        assert "Lead Routing Policy" not in shown and "Salesforce instance" not in shown
        _no_hint(shown, "user seat")
