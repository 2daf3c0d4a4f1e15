"""Typed errors: every user mistake becomes one of these and one clear line at the edge.

The CLI (``crmtui.cli.main``) prints ``Error: <message>`` and exits with the error's
:attr:`~CrmtuiError.exit_code` (the statuses are listed once, in :mod:`crmtui.exit_codes`);
the screens show the message. Anything else escaping is a bug: the CLI still prints one
``Error: internal error ...`` line and keeps the traceback in a crash log under
``CRMTUI_HOME/logs`` (:mod:`crmtui.crash`) instead of on the terminal.
"""

from __future__ import annotations

from crmtui import exit_codes


class CrmtuiError(Exception):
    """Base of every error crmtui reports to a user as a one-line message."""

    #: Exit status the CLI uses for this kind of error.
    exit_code: int = exit_codes.ERROR

    def user_message(self) -> str:
        """The one line shown to the user."""
        return str(self)


class ConfigError(CrmtuiError):
    """A bad option, environment variable or path given by the user."""

    exit_code = exit_codes.USAGE


class DatasetError(CrmtuiError):
    """A task source could not be loaded or a row in it is invalid.

    Attributes:
        idx: The ``idx`` of the offending row, when one is to blame.
        field: The offending field of that row, when known.
    """

    def __init__(self, message: str, *, idx: object = None, field: str | None = None) -> None:
        self.idx = idx
        self.field = field
        where = []
        if idx is not None:
            where.append(f"idx {idx}")
        if field is not None:
            where.append(f"field {field!r}")
        prefix = f"row {', '.join(where)}: " if where else ""
        super().__init__(prefix + message)


class SchemaError(CrmtuiError):
    """A schema file or object/field reference is invalid."""


class OrgError(CrmtuiError):
    """An org database is missing, unreadable, or not in the expected layout."""


class TaskNotFound(CrmtuiError):
    """No instance with the requested idx exists in the task source."""


class InternalError(CrmtuiError):
    """A bug that escaped, as one line (built by :func:`crmtui.crash.internal_error`).

    Attributes:
        code: ``INTERNAL_ERROR`` (recorded as a failed step's error code).
        kind: The original exception's type name.
        detail: Its message, scrubbed and shortened.
        log: The crash log holding the traceback, when one was written.
    """

    code = "INTERNAL_ERROR"

    def __init__(self, kind: str, detail: str, *, log: object = None) -> None:
        self.kind = kind
        self.detail = detail
        self.log = log
        where = f"; details in {log}" if log is not None else ""
        super().__init__(f"internal error ({kind}: {detail}){where}; please report it")
