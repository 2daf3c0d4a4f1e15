"""The TUI's two boundaries with the terminal: bytes coming in, text going out.

**In.** Textual's drivers decode what the terminal sends with a strict UTF-8 decoder: a
Latin-1 ``é`` (``0xe9``) typed or pasted into the answer box or the console, or any broken
UTF-8, raised UnicodeDecodeError in the input thread and the app exited (status 0, with a
traceback). Each driver module's ``getincrementaldecoder`` is replaced by one whose UTF-8
decoder replaces bytes it cannot decode by U+FFFD: the text arrives, visibly marked, and the
session goes on.

**Hang-up.** A terminal that goes away (an ssh connection dropped, a terminal window closed
while the app has no controlling terminal, as under ``setsid``) gets no SIGHUP there; the
driver's input thread then reads end-of-file in a loop: the app spun at a full core for
ever, holding its instance's lock. The terminal drivers' decoder treats an empty read as the
hang-up it is and raises SIGHUP in the process, which the play app answers by exiting
through unmount (the attempt kept to resume, as on a real SIGHUP).

**Out.** Textual writes text as it is: a task's query holding ``ESC]52;c;...`` wrote the
clipboard, ``ESC]0;...`` set the window title, ``ESC[2J`` cleared the screen, U+202E
reversed the rest of a line. Rich and Textual both pass every string through a table of
control characters to remove when text is made (``rich.Text``, ``textual.Content``); that
table is extended with :data:`crmtui.sanitise.SCREEN_TRANSLATION`, so every widget (the
query, the record browser, the transcript, the value viewer, replay and compare) draws an
unsafe character as one visible character (``␛``, ``�``) and lengths stay as they were.
Text in a table cell is shown as written: Textual's ``DataTable`` reads a ``str`` cell as
markup, so a recorded message holding ``[/]`` ended the replay (MarkupError), ``[red]``
recoloured the row and ``:smile:`` became an emoji; every ``str`` cell is now plain text
(:func:`plain_cell_formatter`).

:func:`install` does both; the app factory calls it before building any app. Idempotent.
"""

from __future__ import annotations

import codecs
import functools
import os
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

from crmtui.sanitise import SCREEN_TRANSLATION, install_rich_guard

#: Driver modules that decode terminal input themselves (each imported its own name).
DRIVER_MODULES = (
    "textual.drivers.linux_driver",
    "textual.drivers.linux_inline_driver",
    "textual.drivers.web_driver",
)
#: Of those, the ones reading a terminal: an empty read there is the terminal hanging up.
TERMINAL_DRIVER_MODULES = DRIVER_MODULES[:2]
#: While a hung-up app exits, each further empty read waits this long (no busy loop).
HANGUP_POLL_S = 0.05


def lenient_incremental_decoder(encoding: str) -> Callable[..., codecs.IncrementalDecoder]:
    """``codecs.getincrementaldecoder``, with undecodable bytes replaced by U+FFFD.

    Drop-in for the drivers' ``getincrementaldecoder("utf-8")()`` calls.
    """
    return functools.partial(codecs.getincrementaldecoder(encoding), errors="replace")


class TerminalInputDecoder(codecs.IncrementalDecoder):
    """UTF-8 with U+FFFD for bad bytes; an empty read (the terminal hung up) raises SIGHUP.

    The signal is raised once; later empty reads only pause (:data:`HANGUP_POLL_S`) while
    the app exits. A process with no SIGHUP handler ends on it, as it would on the hang-up.
    """

    def __init__(self, errors: str = "replace") -> None:
        super().__init__(errors)
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.hung_up = False

    def decode(self, input: bytes, final: bool = False) -> str:  # noqa: A002 (codecs' name)
        if not input and not final:
            if not self.hung_up:
                self.hung_up = True
                os.kill(os.getpid(), signal.SIGHUP)
            time.sleep(HANGUP_POLL_S)
        return self._utf8.decode(input, final)

    def reset(self) -> None:
        self._utf8.reset()


def terminal_input_decoder(encoding: str) -> Callable[..., codecs.IncrementalDecoder]:
    """The terminal drivers' ``getincrementaldecoder``: see :class:`TerminalInputDecoder`."""
    if codecs.lookup(encoding).name != "utf-8":
        return lenient_incremental_decoder(encoding)
    return TerminalInputDecoder


def install() -> None:
    """Guard terminal input decoding and output text for every Textual app in this process."""
    install_rich_guard()
    from textual import content
    from textual.app import App

    table: Any = content._CONTROL_STRIP_TRANSLATE  # typed as removals only; now replacements too
    table.update(SCREEN_TRANSLATION)
    # The driver modules already imported are guarded now; any other when an app picks it
    # (App.__init__ asks get_driver_class): importing the web driver up front cost every
    # terminal start ~6 ms for a module only a browser session uses.
    for name in DRIVER_MODULES:
        if name in sys.modules:
            _guard_module(sys.modules[name])
    if not getattr(App.get_driver_class, "_crmtui_guarded", False):
        App.get_driver_class = _guarded_driver_class(App.get_driver_class)  # type: ignore[method-assign]
    from textual.widgets import _data_table

    if not getattr(_data_table.default_cell_formatter, "_crmtui_plain", False):
        _data_table.default_cell_formatter = plain_cell_formatter(
            _data_table.default_cell_formatter
        )


class _PlainText:
    """A ``str`` DataTable's cell formatter takes as text, not markup (not renderable, so
    it formats ``str(cell)`` into a plain ``Text`` with the cell's wrapping and height)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


def plain_cell_formatter(formatter: Callable[..., Any]) -> Callable[..., Any]:
    """DataTable's ``default_cell_formatter``, with a ``str`` cell shown as written."""

    def format_cell(obj: object, wrap: bool = True, height: int = 0) -> Any:
        return formatter(_PlainText(obj) if isinstance(obj, str) else obj, wrap, height)

    format_cell._crmtui_plain = True  # type: ignore[attr-defined]
    format_cell.__wrapped__ = formatter  # type: ignore[attr-defined]
    return format_cell


def _guard_module(module: Any) -> None:
    if module.__name__ in TERMINAL_DRIVER_MODULES:
        module.getincrementaldecoder = terminal_input_decoder
    else:
        module.getincrementaldecoder = lenient_incremental_decoder


def _guarded_driver_class(get_driver_class: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(get_driver_class)
    def guarded(self: Any) -> Any:
        driver_class = get_driver_class(self)
        module = sys.modules.get(driver_class.__module__)
        if driver_class.__module__ in DRIVER_MODULES and module is not None:
            _guard_module(module)
        return driver_class

    guarded._crmtui_guarded = True  # type: ignore[attr-defined]
    return guarded
