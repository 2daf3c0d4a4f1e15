"""What a cold ``crmtui play`` does before its picker is on screen.

* Free play opens on the picker as the app's first screen (pushed over Textual's blank
  default screen, the picker took three frames: the top line, then the filter, then the
  table ~40 ms later), and closing an instance comes back to that same picker.
* Before the picker's first frame, a start loads none of the modules that only later work
  needs (the dialogue core, the loading screen, the recorder, the web driver, rich's emoji
  table): each was a few ms of every start (benchmarks/bench_play.py --only start).
* Of crmtui's dataclasses, only those listed (:data:`START_DATACLASSES`) are created before
  the first frame: the records a start only builds are value classes.
* A plain ``crmtui play`` reaches its app without click (its options and click cost ~11 ms
  of CPU: crmtui/commands/play_run.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from crmtui.factory import build_play_app
from crmtui.ui.screens.picker import PickerScreen
from crmtui.ui.screens.play import PlayScreen

from .test_play_flow import SIZE, _wait

#: Loaded by later work only; none of them before the picker's first frame.
LATER = (
    "crmtui.play.dialogue",
    "crmtui.ui.screens.loading",
    "crmtui.ui.screens.dialogs",
    "crmtui.record.recorder",
    "crmtui.agent.client",
    "textual.drivers.web_driver",
    "rich._emoji_codes",
    "textual.widgets._text_area",  # and tree-sitter with it: the picker has no TextArea
    "litellm",
    "datasets",
    "crmtui.ui.keys",  # the help and the palette: their keys are gathered when they open
    "crmtui.data.parity",  # the parity table (the picker's labels are in data.tasktypes)
    "crmtui.org.info",  # `crmtui org info`'s summaries
)

#: crmtui's dataclasses a start creates before the picker's first frame: generating a
#: dataclass's methods costs ~0.6-1 ms of it, so the records it only builds are value classes
#: (crmtui/value_class.py). This one remains: ``dataclasses.replace`` is used on it.
START_DATACLASSES = {"crmtui.config.PlayConfig"}

_PROBE = """
import json, sys, asyncio, time
from crmtui.config import PlayConfig
from crmtui.play.workspace import load_workspace
from crmtui.factory import build_play_app
from crmtui.ui.app import CrmtuiApp

seen = {}
after = CrmtuiApp._after_first_frame
def first_frame(self):
    seen.setdefault("modules", sorted(sys.modules))
    seen.setdefault("dataclasses", sorted(
        f"{name}.{value.__qualname__}"
        for name, module in list(sys.modules.items()) if name.startswith("crmtui")
        for value in list(vars(module).values())
        if isinstance(value, type) and value.__module__ == name
        and "__dataclass_fields__" in vars(value)
    ))
    seen.setdefault("stack", [type(s).__name__ for s in self.screen_stack])
    after(self)
CrmtuiApp._after_first_frame = first_frame

config = PlayConfig(annotator="probe", recordings=sys.argv[1], fsync=False)
app = build_play_app(config, workspace=load_workspace(config))
async def main():
    async with app.run_test(size=(160, 48)) as pilot:
        until = time.monotonic() + 120
        while time.monotonic() < until:
            if "modules" in seen:
                break
            await pilot.pause(0.01)
asyncio.run(main())
print(json.dumps(seen))
"""


def test_nothing_later_work_needs_is_loaded_before_the_pickers_first_frame(
    tmp_path: Path,
) -> None:
    # The sample built first, as on every start but the first (building loads the generator).
    build = "from crmtui.org.sample import ensure_sample; ensure_sample()"
    subprocess.run([sys.executable, "-c", build], check=True, capture_output=True)
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(tmp_path / "recordings")],
        capture_output=True,
        text=True,
        check=True,
    )
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["stack"] == ["PickerScreen"]
    modules = set(seen["modules"])
    assert [name for name in LATER if name in modules] == []
    assert "crmtui.config.PlayConfig" in seen["dataclasses"]  # the probe sees them
    assert set(seen["dataclasses"]) <= START_DATACLASSES, seen["dataclasses"]


async def test_free_play_opens_on_the_picker_and_comes_back_to_it(
    workspace, play_config, clock, wall
):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        picker = app.screen
        assert app.screen_stack == [picker] and app.picker is picker
        await pilot.press("enter")
        await _wait(pilot, lambda: isinstance(app.screen, PlayScreen))
        assert app.screen_stack[0] is picker
        app.screen._submit("an answer")
        await pilot.press("escape")
        await _wait(pilot, lambda: app.screen is picker)
        assert app.screen_stack == [picker] and picker.status[0].submitted


_CLI_PROBE = """
import json, sys
import crmtui.factory
def run_app(app):
    print(json.dumps(sorted(sys.modules)))
crmtui.factory.run_app = run_app
from crmtui.cli import main
main(["play", "--annotator", "probe", "--recordings", sys.argv[1]])
"""

#: What only click's reading of a command line loads.
CLICK = ("click", "crmtui.commands.group", "crmtui.commands.play", "crmtui.commands.options")


def test_a_plain_crmtui_play_builds_its_app_without_click(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _CLI_PROBE, str(tmp_path / "recordings")],
        capture_output=True,
        text=True,
        check=True,
    )
    modules = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "crmtui.ui.app" in modules  # the app was built
    assert [name for name in (*CLICK, *LATER) if name in modules] == []
