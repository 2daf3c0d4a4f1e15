"""Start-up without the cycle collector, so the first screen comes sooner.

Importing Textual and crmtui and building the first screen create a few hundred thousand
objects that live as long as the process (modules, classes, functions, the app and its
screen). Python's cycle collector scans them again and again while they are created, a
noticeable share of a cold start (measured: docs/performance.md), and almost none of it
garbage (reference counting frees what dies young).

:func:`pause_collector` stops the collector while a program starts;
:func:`resume_collector` (after the first frame, or once a command's imports are done)
freezes what exists, so later collections never scan it again, and turns the collector
back on. A pause never outlives :data:`MAX_PAUSE_S` seconds: a program that never reaches
its resume point still collects its garbage after that.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable

#: Longest pause, in seconds of wall time, whatever happens.
MAX_PAUSE_S = 3.0


class _Pause:
    paused = False
    timer: threading.Timer | None = None
    when_over: list[Callable[[], None]] = []  # noqa: RUF012 - one pause per process


def pause_collector(max_s: float | None = MAX_PAUSE_S) -> None:
    """Stop cyclic garbage collection until :func:`resume_collector`.

    Args:
        max_s: Resume anyway after this many seconds (a daemon timer thread); None: no
            timer (a process about to fork must have no threads: the children call this
            again to arm theirs). Calling it during a pause only arms a missing timer.

    Does nothing when somebody else turned the collector off (they turn it back on).
    """
    if not _Pause.paused:
        if not gc.isenabled():
            return
        gc.disable()
        _Pause.paused = True
    if max_s is not None and _Pause.timer is None:
        timer = threading.Timer(max_s, resume_collector, kwargs={"freeze": False})
        timer.daemon = True
        _Pause.timer = timer
        timer.start()


def resume_collector(*, freeze: bool = True) -> None:
    """End a pause begun by :func:`pause_collector` (no-op without one).

    Args:
        freeze: Move every object that exists now out of later collections
            (``gc.freeze``): right after start-up they are the program's long-lived part.
    """
    if not _Pause.paused:
        return
    timer, _Pause.timer = _Pause.timer, None
    if timer is not None:
        timer.cancel()
    _Pause.paused = False
    if freeze:
        gc.freeze()
    gc.enable()
    callbacks, _Pause.when_over = _Pause.when_over, []
    for callback in callbacks:
        callback()


def when_started(callback: Callable[[], None]) -> None:
    """Call ``callback`` when the start-up pause ends (the first frame, or
    :data:`MAX_PAUSE_S` at the latest), or now when there is none."""
    if _Pause.paused:
        _Pause.when_over.append(callback)
    else:
        callback()


def collector_paused() -> bool:
    """Whether a start-up pause is in force."""
    return _Pause.paused
