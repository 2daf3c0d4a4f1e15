"""How every play app is built and run: one definition for the CLI and the served copies.

``crmtui play`` (through :mod:`crmtui.factory`) and each copy of ``crmtui serve``'s standby
process (:mod:`crmtui.ui.standby`) build the app with :func:`new_play_app` and run it with
:func:`run_to_end`, so a served session is exactly what ``crmtui play --study S --annotator
A`` runs in a terminal. Textual is imported only when an app is built.
"""

from __future__ import annotations

from typing import Any

from crmtui.config import PlayConfig


def guard_terminal() -> None:
    """Guard every Textual app of this process (idempotent).

    Input bytes that are not UTF-8 are replaced instead of ending the app, text that would
    act on the terminal (escape sequences, bidi overrides) is drawn as visible characters
    (:mod:`crmtui.ui.terminal`), and the Textual bugs that would end the app are worked
    around (:mod:`crmtui.ui.textual_fixes`).
    """
    from crmtui.ui import textual_fixes
    from crmtui.ui.terminal import install

    install()
    textual_fixes.install()


def new_play_app(config: PlayConfig | None = None, **kwargs: Any) -> Any:
    """The play app (:class:`crmtui.ui.app.CrmtuiApp`), with the terminal guarded."""
    guard_terminal()
    from crmtui.ui.app import CrmtuiApp

    return CrmtuiApp(config or PlayConfig(), **kwargs)


def run_to_end(app: Any) -> None:
    """Run a built app in the terminal; an app ended by a bug raises its error afterwards.

    The app writes the crash log as it dies (:class:`crmtui.ui.workers.WorkerErrorHandler`);
    raising the :class:`~crmtui.errors.InternalError` here makes the caller print the one
    ``Error:`` line naming it and exit with status 1, as for any other internal error
    (Textual itself would print a traceback and exit 0).

    Raises:
        InternalError: The app crashed, or exited with a non-zero status.
    """
    app.run()
    crash = getattr(app, "crash", None)
    if crash is not None:
        raise crash
    status = getattr(app, "return_code", None)
    if status:
        from crmtui.errors import InternalError

        raise InternalError("AppError", f"the app exited with status {status}")
