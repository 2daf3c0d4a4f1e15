"""Scripted views of the play app, shared by the SVG snapshot tests and the docs' screenshots.

Each scene is an async function taking a Textual Pilot; it drives the app into a state
worth looking at and waits until every worker has finished, so the picture is stable.
"""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

Scene = Callable[[Any], Awaitable[None]]


async def settle(pilot: Any, rounds: int = 4) -> None:
    """Wait for workers and message queues to drain."""
    for _ in range(rounds):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.05)


#: How long a scene waits for a state before calling it a hang: a deadline, not a count of
#: pauses, so a loaded machine only makes it slower (CRMTUI_TEST_PATIENCE moves it).
PATIENCE_S = float(os.environ.get("CRMTUI_TEST_PATIENCE", "120"))


async def wait_for(pilot: Any, condition: Callable[[], bool]) -> None:
    """Wait until ``condition()`` holds (raises after :data:`PATIENCE_S`)."""
    deadline = time.monotonic() + PATIENCE_S
    while True:
        await settle(pilot, 1)
        if condition():
            return
        if time.monotonic() > deadline:
            raise TimeoutError("scene did not reach the expected state")


async def picker(pilot: Any) -> None:
    """The instance picker."""
    from crmtui.ui.screens.picker import PickerScreen

    await wait_for(pilot, lambda: isinstance(pilot.app.screen, PickerScreen))
    await settle(pilot)


async def _open(pilot: Any, idx: int) -> Any:
    from crmtui.ui.screens.play import PlayScreen

    await picker(pilot)
    pilot.app.open_instance(idx)
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, PlayScreen))
    screen = pilot.app.screen
    await wait_for(pilot, lambda: screen.query_one("#object-list").option_count > 0)
    return screen


def _first_of(pilot: Any, task: str) -> int:
    return next(inst.idx for inst in pilot.app.workspace.tasks if inst.task == task)


async def play_table(pilot: Any) -> None:
    """A case-routing instance with the Case table open, sorted by CreatedDate."""
    from crmtui.play.views import TableView

    screen = await _open(pilot, _first_of(pilot, "case_routing"))
    browser = screen.query_one("#record-browser")
    browser.show(TableView("Case", sort_field="CreatedDate", sort_desc=True))
    table = screen.query_one("#records-table")
    await wait_for(pilot, lambda: table.row_count > 0)
    table.focus()
    await settle(pilot)


async def play_record(pilot: Any) -> None:
    """A policy-violation instance showing its case with fields and related lists."""
    from crmtui.play.views import RecordView

    idx = _first_of(pilot, "policy_violation_identification")
    screen = await _open(pilot, idx)
    case_id = pilot.app.workspace.tasks.get(idx).context_ids.get("Case Id")
    screen.query_one("#record-browser").show(RecordView("Case", case_id))
    panel = screen.query_one("#record-panel")
    await wait_for(pilot, lambda: panel.row_count > 0)
    panel.focus()
    await settle(pilot)


async def play_console(pilot: Any) -> None:
    """A handle-time instance with an aggregate query in the console."""
    screen = await _open(pilot, _first_of(pilot, "handle_time"))
    await pilot.press("f3")
    console = screen.query_one("#query-console")
    console.set_text(
        "SELECT OwnerId, COUNT(Id) n FROM Case\n"
        "WHERE Status = 'Closed' AND CreatedDate = LAST_N_MONTHS:12\n"
        "GROUP BY OwnerId ORDER BY COUNT(Id) DESC, OwnerId LIMIT 8"
    )
    console.run()
    results = console.query_one("#console-results")
    await wait_for(pilot, lambda: results.row_count > 0)
    results.focus()
    await settle(pilot)


async def play_submitted(pilot: Any) -> None:
    """A best-region instance after the correct answer was submitted."""
    idx = _first_of(pilot, "best_region_identification")
    screen = await _open(pilot, idx)
    gold = pilot.app.workspace.tasks.get(idx).answer
    screen.query_one("#answer-box").set_text(str(gold))
    screen._submit(str(gold))
    screen.query_one("#object-list").focus()
    await settle(pilot)


async def play_read_only(pilot: Any) -> None:
    """A submitted instance opened again: read-only (one submission counts)."""
    from crmtui.ui.screens.picker import PickerScreen
    from crmtui.ui.screens.submitted import SubmittedScreen

    await play_submitted(pilot)
    idx = pilot.app.screen.session.instance.idx
    await pilot.press("escape")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, PickerScreen))
    pilot.app.open_instance(idx)
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, SubmittedScreen))
    await settle(pilot)


async def help_screen(pilot: Any) -> None:
    """The key help over the play screen."""
    await _open(pilot, 0)
    await pilot.press("f1")
    await settle(pilot)


async def schema_tree(pilot: Any) -> None:
    """The schema tab searched for "shipping", the cursor on a field."""
    await _open(pilot, _first_of(pilot, "best_region_identification"))
    await pilot.press("f8", *"shipping")
    await settle(pilot)
    await pilot.press("enter", "down")
    await settle(pilot)


