"""Spreading a pre-forked server's connections evenly over its worker processes.

All workers wait on the one listening socket and the kernel wakes every one of them for each
new connection; whichever gets to ``accept()`` first wins it. Clients keep their connection
alive for a whole session, so a worker that won several of a burst of connections serves all
of them for good, on one core under one GIL, while another worker idles (measured:
docs/performance.md). Here each worker counts its
open connections in a small shared-memory table (made before the fork, so every process maps
the same pages) and leaves a new connection to a less busy worker; if none takes it within a
short grace (a worker stuck or stopped), it accepts after all, so no connection waits long.
"""

from __future__ import annotations

import mmap
import struct
import threading
import time
from collections.abc import Callable

#: How long a busier worker leaves a waiting connection to the others before taking it.
GRACE_S = 0.05
#: Checks further apart than this belong to different waiting connections.
_SAME_WAIT_S = 0.02


class ConnectionBalance:
    """Open-connection counts per worker, shared between processes through anonymous memory.

    Args:
        workers: Number of worker processes (slots).
        grace_s: How long a busier worker defers a waiting connection (default
            :data:`GRACE_S`).
        clock: Monotonic clock (injectable for tests).
    """

    def __init__(
        self,
        workers: int,
        *,
        grace_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.workers = workers
        self.slot = 0
        self.grace_s = GRACE_S if grace_s is None else grace_s
        self._clock = clock
        self._table = mmap.mmap(-1, 8 * workers)  # zeroed, MAP_SHARED: survives fork shared
        self._lock = threading.Lock()
        self._waiting_since: float | None = None
        self._last_check = float("-inf")

    def become(self, slot: int) -> None:
        """Make this process the worker of ``slot`` (called in a child right after fork)."""
        self.slot = slot
        self._lock = threading.Lock()
        self._waiting_since = None

    def counts(self) -> list[int]:
        """Open connections of every worker, by slot."""
        return list(struct.unpack_from(f"{self.workers}q", self._table))

    def opened(self) -> None:
        """This worker took a connection."""
        self._add(1)

    def closed(self) -> None:
        """A connection of this worker ended."""
        self._add(-1)

    def _add(self, delta: int) -> None:
        # Only this process writes its slot; the lock orders its own threads.
        with self._lock:
            if self._table.closed:
                return  # the server has stopped
            (value,) = struct.unpack_from("q", self._table, 8 * self.slot)
            struct.pack_into("q", self._table, 8 * self.slot, value + delta)

    def should_accept(self) -> bool:
        """Whether this worker should take the connection waiting now.

        Yes when no worker has fewer open connections; otherwise no, until the same waiting
        connection has been left to the others for ``grace_s``.
        """
        counts = self.counts()
        now = self._clock()
        if counts[self.slot] <= min(counts):
            self._waiting_since = None
            return True
        if self._waiting_since is None or now - self._last_check > _SAME_WAIT_S:
            self._waiting_since = now  # a new wait (the last one was taken by someone else)
        self._last_check = now
        if now - self._waiting_since >= self.grace_s:
            self._waiting_since = None
            return True
        return False

    def close(self) -> None:
        """Release the shared table."""
        self._table.close()
