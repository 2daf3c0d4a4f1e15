"""HTTP framing checks and the request deadline for serve-rest's connections (no sockets held).

* :func:`body_length`: the request body's length from its headers, or a :class:`FramingError`
  for a ``Content-Length`` that is not a plain byte count (``abc``, ``1, 1``, 20 digits, a
  negative one), two different ones, one over :data:`MAX_BODY_BYTES`, or a chunked body;
  the error is answered in Salesforce's error shape and the connection closed, since the
  next request's start can no longer be found.
* :class:`DeadlineReader`: socket reads that fail once the request's deadline has passed, so
  a whole request must arrive within :data:`REQUEST_TIMEOUT_S` however slowly it trickles.
"""

from __future__ import annotations

import io
import re
import socket
import time
from collections.abc import Callable
from email.message import Message
from typing import Any

#: Seconds a connection has to deliver a whole request (line, headers, body) after the
#: previous answer or after connecting; an idle or slow connection is closed then.
REQUEST_TIMEOUT_S = 20.0
#: Largest request body read (and thrown away: the API is read-only), in bytes.
MAX_BODY_BYTES = 10 * 1024 * 1024
#: Connections (threads) one process serves at once; more wait in the listen queue.
MAX_CONNECTIONS = 100
#: Seconds a connection may wait for (the rest of) its request while every connection
#: thread is taken and other clients wait to be accepted; it is closed then.
SHED_AFTER_S = 0.5

_BYTE_COUNT = re.compile(r"[0-9]{1,15}")


class FramingError(Exception):
    """A request whose body cannot be delimited: answered, then the connection closes.

    Attributes:
        status: HTTP status (400, 411 or 413).
        code: The ``errorCode`` of the answer.
        message: The ``message`` of the answer.
    """

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message = status, code, message

    def body(self) -> list[dict[str, Any]]:
        """The JSON answer: Salesforce's list with one error object."""
        return [{"errorCode": self.code, "message": self.message}]


def body_length(headers: Message) -> int:
    """The request body's length in bytes (0 when there is none).

    Raises:
        FramingError: Chunked, or a ``Content-Length`` that is not one plain byte count up
            to :data:`MAX_BODY_BYTES`.
    """
    if headers.get("Transfer-Encoding", "").strip().lower() not in ("", "identity"):
        raise FramingError(411, "LENGTH_REQUIRED", "send the request body with a Content-Length")
    values = headers.get_all("Content-Length") or []
    if not values:
        return 0
    text = values[0].strip()
    if len(set(values)) > 1 or not _BYTE_COUNT.fullmatch(text):
        shown = ", ".join(values)[:40]
        raise FramingError(400, "BAD_REQUEST", f"Content-Length {shown!r} is not a byte count")
    length = int(text)
    if length > MAX_BODY_BYTES:
        raise FramingError(413, "REQUEST_TOO_LARGE", f"request body over {MAX_BODY_BYTES:,} bytes")
    return length


class DeadlineReader(io.RawIOBase):
    """Socket reads that fail once ``deadline()`` has passed (wrap it in a BufferedReader).

    A per-read timeout alone lets a client that sends one byte every few seconds hold its
    connection (and thread) for ever; this bounds the whole request.

    Args:
        sock: The connection's socket (plain or TLS).
        deadline: Returns the ``time.monotonic()`` by which the current request must be in.
    """

    def __init__(self, sock: socket.socket, deadline: Callable[[], float]) -> None:
        self._sock = sock
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        left = self._deadline() - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request did not arrive in time")
        self._sock.settimeout(left)
        return self._sock.recv_into(buffer)
