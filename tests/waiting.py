"""Waiting for a state in a test: a deadline, never a count of pauses.

A condition that comes true returns at once, so a passing test takes no longer for the
deadline being long; the deadline only guards against a hang. A count of 20 ms pauses
(the old way) measured the machine instead: at load 8, 150 pauses ran out before a busy
app had drawn its table, and the suite failed on no bug. ``CRMTUI_TEST_PATIENCE``
(seconds) moves the deadline on a machine slower still.

A test that checks something happens *promptly* (a cancel, a cut-off, a refusal "at once")
bounds it with :func:`promptly`: the quiet machine's figure times the machine's present
slowdown, but never more than half the wait it stands against, so the test still tells
"at once" from "after the timeout". A cost (linear, not quadratic) is bounded in CPU
seconds (``time.process_time()``), which a busy machine does not inflate; a speed target
belongs in ``benchmarks/``, not in an assert. tests/unit/test_waits_are_deadlines.py holds
the suite to these rules.
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


def poll(condition: Callable[[], Any], *, what: str, seconds: float | None = None) -> Any:
    """Outside an app (a thread, a server, a child process): look every 20 ms until
    ``condition()`` returns something true and return it; fail after ``seconds`` (the
    patience) saying ``what`` was awaited."""
    end = time.monotonic() + (PATIENCE_S if seconds is None else seconds)
    while not (value := condition()):
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)
    return value


def slowdown() -> float:
    """How many times slower than a quiet machine this one runs now, at least 1.

    The 1-minute load average per core (two other test suites on two cores: about 5);
    ``CRMTUI_TEST_SLOWDOWN`` sets it where the load average says nothing (a container
    sharing its cores with others it cannot see).
    """
    forced = os.environ.get("CRMTUI_TEST_SLOWDOWN")
    if forced:
        return max(1.0, float(forced))
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # not on every platform
        return 1.0
    return max(1.0, load / (os.cpu_count() or 1))


def promptly(seconds: float, *, instead: float) -> float:
    """The bound for "this takes about ``seconds``, not the ``instead`` seconds it avoids".

    ``seconds`` (a quiet machine's generous figure) times :func:`slowdown`, capped at half
    of ``instead``: a loaded machine moves the bound, but never so far that waiting the
    whole ``instead`` would pass.
    """
    return min(seconds * slowdown(), instead / 2)


def deadline(seconds: float | None = None) -> float:
    """A ``time.monotonic()`` deadline ``seconds`` (the patience) from now."""
    return time.monotonic() + (PATIENCE_S if seconds is None else seconds)
