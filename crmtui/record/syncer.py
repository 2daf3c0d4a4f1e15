"""Syncing a recording to disk on a background thread, so an event costs only its ``write``.

Every event is written with one ``write`` before :meth:`Recorder.emit` returns: from then on
it survives the process being killed (the kernel holds it). What ``fsync`` adds is surviving
a machine crash or a power cut, and it can take tens of milliseconds when many processes
sync at once. An interactive session cannot wait for that on every keystroke's event: with
many served annotators typing, a sync before every event made keystrokes wait for the disk
(measured: docs/performance.md).
:class:`BackgroundSync` syncs after each write on its own thread instead, coalescing writes
that arrive while a sync runs, and syncs once more, in the caller's thread, when the
recording is released.
"""

from __future__ import annotations

import contextlib
import os
import threading


class BackgroundSync:
    """``fsync`` a file descriptor on a daemon thread whenever :meth:`request` is called.

    The thread works on its own duplicate of the descriptor, so the recorder may close its
    own at any time; :meth:`close` stops the thread, syncs a last time and closes the
    duplicate.

    Attributes:
        error: The last ``OSError`` a background sync raised, if any (re-raised by
            :meth:`close`).
    """

    def __init__(self, fd: int) -> None:
        self._fd = os.dup(fd)
        self._wanted = threading.Event()
        self._stopping = False
        self._abandoned = False
        self.error: OSError | None = None
        self._thread = threading.Thread(target=self._run, name="recording-sync", daemon=True)
        self._thread.start()

    def request(self) -> None:
        """Ask for a sync of everything written so far (returns at once)."""
        self._wanted.set()

    def _run(self) -> None:
        while True:
            self._wanted.wait()
            if self._stopping:
                if self._abandoned:
                    with contextlib.suppress(OSError):
                        os.close(self._fd)
                return
            self._wanted.clear()
            try:
                os.fsync(self._fd)
            except OSError as exc:  # kept for close(); the write itself already succeeded
                self.error = exc

    def close(self) -> None:
        """Stop the thread and sync once more, here.

        Raises:
            OSError: If this sync, or an earlier background one, failed.
        """
        self._stopping = True
        self._wanted.set()
        self._thread.join()
        try:
            os.fsync(self._fd)
        finally:
            os.close(self._fd)
        if self.error is not None:
            raise self.error

    def abandon(self) -> None:
        """Stop the thread without waiting for it (a recorder garbage-collected unclosed)."""
        self._abandoned = True
        self._stopping = True
        self._wanted.set()
