"""The engine's error boundary: only a :class:`QueryError` with a Salesforce code leaves it.

Every entry point (``run``, ``execute_soql``, ``compile_soql``, ``execute_sosl``) checks the
text first (:func:`check_text`: type, length, valid Unicode) and runs inside
:func:`guarded`, which turns anything foreign that still gets through (``sqlite3`` errors,
``RecursionError``, ``OverflowError``, lark's errors, a bug) into a QueryError in
Salesforce's voice. The limits themselves are checked earlier, where the query is parsed,
so SQLite never sees a query it would reject; the mapping here is the net under them. A
true bug becomes ``UNKNOWN_EXCEPTION`` with an ErrorId, as Salesforce reports its own, and
the traceback goes to a crash log (:mod:`crmtui.crash`).
"""

from __future__ import annotations

import re
import sqlite3
import zlib
from types import TracebackType

from crmtui.query.budget import stopped_error, take_interrupt
from crmtui.query.errors import (
    INVALID_FIELD,
    INVALID_TYPE,
    MALFORMED_QUERY,
    NUMBER_OUTSIDE_VALID_RANGE,
    QueryError,
)

MALFORMED_SEARCH = "MALFORMED_SEARCH"
QUERY_TOO_COMPLICATED = "QUERY_TOO_COMPLICATED"
UNKNOWN_EXCEPTION = "UNKNOWN_EXCEPTION"

#: Longest SOQL or SOSL statement accepted (Salesforce's SOQL limit, applied to both).
MAX_TEXT_LENGTH = 100_000

#: Salesforce's own text for a query that is too big or too deep for the database.
TOO_COMPLICATED = (
    "Query is either selecting too many fields or the filter conditions are too complicated."
)

# SQLite's refusals of a statement that is too large or too deep for it.
_TOO_COMPLEX = re.compile(
    r"parser stack overflow|expression tree is too large|too many terms|too many sql variables"
    r"|too many from clause terms|at most \d+ tables in a join|string or blob too big"
    r"|too many columns|too many arguments|pattern too complex",
    re.IGNORECASE,
)
_NO_SUCH = re.compile(r"no such (column|table): (?:\w+\.)?\"?([^\"\s]+)\"?")


def check_text(text: object, *, search: bool = False) -> str:
    """Return ``text`` if the engine may read it; else raise the QueryError Salesforce would.

    Raises:
        QueryError: Not text; longer than :data:`MAX_TEXT_LENGTH`; or holding a lone
            surrogate (text that was never valid Unicode: a broken paste or model reply).
    """
    code = MALFORMED_SEARCH if search else MALFORMED_QUERY
    what = "SOSL" if search else "SOQL"
    if not isinstance(text, str):
        raise QueryError(code, f"query must be text, not {type(text).__name__}")
    if len(text) > MAX_TEXT_LENGTH:
        raise QueryError(
            code, f"{what} statements cannot be longer than {MAX_TEXT_LENGTH:,} characters."
        )
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            line = text.count("\n", 0, exc.start) + 1
            column = exc.start - (text.rfind("\n", 0, exc.start) + 1) + 1
            raise QueryError(
                code,
                "invalid character in query: an unpaired surrogate (the text is not valid Unicode)",
                line=line,
                column=column,
            ) from None
    return text


def translate(exc: BaseException, *, search: bool = False) -> QueryError:
    """The QueryError a foreign exception stands for (see the module docs)."""
    malformed = MALFORMED_SEARCH if search else MALFORMED_QUERY
    if isinstance(exc, QueryError):
        return exc
    if isinstance(exc, sqlite3.Error):
        text = str(exc)
        if text == "interrupted":  # the budget's progress handler stopped it
            return stopped_error()
        if _TOO_COMPLEX.search(text):
            return QueryError(QUERY_TOO_COMPLICATED, TOO_COMPLICATED)
        missing = _NO_SUCH.search(text)
        if missing is not None:
            kind, name = missing.groups()
            # A raw org file that lacks what its schema promises.
            if kind == "table":
                return QueryError(INVALID_TYPE, f"sObject type '{name}' is not supported.")
            return QueryError(INVALID_FIELD, f"No such column '{name}' in this org's data.")
    if isinstance(exc, RecursionError):
        return QueryError(malformed, "query is nested too deeply")
    if isinstance(exc, MemoryError):
        return QueryError(QUERY_TOO_COMPLICATED, TOO_COMPLICATED)
    if isinstance(exc, OverflowError) or (isinstance(exc, ValueError) and "digits" in str(exc)):
        return QueryError(NUMBER_OUTSIDE_VALID_RANGE, "number is outside the valid range")
    if isinstance(exc, UnicodeError):
        return QueryError(malformed, "invalid character in query (the text is not valid Unicode)")
    return unknown_exception(exc)


def unknown_exception(exc: BaseException) -> QueryError:
    """A bug, reported as Salesforce reports its own: UNKNOWN_EXCEPTION with an ErrorId."""
    from crmtui.crash import write_crash_log

    log = write_crash_log(exc)
    error_id = f"{zlib.crc32(f'{type(exc).__name__}: {exc}'.encode('utf-8', 'replace')):010d}"
    where = f" (details: {log})" if log is not None else ""
    return QueryError(
        UNKNOWN_EXCEPTION,
        "An unexpected error occurred. Please include this ErrorId if you contact support: "
        f"{error_id}{where}",
    )


class guarded:  # noqa: N801 - used like a function: ``with guarded(): ...``
    """Context manager letting only :class:`QueryError` out of its block (see :func:`translate`).

    A class rather than a generator: it wraps every query, and this costs a fraction.
    """

    __slots__ = ("search",)

    def __init__(self, *, search: bool = False) -> None:
        self.search = search

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc is None or isinstance(exc, QueryError) or not isinstance(exc, Exception):
            return
        if take_interrupt():
            raise KeyboardInterrupt from None  # Ctrl-C, not a timeout: the CLI exits 130
        raise translate(exc, search=self.search) from exc
