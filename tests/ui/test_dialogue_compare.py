"""The compare screen with dialogues: the conversations side by side, turn by turn."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from textual.widgets import Static

from crmtui.factory import build_compare_app
from crmtui.record import load
from crmtui.review.compare import compare
from tests.unit.dialogue.builders import ANN, MODEL, SIM, write_dialogue
from tests.unit.dialogue.test_dialogue_compare import ASKS, TOLD


def _shown(widget: Static) -> str:
    console = Console(width=240, record=True, file=io.StringIO(), color_system=None)
    console.print(widget.content)
    return console.export_text()


async def test_the_screen_opens_on_both_conversations_and_c_brings_them_back(
    tmp_path: Path,
) -> None:
    comparison = compare(
        [
            load(write_dialogue(tmp_path, MODEL, SIM, ASKS, 1.0)),
            load(write_dialogue(tmp_path, MODEL, ANN, TOLD, 0.0)),
        ]
    )
    app = build_compare_app(comparison)
    async with app.run_test(size=(160, 48)) as pilot:
        detail = app.screen.query_one("#detail-text", Static)
        shown = _shown(detail)
        assert "1 openai/agent (react) ↔ openai/user" in shown
        assert "2 openai/agent (react) ↔ ann" in shown
        for text in ("Over how many cases?", "Over two cases.", "(ended)", "006"):
            assert text in shown
        assert "[period: Q2 of 2021, threshold: over two cases]" in shown
        await pilot.press("enter")  # a row's steps replace it ...
        await pilot.pause()
        assert "Over how many cases?" not in _shown(detail)
        await pilot.press("c")  # ... and c brings the conversations back
        await pilot.pause()
        assert "Over how many cases?" in _shown(detail)
