"""The one worker error handler: an exception in any worker never takes the app down.

Workers catch the typed errors they expect (:class:`~crmtui.errors.CrmtuiError`) and show
them. Anything else is a bug; by default Textual would then exit the app with a traceback,
and the play session would be closed as if the user had quit. Every crmtui app mixes in
:class:`WorkerErrorHandler` instead: the exception becomes an
:class:`~crmtui.errors.InternalError` (traceback in a crash log), shown on screen, and a
:class:`WorkerCrashed` message goes to the widget that started the worker so it can finish
its pending step as failed (the console records the query with the error). The app and the
session continue.

An exception outside workers (in a message handler) still ends the app, as Textual does. It
is then a crash, handled the way docs/robustness.md promises: its traceback goes to a crash log
(:func:`crmtui.crash.internal_error`) and not onto the terminal (unless ``CRMTUI_DEBUG`` is
set), the play app leaves the recording open to be resumed instead of closing it as a quit
(see :attr:`WorkerErrorHandler.crashed`), and :func:`crmtui.factory.run_app` turns
:attr:`WorkerErrorHandler.crash` into the one ``Error:`` line and exit status 1.
"""

from __future__ import annotations

import os
from typing import Any

from textual.message import Message
from textual.worker import NoActiveWorker, WorkerFailed, get_current_worker

from crmtui.crash import DEBUG_ENV
from crmtui.errors import InternalError


class WorkerCrashed(Message):
    """A worker started by this widget raised an unexpected exception.

    Attributes:
        error: The exception as an :class:`InternalError` (already shown to the user).
        group: The worker's group (e.g. ``console``, ``browse``).
        name: The worker's name (its method name for ``@work`` methods).
    """

    def __init__(self, error: InternalError, group: str, name: str) -> None:
        self.error = error
        self.group = group
        self.name = name
        super().__init__()


class WorkerErrorHandler:
    """App mixin (list it before ``App``): worker failures become on-screen errors."""

    #: True once an exception outside a worker is ending the app.
    crashed: bool = False
    #: The first such exception as one line, its traceback in a crash log.
    crash: InternalError | None = None

    def _handle_exception(self, error: Exception) -> None:
        if isinstance(error, WorkerFailed) and isinstance(error.error, Exception):
            self.worker_failed(error.error)
            return
        if self.crash is None:
            from crmtui.crash import internal_error

            self.crash = internal_error(error)
        self.crashed = True
        super()._handle_exception(error)  # type: ignore[misc]

    def _print_error_renderables(self) -> None:
        # The traceback is in the crash log; the command line prints one line for it
        # (crmtui.factory.run_app). CRMTUI_DEBUG lets Textual print it too.
        if self.crash is not None and not os.environ.get(DEBUG_ENV):
            self._exit_renderables.clear()  # type: ignore[attr-defined]
            return
        super()._print_error_renderables()  # type: ignore[misc]

    def worker_failed(self, exc: Exception) -> None:
        """Show ``exc`` and tell the widget whose worker raised it (the app carries on)."""
        from crmtui.crash import internal_error

        internal = internal_error(exc)
        app: Any = self
        app.notify(internal.user_message(), severity="error", title="Internal error", timeout=15)
        try:
            worker = get_current_worker()
        except NoActiveWorker:
            return
        node = worker.node
        if getattr(node, "is_attached", True):
            node.post_message(WorkerCrashed(internal, worker.group, worker.name))
