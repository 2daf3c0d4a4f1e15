"""Errors raised while writing, reading or verifying recordings."""

from __future__ import annotations

from crmtui.errors import CrmtuiError


class RecordingError(CrmtuiError):
    """A recording cannot be written, read or trusted.

    Attributes:
        path: The recording file concerned, when known.
        line: The 1-based line number to blame, when one is to blame.
    """

    def __init__(self, message: str, *, path: object = None, line: int | None = None) -> None:
        self.path = path
        self.line = line
        where = ""
        if path is not None:
            where = f"{path}"
            if line is not None:
                where += f":{line}"
            where += ": "
        elif line is not None:
            where = f"line {line}: "
        self.problem = message
        super().__init__(where + message)


class PayloadError(RecordingError):
    """An event (or header) field is missing, unknown or of the wrong type."""


class RecordingInUse(RecordingError):
    """Another live recorder holds the file open for appending."""


class QueryBuildError(CrmtuiError):
    """An equivalent SOQL/SOSL string cannot be built from the given parts."""
