"""The screens the monkey starts from (tests/ui/monkey.py), built on the UI test fixtures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crmtui.factory import (
    build_compare_app,
    build_play_app,
    build_replay_app,
    build_report_app,
    build_study_status_app,
)
from tests.ui.monkey import Scene
from tests.waiting import until as wait_until

WIDE, COMPACT = (160, 48), (80, 24)
QUERY = "SELECT Id, Subject, Status, CreatedDate, ClosedDate FROM Case LIMIT 20"
#: Keys that open the play screen's dialogs and tools (weighted up in the dialogs scene).
DIALOG_KEYS = {
    "f": 6,
    "slash": 6,
    "ctrl+g": 6,
    "f6": 4,
    "ctrl+s": 6,
    "escape": 6,
    "f1": 3,
    "f7": 3,
    "v": 4,
    "ctrl+l": 4,
    "y": 4,
}
#: Keys that close the only screen of replay or a viewer app (compare, report, study
#: status), and the palette, which nothing else closes there: the monkey would spend its
#: keys restarting the app or typing into the palette.
CLOSERS = frozenset({"q", "escape", "ctrl+p"})


def recorded_equals_fields(app: Any) -> None:
    """What the play screen's fields hold is what its recording says, in order.

    The pending (debounced) edits are recorded first, as submitting or leaving does; then
    the recording must verify (every line intact, ``seq`` and ``ms`` in order) and its last
    ``answer_edit``, ``editor_edit`` and ``note_edit`` must be the answer box's, the console
    editor's and the notes' text (the submitted answer, once submitted).
    """
    from crmtui.record.verify import load, verify
    from crmtui.ui.screens.play import PlayScreen

    for screen in app.screen_stack:
        if not isinstance(screen, PlayScreen) or not screen.is_mounted:
            continue
        session = screen.session
        if session.recorder.closed:
            continue
        session.flush_pending(force=True)
        path = session.recorder.path
        report = verify(path)
        assert report.ok, f"{path.name}: {report.describe()}"
        recording = load(path)

        def last(event_type: str, recording: Any = recording) -> str:
            edits = recording.of_type(event_type)
            return edits[-1].payload["text"] if edits else ""

        answer = screen.query_one("#answer-input").value
        submitted = recording.of_type("submit")
        if submitted:
            recorded = submitted[0].payload["answer"]
            assert recorded == answer.strip(), f"submitted {recorded!r}, the box holds {answer!r}"
        else:
            assert last("answer_edit") == answer, (
                f"recorded answer {last('answer_edit')!r}, the box holds {answer!r}"
            )
        editor = screen.query_one("#console-editor").text
        assert last("editor_edit") == editor, (
            f"recorded editor {last('editor_edit')!r}, the editor holds {editor!r}"
        )
        notes = screen.query_one("#notes-editor").text
        assert last("note_edit") == notes, (
            f"recorded notes {last('note_edit')!r}, the notes hold {notes!r}"
        )


async def until(pilot: Any, condition: Any) -> None:
    """Wait until ``condition()`` holds (a deadline only against a hang)."""
    await wait_until(pilot, condition, what="the scene did not reach its screen")


async def at_picker(pilot: Any) -> None:
    from crmtui.ui.screens.picker import PickerScreen

    await until(pilot, lambda: isinstance(pilot.app.screen, PickerScreen))


async def at_play(pilot: Any) -> Any:
    """Open an instance to play: the first one, or the next when an earlier start of the
    scene submitted it (a submitted instance opens read-only)."""
    from crmtui.ui.screens.dialogs import ConfirmScreen
    from crmtui.ui.screens.picker import PickerScreen
    from crmtui.ui.screens.play import PlayScreen

    app = pilot.app

    def at(*kinds: type) -> bool:
        return isinstance(app.screen, kinds) and app.screen.is_mounted

    # The start has run its course (``app.started``): the question about the unfinished
    # session a run before left, if any, is asked by then (just after the picker's first
    # frame, later on a loaded machine).
    await until(pilot, lambda: app.started and at(PickerScreen, ConfirmScreen))
    for row in range(20):
        if at(ConfirmScreen):
            await pilot.press("y")  # resume it
        await until(pilot, lambda: not at(ConfirmScreen))
        if at(PlayScreen):
            return app.screen
        if not at(PickerScreen):
            await pilot.press("escape")  # a read-only view: back to the list
            await until(pilot, lambda: at(PickerScreen))
        # Keys only once the list holds its rows and has the focus: on a loaded machine an
        # Enter sent earlier reaches nothing, and the scene would wait for ever.
        await until(pilot, lambda row=row: _picker_ready(app, row))
        await pilot.press(*["down"] * row, "enter")
        await until(pilot, lambda: not at(PickerScreen))
    raise AssertionError("no instance opened to play")


def _picker_ready(app: Any, row: int) -> bool:
    """The picker is on screen with at least ``row + 1`` rows and its list focused."""
    from crmtui.ui.screens.picker import PickerScreen

    screen = app.screen
    if not isinstance(screen, PickerScreen) or not screen.is_mounted:
        return True  # something else is up (a question): the caller's loop handles it
    table = screen.query_one("#picker-table")
    return table.row_count > row and app.focused is table


async def at_read_only(pilot: Any) -> None:
    """Submit an instance, then open it again: its read-only view."""
    from crmtui.ui.screens.dialogs import ConfirmScreen
    from crmtui.ui.screens.picker import PickerScreen
    from crmtui.ui.screens.submitted import SubmittedScreen

    app = pilot.app
    screen = await at_play(pilot)
    await pilot.press("f4", *"answer", "ctrl+s")
    await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
    await pilot.press("y")
    await until(pilot, lambda: screen.session.submitted)
    await pilot.press("escape")
    await until(pilot, lambda: isinstance(app.screen, PickerScreen))
    app.open_instance(screen.session.instance.idx)
    await until(pilot, lambda: isinstance(app.screen, SubmittedScreen))


async def at_console(pilot: Any) -> Any:
    screen = await at_play(pilot)
    await pilot.press("f3")
    screen.query_one("#query-console").set_text(QUERY)
    await pilot.press("f5")
    results = screen.query_one("#console-results")
    await until(pilot, lambda: results.row_count > 0)
    return screen


async def at_viewer(pilot: Any) -> None:
    from crmtui.ui.screens.viewer import ValueViewerScreen

    await at_console(pilot)
    await pilot.press("tab", "right", "v")
    await until(pilot, lambda: isinstance(pilot.app.screen, ValueViewerScreen))


async def at_compute(pilot: Any) -> None:
    from crmtui.ui.screens.compute import ComputeScreen

    await at_console(pilot)
    await pilot.press("ctrl+l")
    await until(pilot, lambda: isinstance(pilot.app.screen, ComputeScreen))


async def at_notes(pilot: Any) -> None:
    await at_play(pilot)
    await pilot.press("ctrl+n")
    notes = pilot.app.screen.query_one("#notes-editor")
    await until(pilot, lambda: pilot.app.focused is notes)


async def at_browser_table(pilot: Any) -> None:
    from crmtui.play.views import TableView

    screen = await at_play(pilot)
    screen.query_one("#record-browser").show(TableView("Case"))
    table = screen.query_one("#records-table")
    await until(pilot, lambda: table.row_count > 0)
    table.focus()


async def at_top(pilot: Any) -> None:
    await until(pilot, lambda: pilot.app.screen.is_mounted and pilot.app.screen.query("*"))


def _study(workspace: Any, tmp_path: Path) -> Any:
    from crmtui.study import StudyRequest, create_study
    from crmtui.study.definition import load_study

    folder = tmp_path / "studies" / "monkey"
    if folder.exists():
        return load_study(folder)
    study, _ = create_study(
        StudyRequest(
            name=str(folder),
            annotators=["ann", "ben"],
            per_type=1,
            shared=0.0,
            overlap=1,
            seed=4,
            practice=1,
        ),
        workspace=workspace,
    )
    return study


def watch_replies() -> list[Any]:
    """A model's replies for one watched instance: a few queries, then an answer."""
    from tests.fakes.openai_server import text

    step = f"<thought>Look at the cases.</thought><execute>{QUERY}</execute>"
    return [*(text(step) for _ in range(4)), text("<respond>None</respond>")]


