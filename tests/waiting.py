"""Waiting for a state in a test: a deadline, never a count of pauses.

A condition that comes true returns at once, so a passing test takes no longer for the
deadline being long; the deadline only guards against a hang. A count of 20 ms pauses
(the old way) measured the machine instead: at load 8, 150 pauses ran out before a busy
app had drawn its table, and the suite failed on no bug. ``CRMTUI_TEST_PATIENCE``
(seconds) moves the deadline on a machine slower still.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import Any

#: How long a test waits for a state before it calls it a hang.
PATIENCE_S = float(os.environ.get("CRMTUI_TEST_PATIENCE", "120"))


async def until(
    pilots: Any | Sequence[Any],
    condition: Callable[[], Any],
    *,
    step: float = 0.02,
    workers: bool = False,
    what: str = "condition not met in time",
    seconds: float | None = None,
) -> None:
    """Pause the pilot(s) until ``condition()`` holds; fail after ``seconds`` (the patience).

    ``workers``: also let the first app's workers finish between looks.
    """
    pilots = list(pilots) if isinstance(pilots, (list, tuple)) else [pilots]
    deadline = time.monotonic() + (PATIENCE_S if seconds is None else seconds)
    while True:
        for pilot in pilots:
            await pilot.pause(step)
        if workers:
            await pilots[0].app.workers.wait_for_complete()
        if condition():
            return
        if time.monotonic() > deadline:
            raise AssertionError(what)


def deadline(seconds: float | None = None) -> float:
    """A ``time.monotonic()`` deadline ``seconds`` (the patience) from now."""
    return time.monotonic() + (PATIENCE_S if seconds is None else seconds)
