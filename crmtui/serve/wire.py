"""What a browser may send the study server, bounded: terminal sizes, websocket messages,
and requests too large to parse.

Pure helpers for :mod:`crmtui.ui.web`: no aiohttp, no textual.

* Terminal sizes, whether the first (``/ws?width=&height=``) or a later ``resize``, are
  held to :data:`MAX_WIDTH` x :data:`MAX_HEIGHT`: a huge first size made the app draw, and
  the server send, a frame of a hundred megabytes and more (docs/performance.md).
* A websocket message is at most :data:`MAX_MESSAGE_BYTES` (aiohttp refuses longer ones
  with close code 1009) and is parsed by :func:`parse_envelope`, which answers None for
  anything that is not one of the browser terminal's small envelopes, a 100,000-deep JSON
  array included (``json`` raises ``RecursionError`` on it, which took the session down).
* :class:`QuietRefusals` turns aiohttp's traceback for a request it could not even parse
  (an over-long URL or header line, too many headers) into one log line naming the
  client; the client gets aiohttp's 400 with the reason.
"""

from __future__ import annotations

import json
import logging
from typing import Any

#: Widest and tallest terminal a session may ask for (about 500,000 cells; a 4K screen at
#: a small font is about 550 x 150).
MAX_WIDTH = 1000
MAX_HEIGHT = 500
#: Size of a first connection without (valid) size parameters.
DEFAULT_SIZE = (80, 24)
#: Longest websocket message accepted (a pasted answer fits many times over).
MAX_MESSAGE_BYTES = 1 << 20
#: Envelopes the browser terminal sends: ``["stdin", text]``, ``["resize", {...}]``,
#: ``["ping", data]``, ``["focus"]``, ``["blur"]``.
KINDS = frozenset({"stdin", "resize", "ping", "focus", "blur"})


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        value = value.strip()
        if not value.isdigit() or len(value) > 9:  # int() of a huge string is slow
            return None
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return None


def terminal_size(width: Any, height: Any) -> tuple[int, int] | None:
    """A requested terminal size held within the caps, or None when it is not a size.

    Both numbers must be positive integers (or their decimal text); each is then capped at
    :data:`MAX_WIDTH` and :data:`MAX_HEIGHT`.
    """
    w, h = _int(width), _int(height)
    if w is None or h is None or w < 1 or h < 1:
        return None
    return min(w, MAX_WIDTH), min(h, MAX_HEIGHT)


def first_size(width: Any, height: Any) -> tuple[int, int]:
    """The size a new session starts at: the requested one capped, else 80 x 24."""
    return terminal_size(width, height) or DEFAULT_SIZE


def font_size(text: str | None) -> int:
    """The page's font size in pixels from ``?fontsize=`` (16 unless 6 to 64)."""
    size = _int(text)
    return size if size is not None and 6 <= size <= 64 else 16


def parse_envelope(text: str) -> tuple[str, Any] | None:
    """``(kind, data)`` of one browser message, or None when it is not a known envelope.

    Never raises: malformed, deeply nested or unknown messages all answer None.
    """
    if len(text) > MAX_MESSAGE_BYTES:
        return None
    try:
        envelope = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(envelope, list) or not envelope:
        return None
    if not isinstance(envelope[0], str) or envelope[0] not in KINDS:
        return None
    return envelope[0], envelope[1] if len(envelope) > 1 else None


class QuietRefusals(logging.Filter):
    """One line, not a traceback, for a request aiohttp refused before any handler ran.

    aiohttp logs ``Error handling request from ADDR`` with the parser's exception (an
    ``HttpProcessingError``: a line over 8190 bytes, too many headers, a malformed request
    line) at error level with its traceback. Attach to the ``aiohttp.server`` logger.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        from aiohttp.http_exceptions import HttpProcessingError

        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, HttpProcessingError):
            reason = " ".join(str(error.message).split())
            if len(reason) > 80:
                reason = reason[:79] + "…"
            client = record.args[0] if isinstance(record.args, tuple) and record.args else "?"
            record.msg = "refused a request from %s: %s (%d)"
            record.args = (client, reason, error.code)
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def quiet_refusals() -> None:
    """Install :class:`QuietRefusals` on aiohttp's server logger (once)."""
    logger = logging.getLogger("aiohttp.server")
    if not any(isinstance(f, QuietRefusals) for f in logger.filters):
        logger.addFilter(QuietRefusals())
