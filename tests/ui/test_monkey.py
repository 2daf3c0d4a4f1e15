"""No key sequence ends the app: random keys over every screen (tests/ui/monkey.py).

Each scene starts the monkey on one screen: the picker, the play screen at 160x48 and at
80x24, the console with results, the value viewer, the compute tool, the notes, the dialogs
(their keys weighted up), a submitted instance's read-only view, replay at both sizes,
compare, the report, a study's play screen and its status screen, and watch (an agent on a
scripted model). Keys go in bursts without waiting for the screen to be drawn, wherever they
lead; an app that ends on purpose (the palette's Quit, closing the last screen) is started
again.

Property: zero crashes, zero hangs, zero crash logs; on every scene that plays, every few
bursts the recording verifies (intact, in order) and its last answer, editor and notes edits
(its submit, once submitted) are what the fields hold; every play recording written under the
monkey verifies at the end. (That the fields hold what was typed is the typing model's
property, tests/ui/test_input_integrity.py: random keys over every screen have no model.)
About 20,200 keys in all (KEYS per scene); the seed is fixed per scene so a failure names a
reproducible run (``scripts/monkey.py --scene NAME --seed N``).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest

from crmtui.agent.client import load_litellm
from crmtui.record.verify import verify
from tests.fakes.openai_server import FakeOpenAI
from tests.ui.monkey import Scene, run_monkey
from tests.ui.monkey_scenes import scenes

#: Keys sent per scene, 20,200 in all (the floor is 20,000): most where keys are cheap
#: (compare, the study screens, the viewer: 2-4 ms of CPU a key), fewer where every key
#: redraws a lot (replay, the report, watch, the picker: 10-16 ms a key), measured with
#: ``scripts/monkey.py --keys 500`` (it prints CPU seconds per scene). About 125 CPU seconds
#: in all; ``scripts/monkey.py`` runs any scene for longer.
KEYS = {
    "picker": 600,
    "play-160x48": 1500,
    "play-80x24": 800,
    "console": 700,
    "viewer": 2500,
    "compute": 700,
    "notes": 500,
    "dialogs": 800,
    "replay": 400,
    "compare": 4000,
    "report": 400,
    "study-play": 2500,
    "study-status": 3500,
    "replay-80x24": 400,
    "watch": 400,
    "read-only": 500,
}
SEED = 20260301
NAMES = list(KEYS)


@pytest.mark.parametrize("name", NAMES)
async def test_no_key_sequence_ends_the_app(
    name: str,
    workspace: Any,
    play_config: Any,
    tmp_path: Path,
    crmtui_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    clock: Any,
    wall: Any,
) -> None:
    monkeypatch.chdir(tmp_path)  # the palette's "Save screenshot" writes here
    with contextlib.ExitStack() as stack:
        server = None
        if name == "watch":  # a scripted model for the watched agent
            load_litellm(online=False)
            monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy-key")
            server = stack.enter_context(FakeOpenAI([]))
        scene: Scene = scenes(workspace, play_config, tmp_path, clock, wall, server)[name]
        report = await run_monkey(scene, KEYS[name], SEED + NAMES.index(name), home=crmtui_home)
        # The watched agent ran under the keys (stepped, resumed, stopped, the next instance).
        assert server is None or len(server.requests) > 1
    assert report.keys >= KEYS[name]
    # A scene that plays compared its fields with its recording as it went.
    assert scene.check is None or report.checks > 0
    for path in Path(play_config.recordings).rglob("*.jsonl"):
        result = verify(path)
        assert result.ok, (path, result.describe())


def test_a_ci_run_sends_at_least_20000_keys() -> None:
    """The issue's floor for one run of the suite."""
    assert sum(KEYS.values()) >= 20_000
