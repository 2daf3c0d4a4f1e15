"""The compare and report screens: keys, tabs, SVG snapshots and the CLI that opens them.

Fixture recordings are written through the real recorder with frozen clocks
(:mod:`tests.unit.report.builders`), so every number on screen is fixed.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.widgets import DataTable, Static, TabbedContent

from crmtui.cli import main
from crmtui.factory import build_compare_app, build_report_app
from crmtui.record import load
from crmtui.review.compare import LUCKY_GUESS, REASONING_ERROR, SOLVED, Comparison, compare
from crmtui.review.report import Report, report_folder
from crmtui.ui.screens.compare import CompareScreen
from crmtui.ui.screens.report import ReportScreen
from crmtui.ui.viewer_app import ViewerApp
from crmtui.ui.widgets.bars import AccuracyBars, bar, chart_columns
from crmtui.ui.widgets.comparison import StepDetail, StepsTable
from tests.unit.report import builders as b

SIZE = (160, 48)

CASE_QUERY = "SELECT Id, Name FROM Case"
RECORD_QUERY = f"SELECT Id FROM Case WHERE Id = '{b.CASE_1}'"
CLOSED_QUERY = "SELECT Id, OwnerId FROM Case WHERE Status = 'Closed' ORDER BY ClosedDate DESC"
HISTORY_QUERY = b.HISTORY_QUERY
HIGH_QUERY = "SELECT Id, Subject FROM Case WHERE Priority = 'High'"

# gpt-4o runs the same two queries as alice's browse steps (rows 1-2 match), then a
# different query, and answers wrong having seen CASE_1: a reasoning error.
GPT_DIVERGES: b.Script = [
    (1.0, "model_call", b.model_call(900, 40, 0.01)),
    (1.0, "run_query", b.run_query(CASE_QUERY, rows=12)),
    (1.0, "model_call", b.model_call(1100, 30, 0.012)),
    (1.0, "run_query", b.run_query(RECORD_QUERY)),
    (1.0, "model_call", b.model_call(1300, 60, 0.015)),
    (0.0, "thought", {"text": "the most recently closed case decides"}),
    (1.0, "run_query", b.run_query(CLOSED_QUERY, rows=5)),
    (1.0, "model_call", b.model_call(1500, 20, 0.02)),
    (1.0, "submit", b.submit(b.AGENT_B, 0.0, b.AGENT_A)),
]
# tiny lists the cases, then filters by priority, and guesses right: a lucky guess.
TINY_GUESSES: b.Script = [
    (1.0, "model_call", b.model_call(300, 30, 0.001)),
    (1.0, "run_query", b.run_query(CASE_QUERY, rows=12)),
    (1.0, "model_call", b.model_call(400, 20, 0.001)),
    (1.0, "run_query", b.run_query(HIGH_QUERY, rows=3)),
    (1.0, "model_call", b.model_call(500, 10, 0.001)),
    (1.0, "submit", b.submit(b.AGENT_A, 1.0, b.AGENT_A)),
]


@pytest.fixture(scope="module")
def compare_paths(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """alice (reference), gpt-4o and tiny on the same HTU instance."""
    root = tmp_path_factory.mktemp("compare")
    return [
        b.write_session(root, b.HUMAN_A, b.HTU, b.ALICE_HTU, start=b.DAY2, session_id="a1" * 16),
        b.write_session(root, b.MODEL_A, b.HTU, GPT_DIVERGES, start=b.DAY2, session_id="c1" * 16),
        b.write_session(root, b.MODEL_B, b.HTU, TINY_GUESSES, start=b.DAY2, session_id="d1" * 16),
    ]


@pytest.fixture
def comparison(compare_paths: list[Path]) -> Comparison:
    """The three attempts compared against the fixture's evidence list."""
    return compare([load(path) for path in compare_paths], b.SOLUTIONS)


@pytest.fixture
def report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Report:
    """The report fixture folder, reported under a relative path (no tmp path on screen)."""
    monkeypatch.chdir(tmp_path)
    b.make_fixture_folder(tmp_path / "recordings")
    return report_folder("recordings")


def plain(widget: Static, width: int = 400) -> str:
    """What a Static shows, as plain text (wide, so no query wraps)."""
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(widget.content)
    return console.export_text()


def test_fixture_comparison_is_what_the_screen_tests_assume(comparison: Comparison) -> None:
    # Row 1 (list the cases) matches for all three; in row 2 alice and gpt-4o look at
    # CASE_1 and tiny has no step (a gap): the first divergence.
    assert comparison.rows[0].status == "match"
    assert comparison.first_divergence == 1 and comparison.rows[1].status == "gap"
    assert comparison.evidence is not None
    assert [e.verdict for e in comparison.evidence] == [SOLVED, REASONING_ERROR, LUCKY_GUESS]


# -- compare screen: keys ---------------------------------------------------------------------


