"""One request computing at a time in each server process: the connection threads take turns.

Each keep-alive connection has its own thread, and with 8 clients over 2 worker processes each
process has 4 of them with work to do at once. They share one GIL, and Python's ``sqlite3``
lets go of it around every ``sqlite3_step`` (every row fetched): with another thread waiting,
each such release can hand the GIL over, so 4 busy threads keep passing it back and forth
mid-query, each switch a futex wake-up and a cold CPU cache for the thread that resumes.
With the threads taking turns at the gate for the CPU-bound part of a request (the
engine's query and the JSON encoding), 8 clients cost about what 8 single-threaded processes
do, with far fewer context switches (measured: docs/performance.md).

Reading a request and writing its answer stay outside the gate, so a slow client never holds
the others up, and no request waits long behind a heavy one: after ``patience`` seconds a
waiting request goes ahead anyway, sharing the GIL as it would without the gate.
"""

from __future__ import annotations

import threading
from types import TracebackType

#: How long a request waits for its turn before it runs beside the one holding the gate.
PATIENCE_S = 0.5


class ComputeGate:
    """A per-process turn for the CPU-bound part of a request, with bounded waiting.

    Use as a context manager around the work::

        with gate:
            reply = api.handle(...)

    Args:
        patience_s: Seconds a request waits for its turn before going ahead anyway (default
            :data:`PATIENCE_S`).

    Attributes:
        overtakes: Requests that stopped waiting and ran beside another (for tests and
            diagnostics; a count, not exact under races).
    """

    def __init__(self, patience_s: float | None = None) -> None:
        self.patience_s = PATIENCE_S if patience_s is None else patience_s
        self.overtakes = 0
        self._lock = threading.Lock()
        self._held = threading.local()

    def __enter__(self) -> ComputeGate:
        got = self._lock.acquire(timeout=self.patience_s)
        if not got:
            self.overtakes += 1
        self._held.value = got
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if getattr(self._held, "value", False):
            self._held.value = False
            self._lock.release()

    def reset_after_fork(self) -> None:
        """A fresh, free gate in a forked worker (a lock held at fork time would stay held)."""
        self._lock = threading.Lock()
        self._held = threading.local()
        self.overtakes = 0
