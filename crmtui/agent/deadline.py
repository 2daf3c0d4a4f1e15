"""Run a blocking call with a total deadline and a cancel switch that hold mid-call.

HTTP clients time out per read: a server that trickles its reply a byte at a time never
trips them. :func:`call_with_deadline` runs the call in a daemon thread and waits for it at
most until the deadline, or until ``cancel`` is set (Ctrl-C in ``crmtui run``); then the
caller goes on and the call is abandoned. An abandoned thread ends by itself when the server
finishes or closes the connection (a streamed reply checks :class:`Abandon` between chunks
and stops at once); it never blocks the process from exiting.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["Abandon", "CallCancelled", "DeadlineExceeded", "call_with_deadline"]

T = TypeVar("T")

#: How often a waiting caller looks at the cancel switch (seconds).
POLL_S = 0.05


class DeadlineExceeded(Exception):
    """The call did not finish before its deadline."""


class CallCancelled(Exception):
    """The cancel switch was set while the call was running."""


class Abandon:
    """Tells a running call that nobody waits for it any more (checked between chunks)."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def set(self) -> None:
        """Mark the call abandoned."""
        self._event.set()

    @property
    def is_set(self) -> bool:
        """Whether the caller gave up on the call."""
        return self._event.is_set()


def call_with_deadline(
    func: Callable[[Abandon], T],
    deadline: float,
    *,
    cancel: threading.Event | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> T:
    """``func(abandon)`` in a daemon thread, waited for until ``deadline`` (``clock`` time).

    Args:
        func: The blocking call; it receives an :class:`Abandon` it may poll to stop early.
        deadline: Absolute ``clock()`` time after which the caller stops waiting.
        cancel: When set (from any thread), the caller stops waiting within ``POLL_S``.
        clock: Monotonic clock (tests).

    Returns:
        What ``func`` returned.

    Raises:
        DeadlineExceeded: ``deadline`` passed first.
        CallCancelled: ``cancel`` was set first.
        BaseException: Whatever ``func`` raised, unchanged.
    """
    abandon = Abandon()
    box: dict[str, Any] = {}
    finished = threading.Event()

    def target() -> None:
        try:
            box["value"] = func(abandon)
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting caller as is
            box["error"] = exc
        finally:
            finished.set()

    worker = threading.Thread(target=target, name="crmtui-model-call", daemon=True)
    worker.start()
    while True:
        left = deadline - clock()
        if finished.wait(max(0.0, min(POLL_S, left)) if cancel is not None else max(0.0, left)):
            break
        if cancel is not None and cancel.is_set():
            abandon.set()
            raise CallCancelled
        if clock() >= deadline and not finished.is_set():
            abandon.set()
            raise DeadlineExceeded
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]