async def test_d_jumps_to_first_divergence_and_enter_shows_the_steps(
    comparison: Comparison,
) -> None:
    app = build_compare_app(comparison)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        table = screen.query_one(StepsTable)
        assert table.has_focus and table.cursor_row == 0
        assert table.row_count == len(comparison.rows)

        await pilot.press("d")
        assert table.cursor_row == comparison.first_divergence == 1

        await pilot.press("enter")
        await pilot.pause()
        detail = screen.query_one(StepDetail)
        assert detail.row == 1
        shown = plain(screen.query_one("#detail-text", Static))
        # alice opened the record gpt-4o queried by Id; tiny has no step in that row.
        assert shown.startswith("Row 2: gap  ◀ first divergence")
        assert shown.count(RECORD_QUERY) == 2 and "(no step here)" in shown

        await pilot.press("down", "enter")
        await pilot.pause()
        shown = plain(screen.query_one("#detail-text", Static))
        assert detail.row == 2 and shown.startswith("Row 3: partial")
        assert HISTORY_QUERY in shown and CLOSED_QUERY in shown and HIGH_QUERY in shown
        assert "thought: the most recently closed case decides" in shown


async def test_n_moves_to_the_next_difference_and_up_down_move_rows(
    comparison: Comparison,
) -> None:
    app = build_compare_app(comparison)
    async with app.run_test(size=SIZE) as pilot:
        table = app.screen.query_one(StepsTable)
        await pilot.press("d", "n")
        expected = next(
            n for n in range(2, len(comparison.rows)) if comparison.rows[n].status != "match"
        )
        assert table.cursor_row == expected
        await pilot.press("up")
        assert table.cursor_row == expected - 1
        await pilot.press("down", "down")
        assert table.cursor_row == expected + 1
        await pilot.press("enter")
        await pilot.pause()
        text = plain(app.screen.query_one("#detail-text", Static))
        assert f"Row {expected + 2}" in text


async def test_q_quits_the_compare_app(comparison: Comparison) -> None:
    app = build_compare_app(comparison)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0 and not app.is_running


async def test_escape_on_a_pushed_compare_screen_goes_back(comparison: Comparison) -> None:
    from textual.app import App

    app: App[None] = App()
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(CompareScreen(comparison))
        await pilot.pause()
        assert isinstance(app.screen, CompareScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, CompareScreen) and app.is_running


# -- report screen: tabs and charts -----------------------------------------------------------


async def test_report_tabs_follow_the_keys(report: Report) -> None:
    app = build_report_app(report)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ReportScreen)
        tabs = screen.query_one(TabbedContent)
        assert screen.tab_ids == [
            "tab-accuracy", "tab-time", "tab-away", "tab-queries", "tab-tokens", "tab-cost",
            "tab-agreement", "tab-notes",
        ]  # fmt: skip
        assert tabs.active == "tab-accuracy"
        accuracy = tabs.get_pane("tab-accuracy").query_one(DataTable)
        assert accuracy.has_focus and accuracy.row_count == 4
        assert [str(c) for c in accuracy.get_row_at(0)][-1] == "90.0 (2)"  # alice Overall

        await pilot.press("right_square_bracket")
        assert tabs.active == "tab-time"
        await pilot.press("7")
        await pilot.pause()
        assert tabs.active == "tab-agreement"
        agreement = tabs.get_pane("tab-agreement").query_one(DataTable)
        assert agreement.has_focus and agreement.row_count == 4
        assert [str(c) for c in agreement.get_row_at(0)] == [
            "alice", "gpt-4o (react)", "2", "1", "1", "0", "0",
        ]  # fmt: skip
        await pilot.press("left_square_bracket")
        assert tabs.active == "tab-cost"
        await pilot.press("8", "right_square_bracket")
        assert tabs.active == "tab-accuracy"  # wraps around after Notes
        await pilot.press("9")  # no ninth tab: nothing happens
        assert tabs.active == "tab-accuracy"


async def test_report_charts_and_notes(report: Report) -> None:
    app = build_report_app(report)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("b")
        charts = app.screen.query_one(AccuracyBars)
        assert charts.has_focus
        await pilot.press("7")
        await pilot.pause()
        notes = plain(app.screen.query_one("#report-notes", Static))
        assert "bob-edited.jsonl" in notes and "hash mismatch" in notes


def test_bar_lengths() -> None:
    assert bar(1.0, 10, "red").plain == "█" * 10
    assert bar(0.0, 10, "red").plain == "·" * 10
    assert bar(0.5, 10, "red").plain == "█" * 5 + "·" * 5
    assert bar(0.55, 10, "red").plain == "█" * 5 + "▌" + "·" * 4
    assert bar(1.7, 4, "red").plain == "████"  # clamped
    assert bar(None, 9, "red").plain == "no data  "


def test_chart_columns_are_the_tasks_with_data(report: Report) -> None:
    assert chart_columns(report) == [
        "handle_time", "knowledge_qa", "best_region_identification", "Overall",
    ]  # fmt: skip


# -- snapshots --------------------------------------------------------------------------------


