"""SVG snapshots of the play screens (deterministic: fixed org, fake clocks)."""

from __future__ import annotations

import re

import pytest

from crmtui.factory import build_play_app
from crmtui.ui.scenes import SCENE_SIZES, SCENES


@pytest.mark.parametrize(
    "scene",
    [
        "picker",
        "play-table",
        "play-record",
        "play-console",
        "play-submitted",
        "help",
        "schema-tree",
        "completion",
        "play-80x24",
        "pause",
    ],
)
def test_play_screens(scene, snap_compare, workspace, play_config, clock, wall) -> None:
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    size = SCENE_SIZES.get(scene, (160, 48))
    assert snap_compare(app, terminal_size=size, run_before=SCENES[scene])


def test_play_screen_at_120x36(snap_compare, workspace, play_config, clock, wall) -> None:
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    assert snap_compare(app, terminal_size=(120, 36), run_before=SCENES["play-table"])


async def test_the_paused_screen_shows_nothing_of_the_instance(
    workspace, play_config, clock, wall
) -> None:
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=(160, 48)) as pilot:
        await SCENES["pause"](pilot)
        screen_text = _text(app.export_screenshot())
        play = app.screen_stack[-2]
        instance = play.session.instance
        words = {
            w
            for source in (instance.query, instance.metadata.required, str(instance.idx))
            for w in re.findall(r"[A-Za-z0-9']{5,}", source)
        }
        assert "Paused" in screen_text
        shown = sorted(w for w in words if w in screen_text)
        assert shown == [], shown
        for name in ("Case", "Account", "LiveChatTranscript", "Answer", "Query"):
            assert name not in screen_text


def _text(svg: str) -> str:
    body = re.sub(r"<style.*?</style>", " ", svg, flags=re.S)
    body = re.sub(r"<[^>]+>", " ", body)
    return body.replace("&#160;", " ").replace("&amp;", "&")
