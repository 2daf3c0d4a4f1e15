"""Typed errors. Every user mistake becomes one of these and one clear line at the edge.

The CLI (``crmtui.cli``) and the screens turn a :class:`CrmtuiError` into a message; anything
else escaping is a bug and keeps its traceback.
"""

from __future__ import annotations


class CrmtuiError(Exception):
    """Base of every error crmtui reports to a user as a one-line message."""

    #: Exit status the CLI uses for this kind of error.
    exit_code: int = 1

    def user_message(self) -> str:
        """The one line shown to the user."""
        return str(self)


class ConfigError(CrmtuiError):
    """A bad option, environment variable or path given by the user."""

    exit_code = 2


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
