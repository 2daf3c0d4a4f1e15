"""Ctrl-C in a batch run: the first one sets the stop switch, a second one raises."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["ctrl_c_sets"]


@contextlib.contextmanager
def ctrl_c_sets(stop: threading.Event) -> Iterator[None]:
    """In the main thread, the first Ctrl-C sets ``stop``; a second one raises as usual.

    A signal handler (rather than catching KeyboardInterrupt) means the interrupt can never
    land in the middle of writing the results file. Setting ``stop`` also abandons the model
    calls in flight (it is their cancel switch), so the run ends within a second or two.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)

    def handler(signum: int, frame: Any) -> None:
        if stop.is_set():
            signal.signal(signal.SIGINT, signal.default_int_handler)
            raise KeyboardInterrupt
        stop.set()

    signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