async def completion(pilot: Any) -> None:
    """The console's completion list after a relationship path."""
    screen = await _open(pilot, _first_of(pilot, "best_region_identification"))
    await pilot.press("f3")
    console = screen.query_one("#query-console")
    console.set_text("SELECT COUNT(Id) n FROM Case\nWHERE Status = 'Closed' AND Acc")
    await settle(pilot)
    await pilot.press("ctrl+space")
    await settle(pilot)
    await pilot.press("down", "enter", *"Ship")
    await settle(pilot)


async def play_compact(pilot: Any) -> None:
    """80x24: a routing instance, its agents counted in the console, results under the editor."""
    screen = await _open(pilot, _first_of(pilot, "case_routing"))
    await pilot.press("f3")
    console = screen.query_one("#query-console")
    console.set_text(
        "SELECT OwnerId, COUNT(Id) n FROM Case WHERE Status != 'Closed' "
        "GROUP BY OwnerId ORDER BY COUNT(Id), OwnerId"
    )
    console.run()
    results = console.query_one("#console-results")
    await wait_for(pilot, lambda: results.row_count > 0)
    results.focus()
    await settle(pilot)


async def paused(pilot: Any) -> None:
    """The pause screen: nothing of the instance is visible."""
    await _open(pilot, _first_of(pilot, "policy_violation_identification"))
    await pilot.press("f7")


async def play_viewer(pilot: Any) -> None:
    """A policy-violation instance: the chat transcript read whole in the value viewer."""
    from crmtui.play.views import RecordView
    from crmtui.query import run
    from crmtui.ui.screens.viewer import ValueViewerScreen

    idx = _first_of(pilot, "policy_violation_identification")
    screen = await _open(pilot, idx)
    case_id = pilot.app.workspace.tasks.get(idx).context_ids.get("Case Id")
    chat = run(
        pilot.app.workspace.org, f"SELECT Id FROM LiveChatTranscript WHERE CaseId = '{case_id}'"
    ).records[0]["Id"]
    screen.query_one("#record-browser").show(RecordView("LiveChatTranscript", chat))
    panel = screen.query_one("#record-panel")
    await wait_for(pilot, lambda: panel.row_count > 0)
    panel.focus()
    panel.move_cursor(row=[f.name for f in panel.detail.fields].index("Body"))
    await pilot.press("v")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ValueViewerScreen))
    await pilot.press("slash", *"shipping", "enter")
    await settle(pilot)


async def play_compute(pilot: Any) -> None:
    """A best-region instance: per-state average resolution time over the console query."""
    from crmtui.ui.screens.compute import ComputeScreen

    screen = await _open(pilot, _first_of(pilot, "best_region_identification"))
    await pilot.press("f3")
    console = screen.query_one("#query-console")
    console.run(
        "SELECT Account.ShippingState, CreatedDate, ClosedDate FROM Case\n"
        "WHERE Status = 'Closed' AND CreatedDate = LAST_N_DAYS:28"
    )
    results = console.query_one("#console-results")
    await wait_for(pilot, lambda: results.row_count > 0)
    await pilot.press("ctrl+l")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ComputeScreen))
    dialog = pilot.app.screen
    await pilot.press("f5")
    await wait_for(pilot, lambda: dialog.last_run is not None)
    await pilot.press("right", "right", "s")
    await settle(pilot)


async def play_notes(pilot: Any) -> None:
    """A handle-time instance with worked arithmetic in the notes pane."""
    from textual import events

    screen = await _open(pilot, _first_of(pilot, "handle_time"))
    await pilot.press("ctrl+n")
    notes = screen.query_one("#notes-editor")
    await wait_for(pilot, lambda: pilot.app.focused is notes)
    pilot.app.post_message(
        events.Paste(
            "Handle time = ClosedDate - CreatedDate, untransferred cases only\n"
            "(Ctrl+L: avg per OwnerId over the console query).\n"
            "\n"
            "= (1049 + 977) / 2\n"
            "minutes = 1013\n"
            "hours = minutes / 60\n"
            "= hours / 24\n"
            "= (hours - 12.5) / 12.5 * 100\n"
            "= 1 / 0"
        )
    )
    await settle(pilot)


SCENES: dict[str, Scene] = {
    "picker": picker,
    "play-table": play_table,
    "play-record": play_record,
    "play-console": play_console,
    "play-submitted": play_submitted,
    "play-read-only": play_read_only,
    "help": help_screen,
    "schema-tree": schema_tree,
    "completion": completion,
    "play-80x24": play_compact,
    "pause": paused,
    "play-viewer": play_viewer,
    "play-compute": play_compute,
    "play-notes": play_notes,
}

#: Terminal size of scenes that are not shot at 160x48.
SCENE_SIZES: dict[str, tuple[int, int]] = {"play-80x24": (80, 24)}
