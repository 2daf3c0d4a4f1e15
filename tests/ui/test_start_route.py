"""One route from a start (a browser sign-in's included) to the picker (#33).

A start used to reach the picker two ways (``get_default_screen``, and ``on_mount`` ->
``after_instructions`` -> ``_start``), each scanning for an unfinished session and guarded
by flags. Now both follow one decision, :meth:`CrmtuiApp._route`, made once: whatever the
start, the recordings are scanned for an unfinished session at most once, the picker is
built at most once before anything closes, and the first screen is the picker exactly when
there is nothing to accept first and nothing to reopen.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from crmtui.config import PlayConfig
from crmtui.factory import build_play_app
from crmtui.study import StudyPlan
from crmtui.study.launch import play_config
from crmtui.ui.app import CrmtuiApp as PlayApp
from crmtui.ui.screens.picker import PickerScreen
from crmtui.ui.screens.play import PlayScreen
from tests.ui.test_study_play import SIZE, _study, _wait
from tests.waiting import deadline


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often any app scans for an unfinished session and builds a picker."""
    counts = {"scans": 0, "pickers": 0}
    resumable, new_picker = PlayApp.resumable, PlayApp._new_picker

    def scan(self: Any) -> Any:
        counts["scans"] += 1
        return resumable(self)

    def build(self: Any) -> Any:
        counts["pickers"] += 1
        return new_picker(self)

    monkeypatch.setattr(PlayApp, "resumable", scan)
    monkeypatch.setattr(PlayApp, "_new_picker", build)
    return counts


async def _first_screens(app: Any, target: type) -> list[str]:
    """Every screen the app shows on its way, from its first frame to ``target``."""
    screens: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        end = deadline()
        while time.monotonic() < end:
            screens.append(type(app.screen).__name__)
            if isinstance(app.screen, target) and app.started:
                break
            await pilot.pause(0.01)
        await _wait(pilot, lambda: app.started)
    return screens


async def test_free_play_opens_on_the_picker_and_asks_once(
    tmp_path: Path, workspace: Any, clock: Any, wall: Any, counted: dict[str, int]
) -> None:
    config = PlayConfig(annotator="tester", recordings=tmp_path / "rec", fsync=False)
    app = build_play_app(config, workspace=workspace, clock=clock, wall=wall)
    screens = await _first_screens(app, PickerScreen)
    assert screens[0] == "PickerScreen"  # the app's first screen, not pushed later
    assert counted == {"scans": 1, "pickers": 1}


@pytest.mark.parametrize("unfinished", [False, True])
async def test_a_study_start_decides_once(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    workspace: Any,
    clock: Any,
    wall: Any,
    counted: dict[str, int],
    unfinished: bool,
) -> None:
    monkeypatch.setenv("CRMTUI_STUDIES", str(tmp_path / "studies"))
    study = _study(tmp_path, workspace)

    def app() -> Any:
        config = play_config(study, "ann", fsync=False)
        return build_play_app(
            config, workspace=workspace, plan=StudyPlan(study, "ann"), clock=clock, wall=wall
        )

    if unfinished:
        first = app()
        async with first.run_test(size=SIZE) as pilot:
            await _wait(pilot, lambda: isinstance(first.screen, PickerScreen))
            await pilot.press("n")
            await _wait(pilot, lambda: isinstance(first.screen, PlayScreen))
            first.exit()  # a dropped connection: the attempt stays unfinished
        counted.update(scans=0, pickers=0)

    second = app()
    screens = await _first_screens(second, PlayScreen if unfinished else PickerScreen)
    assert counted["scans"] == 1
    if unfinished:
        assert "PickerScreen" not in screens and screens[-1] == "PlayScreen"
        assert counted["pickers"] == 0  # the picker comes when the instance closes
    else:
        assert screens[0] == "PickerScreen" and counted["pickers"] == 1
