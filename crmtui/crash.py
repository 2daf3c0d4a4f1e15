"""Internal errors: what a bug that escaped becomes at an edge (the CLI, a UI worker).

A bug must not take the user's session down or print a traceback at them: the edge turns the
exception into an :class:`~crmtui.errors.InternalError` (one line: the exception's type and
message) and the traceback goes to a crash log under ``CRMTUI_HOME/logs``, with secrets
scrubbed, for the bug report.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from crmtui.errors import InternalError

_MAX_DETAIL = 200
#: Set to 1 to let an internal error's traceback through (for debugging crmtui itself).
DEBUG_ENV = "CRMTUI_DEBUG"


def write_crash_log(exc: BaseException) -> Path | None:
    """Write ``exc``'s traceback (scrubbed) to a new crash log; None if that fails."""
    import traceback

    from crmtui import paths
    from crmtui.secrets import scrub

    try:
        logs = paths.home() / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        log = logs / f"crash-{stamp}-{os.getpid()}-{id(exc) & 0xFFFF:04x}.txt"
        text = "".join(traceback.format_exception(exc))
        log.write_text(scrub(text), encoding="utf-8", errors="replace")
    except Exception:  # noqa: BLE001 - the log is a courtesy; the error must still be shown
        return None
    return log


def internal_error(exc: BaseException, *, log: bool = True) -> InternalError:
    """The :class:`InternalError` for an unexpected exception, its traceback logged."""
    from crmtui.secrets import scrub

    detail = " ".join(scrub(str(exc)).split())
    if len(detail) > _MAX_DETAIL:
        detail = detail[: _MAX_DETAIL - 1] + "…"
    where = write_crash_log(exc) if log else None
    return InternalError(type(exc).__name__, detail, log=where)
