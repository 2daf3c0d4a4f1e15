"""Fuzzing serve-rest's HTTP layer: hostile requests on a real socket, judged from outside.

Shared by the CI test (``test_inputs_fuzz.py``) and ``scripts/fuzz.py --http N``. Each input
is raw bytes sent on a fresh connection to a running :class:`~crmtui.rest.RestServer`:
request lines and paths (huge locator offsets, batch sizes of thousands of digits, bytes that
are not UTF-8), framing (``Content-Length`` that is not a byte count, two of them, negative,
20 digits, a chunked body, a body shorter than announced), headers (thousands of them, a
megabyte long, without the final blank line) and clients that hang up early.

Outcomes: ``answered:<status>``, ``answered:no-status-line`` (a request line without a
usable version gets an HTTP/0.9-style answer, a body only) or ``closed`` (the server closed
without an answer: a client that hung up, or one past the timeout); failures: ``hung``
(still open well past the server's timeout), ``stderr`` (the server wrote to stderr: a
traceback or a BrokenPipeError block), ``python`` (an answer quoting Python's own messages)
and ``down`` (a good request on a new connection failed).
"""

from __future__ import annotations

import io
import random
import socket
import sys
import time
from typing import Any

#: Outcomes that are failures.
HTTP_FAILURES = ("hung", "stderr", "python", "down")

_PYTHON_WORDS = ("Traceback", "ValueError", "int()", "sys.set_int_max_str_digits", "Errno")


def _pick(rng: random.Random, items: list[Any]) -> Any:
    return items[rng.randrange(len(items))]


def hostile_request(rng: random.Random, session_id: str) -> tuple[bytes, bool]:
    """(bytes to send, whether to hang up right after sending) for one hostile request."""
    auth = f"Authorization: Bearer {session_id}\r\n".encode()
    method = _pick(rng, [b"GET", b"POST", b"PATCH", b"HEAD", b"DELETE", b"BREW", b"G\xffT"])
    path = _pick(
        rng,
        [
            b"/services/data/v59.0/query?q=SELECT+Id+FROM+Case+LIMIT+3",
            b"/services/data/v59.0/query/01gAAAAAAAAAAAAAAA-" + b"9" * rng.choice([5, 20, 5000]),
            b"/services/data/v59.0/query/01gAAAAAAAAAAAAAAA-\xd9\xa3",
            b"/services/data/v59.0/query?q=" + b"%ff%fe" * 50,
            b"/services/data/v59.0/sobjects/Case/" + b"5" * 300,
            b"/services/data/",
            b"/" + b"a" * rng.choice([10, 70_000]),
            b"*",
        ],
    )
    version = b"HTTP/1.1"
    if rng.random() < 0.25:  # an odd version line now and then (HTTP/0.9 answers: a body)
        version = _pick(rng, [b"HTTP/1.0", b"HTTP/9.9", b"", b"HTTP/1.1 extra"])
    headers = [b"Host: x\r\n"]
    if rng.random() < 0.8:
        headers.append(auth)
    if rng.random() < 0.3:
        size = _pick(rng, ["9" * 5000, "300", "x", "0"])
        headers.append(f"Sforce-Query-Options: batchSize={size}\r\n".encode())
    body = b""
    roll = rng.random()
    if roll < 0.45:
        length = _pick(
            rng,
            [b"abc", b"1, 1", b"9" * 20, b"-5", b"+5", b"0x10", b"\xd9\xa3", b"", b"10", b"5"],
        )
        headers.append(b"Content-Length: " + length + b"\r\n")
        if rng.random() < 0.2:
            headers.append(b"Content-Length: 7\r\n")
        body = _pick(rng, [b"", b"hello", b"x" * 10])
    elif roll < 0.55:
        headers.append(b"Transfer-Encoding: chunked\r\n")
        body = b"5\r\nhello\r\n0\r\n\r\n"
    elif roll < 0.6:
        headers += [b"X-Junk: y\r\n"] * rng.choice([50, 150])
    elif roll < 0.63:
        headers.append(b"X-Long: " + b"z" * 70_000 + b"\r\n")
    end = b"\r\n" if rng.random() < 0.9 else b""  # no blank line: the headers never end
    data = method + b" " + path + b" " + version + b"\r\n" + b"".join(headers) + end + body
    if rng.random() < 0.05:
        data = bytes(rng.randrange(256) for _ in range(rng.choice([1, 100, 3000])))
    return data, rng.random() < 0.15


def _good(server: Any, session_id: str) -> bool:
    request = (
        "GET /services/data/v59.0/query?q=SELECT+Id+FROM+Case+LIMIT+1 HTTP/1.1\r\n"
        f"Host: x\r\nAuthorization: Bearer {session_id}\r\nConnection: close\r\n\r\n"
    )
    try:
        reply, _ = _send(server, request.encode(), hang_up=False, wait=10.0)
    except OSError:
        return False
    return reply.startswith(b"HTTP/1.1 200")


def _send(server: Any, data: bytes, *, hang_up: bool, wait: float) -> tuple[bytes, bool]:
    """Send ``data``; read until the server closes. (reply, closed in time?)."""
    with socket.create_connection((server.host, server.port), timeout=wait) as sock:
        try:
            sock.sendall(data)
        except OSError:
            return b"", True  # the server closed early (e.g. after refusing the headers)
        if hang_up:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00" + b"\0" * 4)
            return b"", True
        reply = b""
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                return reply, False
            except OSError:
                return reply, True
            if not chunk:
                return reply, True
            reply += chunk
        return reply, False


def check_http(server: Any, data: bytes, hang_up: bool, session_id: str) -> tuple[str, str]:
    """Send one hostile request to ``server`` (timeout ``server``'s, ~1 s) and judge it."""
    captured = io.StringIO()
    old, sys.stderr = sys.stderr, captured
    try:
        reply, closed = _send(server, data, hang_up=hang_up, wait=server.request_timeout_s + 4)
        time.sleep(0.01)  # let the connection's thread finish (and complain, if it would)
    finally:
        sys.stderr = old
    detail = f"sent {data[:120]!r}"
    if captured.getvalue():
        return "stderr", f"{captured.getvalue()[:300]} after {detail}"
    if not closed:
        return "hung", detail
    if any(word.encode() in reply for word in _PYTHON_WORDS):
        return "python", f"{reply[-300:]!r} after {detail}"
    if not _good(server, session_id):
        return "down", detail
    if reply.startswith(b"HTTP/"):
        return f"answered:{reply.split()[1].decode('ascii', 'replace')}", ""
    if reply:  # a request without a usable version is answered the HTTP/0.9 way: a body only
        return "answered:no-status-line", ""
    return "closed", ""
