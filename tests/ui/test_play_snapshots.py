"""SVG snapshots of the play screens (deterministic: fixed org, fake clocks)."""

from __future__ import annotations

import pytest

from crmtui.factory import build_play_app
from crmtui.ui.scenes import SCENES


@pytest.mark.parametrize(
    "scene", ["picker", "play-table", "play-record", "play-console", "play-submitted", "help"]
)
def test_play_screens(scene, snap_compare, workspace, play_config, clock, wall) -> None:
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    assert snap_compare(app, terminal_size=(160, 48), run_before=SCENES[scene])


def test_play_screen_at_120x36(snap_compare, workspace, play_config, clock, wall) -> None:
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    assert snap_compare(app, terminal_size=(120, 36), run_before=SCENES["play-table"])
