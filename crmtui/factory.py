"""One factory builds the app for the CLI, the tests and the screenshots.

Every builder first guards the terminal (:func:`crmtui.ui.terminal.install`): input bytes
that are not UTF-8 are replaced instead of ending the app, and text that would act on the
terminal (escape sequences, bidi overrides) is drawn as visible characters; and it works
around the Textual bugs that would end the app (:mod:`crmtui.ui.textual_fixes`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crmtui.config import PlayConfig


def _guard_terminal() -> None:
    from crmtui.ui.launch import guard_terminal

    guard_terminal()


def run_app(app: Any) -> None:
    """Run a built app in the terminal; an app ended by a bug raises its error afterwards.

    The same run as a served session's (:func:`crmtui.ui.launch.run_to_end`).

    Raises:
        InternalError: The app crashed (or exited with a non-zero status).
    """
    from crmtui.ui.launch import run_to_end

    run_to_end(app)


def build_play_app(config: PlayConfig | None = None, **kwargs: Any) -> Any:
    """Build the play app (imports textual lazily so the CLI stays fast).

    The same builder as a served session's (:func:`crmtui.ui.launch.new_play_app`).
    """
    from crmtui.ui.launch import new_play_app

    return new_play_app(config, **kwargs)


def build_compare_app(comparison: Any) -> Any:
    """Build the app showing a :class:`~crmtui.review.compare.Comparison` (compare screen)."""
    _guard_terminal()
    from crmtui.ui.screens.compare import CompareScreen
    from crmtui.ui.viewer_app import ViewerApp

    return ViewerApp(
        lambda: CompareScreen(comparison), title=f"crmtui compare idx {comparison.idx}"
    )


def build_report_app(report: Any) -> Any:
    """Build the app showing a :class:`~crmtui.review.report.Report` (report screen)."""
    _guard_terminal()
    from crmtui.ui.screens.report import ReportScreen
    from crmtui.ui.viewer_app import ViewerApp

    return ViewerApp(lambda: ReportScreen(report), title="crmtui report")


def build_study_status_app(study: Any, refresh_s: float = 5.0) -> Any:
    """Build the app showing a study's progress (refreshed every ``refresh_s`` seconds)."""
    _guard_terminal()
    from crmtui.study import load_study, study_status
    from crmtui.ui.screens.study_status import StudyStatusScreen
    from crmtui.ui.viewer_app import ViewerApp

    cache: dict[Any, Any] = {}  # unchanged recordings are not read again on each refresh

    def load() -> Any:
        # Re-read the definition too: annotators may be added while the screen is open.
        return study_status(load_study(study.folder), cache=cache)

    return ViewerApp(
        lambda: StudyStatusScreen(load, refresh_s),
        title=f"crmtui study status {study.name}",
    )


def build_replay_app(
    recording: str | Path | Any, *, org: str | Path | None = None, start: int = 0
) -> Any:
    """Build the replay app for a recording file (or an already prepared source).

    Args:
        recording: A recording path, or a :class:`crmtui.review.replay_org.ReplaySource`.
        org: An org path or name overriding the one the recording names.
        start: Index of the event to show first.

    Raises:
        RecordingError: The recording is unreadable or tampered with (naming the line).
        CrmtuiError: ``org`` names no readable org.
    """
    _guard_terminal()
    from crmtui.review.replay_org import ReplaySource, prepare_replay
    from crmtui.ui.replay_app import ReplayApp

    source = recording if isinstance(recording, ReplaySource) else prepare_replay(recording, org)
    return ReplayApp(source, start=start)


def build_watch_app(config: Any, **kwargs: Any) -> Any:
    """Build the watch app for a :class:`~crmtui.agent.watch_config.WatchConfig`.

    Textual is imported lazily, as for :func:`build_play_app`.
    """
    _guard_terminal()
    from crmtui.ui.watch_app import WatchApp

    return WatchApp(config, **kwargs)