def test_compare_screen_snapshot(snap_compare: Any, comparison: Comparison) -> None:
    assert snap_compare(
        build_compare_app(comparison), terminal_size=SIZE, press=["d", "down", "enter"]
    )


def test_report_screen_snapshot(snap_compare: Any, report: Report) -> None:
    assert snap_compare(build_report_app(report), terminal_size=SIZE)


def test_report_agreement_tab_snapshot(snap_compare: Any, report: Report) -> None:
    assert snap_compare(build_report_app(report), terminal_size=SIZE, press=["6"])


# -- CLI --------------------------------------------------------------------------------------


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``crmtui`` like the console script; returns (exit code, stdout, stderr)."""
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


class Built:
    """Stands in for the factory: builds the real app but records it instead of running it."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.apps: list[ViewerApp] = []

    def __call__(self, value: Any) -> Any:
        app = self.real(value)
        self.apps.append(app)
        return self

    def run(self) -> None:
        """The CLI calls this; a test must not take over the terminal."""


def test_compare_with_format_md_still_prints(
    compare_paths: list[Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    built = Built(build_compare_app)
    monkeypatch.setattr("crmtui.factory.build_compare_app", built)
    monkeypatch.setattr("crmtui.commands.compare._interactive", lambda: True)
    code, out, _ = run(["compare", *map(str, compare_paths[:2]), "--format", "md"], capsys)
    assert code == 0 and out.startswith("# Compare idx 650") and "◀ first divergence" in out
    assert built.apps == []  # --format prints even on a terminal


async def test_bare_compare_builds_the_compare_app(
    compare_paths: list[Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    built = Built(build_compare_app)
    monkeypatch.setattr("crmtui.factory.build_compare_app", built)
    monkeypatch.setattr("crmtui.commands.compare._interactive", lambda: True)
    code, out, _ = run(["compare", *map(str, compare_paths), "--no-rerun"], capsys)
    assert code == 0 and out == ""
    [app] = built.apps
    async with app.run_test(size=SIZE):
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        assert [a.actor_label for a in screen.comparison.actors] == [
            "alice", "gpt-4o (react)", "tiny (act)",
        ]  # fmt: skip


def test_bare_compare_prints_markdown_when_piped(
    compare_paths: list[Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    built = Built(build_compare_app)
    monkeypatch.setattr("crmtui.factory.build_compare_app", built)
    code, out, _ = run(["compare", *map(str, compare_paths[:2]), "--no-rerun"], capsys)
    assert code == 0 and out.startswith("# Compare idx 650") and built.apps == []


async def test_report_tui_builds_the_report_app(
    crmtui_home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    b.make_fixture_folder(crmtui_home / "recordings")  # the default folder
    built = Built(build_report_app)
    monkeypatch.setattr("crmtui.factory.build_report_app", built)
    code, out, _ = run(["report", "--tui"], capsys)
    assert code == 0 and out == ""
    [app] = built.apps
    async with app.run_test(size=SIZE):
        assert isinstance(app.screen, ReportScreen)
        assert [r.label for r in app.screen.report.rows] == [
            "alice", "bob", "gpt-4o (react)", "tiny (act)",
        ]  # fmt: skip

    code, _, err = run(["report", "--tui", "--format", "csv"], capsys)
    assert code == 2 and "--tui shows the tables on screen" in err
    code, out, _ = run(["report", "--format", "md"], capsys)
    assert code == 0 and out.startswith("# crmtui report") and len(built.apps) == 1


async def test_report_screen_on_an_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    app = build_report_app(report_folder(tmp_path / "empty"))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ReportScreen) and screen.tab_ids == ["tab-notes"]
        charts = plain(screen.query_one("#bars-text", Static))
        assert "No scored sessions" in charts
        await pilot.press("right_square_bracket", "q")
        await pilot.pause()
    assert not app.is_running


async def test_identical_attempts_have_no_divergence_to_jump_to(
    compare_paths: list[Path],
) -> None:
    same = compare([load(compare_paths[0]), load(compare_paths[0])])
    app = build_compare_app(same)
    async with app.run_test(size=SIZE) as pilot:
        told: list[str] = []
        app.screen.notify = lambda message, **_: told.append(message)  # type: ignore[method-assign]
        table = app.screen.query_one(StepsTable)
        await pilot.press("down", "d")
        assert table.cursor_row == 1  # stays put
        assert told == ["The trajectories are identical step by step."]
        title = plain(app.screen.query_one("#compare-title", Static))
        assert "identical step by step" in title and "No evidence list" in plain(
            app.screen.query_one("#evidence-text", Static)
        )


async def test_many_actors_on_a_narrow_terminal_scroll_sideways(tmp_path: Path) -> None:
    from crmtui.review.compare import recordings_for_idx

    b.make_fixture_folder(tmp_path)
    recordings, _ = recordings_for_idx(tmp_path, 650)
    app = build_compare_app(compare(recordings))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert len(app.screen.comparison.actors) == 5
        assert app.screen.has_class("crowded")
    app = build_compare_app(compare(recordings[:3]))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not app.screen.has_class("crowded")