def scenes(
    workspace: Any,
    config: Any,
    tmp_path: Path,
    clock: Any,
    wall: Any,
    model_server: Any = None,
) -> dict[str, Scene]:
    """Every scene by name (built lazily: each needs only its own inputs; ``watch`` needs
    ``model_server``, a running :class:`tests.fakes.openai_server.FakeOpenAI`)."""

    def scene(name: str, size: tuple[int, int], build: Any, arrive: Any, **kw: Any) -> Scene:
        # Every scene that reaches a play screen checks its recording against its fields.
        return Scene(name, size, build, arrive, check=recorded_equals_fields, **kw)

    def play(**kwargs: Any) -> Any:
        return build_play_app(config, workspace=workspace, clock=clock, wall=wall, **kwargs)

    def replay() -> Any:
        from tests.ui.test_replay import _human_session

        path = tmp_path / "replay-source.jsonl"
        if not path.exists():
            source = _human_session(workspace, tmp_path / "replay", clock, wall)
            path.write_bytes(source.read_bytes())
        return build_replay_app(path)

    def comparison() -> Any:
        from crmtui.record import load
        from crmtui.review.compare import compare
        from tests.unit.report import builders as b

        root = tmp_path / "compare"
        if not root.exists():
            for actor, script, session in (
                (b.HUMAN_A, b.ALICE_HTU, "a1"),
                (b.HUMAN_B, b.BOB_HTU, "b1"),
            ):
                b.write_session(root, actor, b.HTU, script, start=b.DAY2, session_id=session * 16)
        paths = sorted(root.rglob("*.jsonl"))
        return build_compare_app(compare([load(path) for path in paths], b.SOLUTIONS))

    def report() -> Any:
        from crmtui.review.report import report_folder
        from tests.unit.report import builders as b

        folder = tmp_path / "report"
        if not folder.exists():
            b.make_fixture_folder(folder)
        return build_report_app(report_folder(folder))

    def study_play() -> Any:
        from crmtui.study import StudyPlan
        from crmtui.study.launch import play_config

        study = _study(workspace, tmp_path)
        seat = play_config(study, "ann", fsync=False)
        return build_play_app(
            seat, workspace=workspace, plan=StudyPlan(study, "ann"), clock=clock, wall=wall
        )

    def watch() -> Any:
        from crmtui.agent.watch_config import WatchConfig
        from crmtui.factory import build_watch_app

        model_server.push(*watch_replies(), *watch_replies())  # this start's instances
        watch_config = WatchConfig(
            model="openai/fake",
            api_base=model_server.base_url,
            idx=None,
            recordings=tmp_path / "watch-recordings",
            timeout=5.0,
            fsync=False,
            client_options={"max_retries": 0},
            paused=True,
        )
        return build_watch_app(watch_config, workspace=workspace, wall=wall)

    def study_status() -> Any:
        return build_study_status_app(_study(workspace, tmp_path), refresh_s=0.5)

    return {
        "picker": scene("picker", WIDE, play, at_picker, leave_out=frozenset({"q"})),
        "play-160x48": scene("play-160x48", WIDE, play, at_play),
        "play-80x24": scene("play-80x24", COMPACT, play, at_play),
        "console": scene("console", WIDE, play, at_console),
        "viewer": scene("viewer", WIDE, play, at_viewer),
        "compute": scene("compute", COMPACT, play, at_compute),
        "notes": scene("notes", WIDE, play, at_notes),
        "read-only": scene("read-only", WIDE, play, at_read_only),
        "dialogs": scene("dialogs", WIDE, play, at_browser_table, weights=DIALOG_KEYS),
        "replay": Scene("replay", WIDE, replay, at_top, leave_out=CLOSERS),
        "replay-80x24": Scene("replay-80x24", COMPACT, replay, at_top, leave_out=CLOSERS),
        "compare": Scene("compare", WIDE, comparison, at_top, leave_out=CLOSERS),
        "report": Scene("report", WIDE, report, at_top, leave_out=CLOSERS),
        "study-play": scene("study-play", WIDE, study_play, at_picker, leave_out=frozenset("q")),
        "study-status": Scene("study-status", WIDE, study_status, at_top, leave_out=CLOSERS),
        "watch": Scene("watch", WIDE, watch, at_top, leave_out=CLOSERS),
    }
