"""Query budgets: a time limit, a cap on result size, and cancellation, for every query.

One heavy query (a 7-column join over the stress org's 710,000 OrderItems) used to run for
many seconds and take gigabytes, with no way to stop it (docs/performance.md). Every query
now runs under a
:class:`QueryBudget`:

* **time**: SQLite calls a progress handler every :data:`CHECK_EVERY` virtual-machine
  steps (about every millisecond of work) and the Python loops that fetch and shape rows
  check between chunks; past the deadline the query stops with ``QUERY_TIMEOUT: Your query
  request was running for too long.`` (Salesforce's own error). Default
  :data:`DEFAULT_TIMEOUT_S`.
* **size**: a result may hold at most :data:`DEFAULT_MAX_CELLS` values (rows x columns,
  counted while rows are fetched, before they are shaped into records); beyond it the query
  stops with ``OPERATION_TOO_LARGE``, which bounds memory as the clock bounds time.
* **cancel**: a :class:`threading.Event` set from any thread (the console's Cancel key)
  stops the query within milliseconds, as a ``QUERY_TIMEOUT`` saying it was cancelled.

The budget is per thread: :func:`applied` makes one active for a block (the outermost wins,
so a SOSL search and the SOQL queries it runs share one budget) and the progress handler,
installed once on each engine connection, consults it.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from types import TracebackType

from crmtui.query.errors import QueryError
from crmtui.value_class import FrozenValue

#: Default time limit of one query, in seconds (console, agents and ``crmtui query``).
DEFAULT_TIMEOUT_S = 30.0
#: Default cap on the values (rows x columns) one result may hold.
DEFAULT_MAX_CELLS = 2_000_000
#: SQLite virtual-machine steps between two budget checks (~1 ms of work).
CHECK_EVERY = 1000

QUERY_TIMEOUT = "QUERY_TIMEOUT"
OPERATION_TOO_LARGE = "OPERATION_TOO_LARGE"
TIMEOUT_MESSAGE = "Your query request was running for too long."
CANCELLED_MESSAGE = "Your query request was cancelled before it finished."


class QueryBudget(FrozenValue):
    """Limits for one query (a frozen value class, not a dataclass: see :mod:`crmtui.value_class`).

    Attributes:
        timeout_s: Seconds the query may run (None: no limit).
        max_cells: Values (rows x columns) its result may hold (None: no limit).
        cancel: Set it, from any thread, to stop the query.
    """

    FIELDS = ("timeout_s", "max_cells", "cancel")

    timeout_s: float | None
    max_cells: int | None
    cancel: threading.Event | None

    def __init__(
        self,
        timeout_s: float | None = DEFAULT_TIMEOUT_S,
        max_cells: int | None = DEFAULT_MAX_CELLS,
        cancel: threading.Event | None = None,
    ) -> None:
        self._set(timeout_s=timeout_s, max_cells=max_cells, cancel=cancel)


#: No limits at all (tests, benchmarks, and callers that enforce their own).
UNLIMITED = QueryBudget(timeout_s=None, max_cells=None)


class _Active:
    """The running query's budget: its deadline, cells used, and why it was stopped."""

    __slots__ = ("budget", "cells", "deadline", "stopped")

    def __init__(self, budget: QueryBudget) -> None:
        self.budget = budget
        self.deadline = None if budget.timeout_s is None else time.monotonic() + budget.timeout_s
        self.cells = 0
        self.stopped: str | None = None

    def over(self) -> str | None:
        """Why the query must stop now (a message), or None."""
        cancel = self.budget.cancel
        if cancel is not None and cancel.is_set():
            self.stopped = CANCELLED_MESSAGE
        elif self.deadline is not None and time.monotonic() > self.deadline:
            self.stopped = TIMEOUT_MESSAGE
        return self.stopped


_local = threading.local()


def active() -> _Active | None:
    """The budget of the query running on this thread, if any."""
    return getattr(_local, "active", None)


class applied:  # noqa: N801 - used like a function: ``with applied(budget): ...``
    """Make ``budget`` the thread's active budget for a block (an outer one stays)."""

    __slots__ = ("budget", "outer")

    def __init__(self, budget: QueryBudget | None) -> None:
        self.budget = budget if budget is not None else QueryBudget()
        self.outer: _Active | None = None

    def __enter__(self) -> None:
        self.outer = active()
        if self.outer is None:
            _local.active = _Active(self.budget)

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.outer is None:
            _local.active = None


def _progress() -> int:
    # Called by SQLite on the query's own thread; a non-zero return interrupts the query.
    try:
        current = active()
        return 0 if current is None or current.over() is None else 1
    except KeyboardInterrupt:
        # Ctrl-C arrives in this callback while SQLite works, and sqlite3 would swallow it
        # into a plain "interrupted": remember it so the engine raises it again.
        _local.interrupted = True
        return 1


def take_interrupt() -> bool:
    """Whether Ctrl-C stopped the last query on this thread (and forget it)."""
    interrupted = getattr(_local, "interrupted", False)
    _local.interrupted = False
    return interrupted


def install(conn: sqlite3.Connection) -> None:
    """Let the thread's active budget interrupt queries on ``conn``."""
    conn.set_progress_handler(_progress, CHECK_EVERY)


def stopped_error() -> QueryError:
    """The error for a query SQLite interrupted (timeout or cancel)."""
    current = active()
    message = current.stopped if current is not None and current.stopped else TIMEOUT_MESSAGE
    return QueryError(QUERY_TIMEOUT, message)


def check(cells: int = 0) -> None:
    """Count ``cells`` more result values and stop the query if its budget is spent.

    Called by the Python loops that fetch and shape rows (SQLite's handler covers its own
    work).

    Raises:
        QueryError: ``QUERY_TIMEOUT`` past the deadline or when cancelled;
            ``OPERATION_TOO_LARGE`` past the cap on result values.
    """
    current = active()
    if current is None:
        return
    if current.over() is not None:
        raise stopped_error()
    if cells:
        current.cells += cells
        limit = current.budget.max_cells
        if limit is not None and current.cells > limit:
            raise QueryError(
                OPERATION_TOO_LARGE,
                f"The query result is too large: more than {limit:,} values (rows x "
                "fields). Select fewer fields, filter with WHERE, or add a LIMIT.",
            )
