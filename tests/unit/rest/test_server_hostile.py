"""serve-rest's HTTP layer under hostile clients: framing, hang-ups, slow and idle connections.

* A bad ``Content-Length`` (``abc``, ``1, 1``, 20 digits, negative) is a JSON 400 and the
  connection closes; a chunked body a 411; nothing is written to stderr.
* Clients that leave before their answer write no BrokenPipeError blocks.
* A query locator with a 5,000-digit offset is ``INVALID_QUERY_LOCATOR``, not Python's
  int-digits message; so is a batch size of 5,000 digits ignored.
* A connection that does not send a whole request within the timeout (idle keep-alive,
  a header trickled a byte at a time, a stalled TLS handshake) is closed then.
* A process serves at most ``max_connections`` connections (threads) at once; the rest wait
  in the listen queue and are served when one ends.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from crmtui.org import Org
from crmtui.rest import RestApi, RestServer
from crmtui.rest.cursors import page_size_from, split_locator
from crmtui.rest.tls import make_tls
from tests.waiting import PATIENCE_S, poll, promptly

from .conftest import SESSION_ID

AUTH = f"Authorization: Bearer {SESSION_ID}\r\n"
QUERY = "/services/data/v59.0/query?q=SELECT+Id,Subject,Description+FROM+Case"


@pytest.fixture
def http_server(small_org: Org) -> Iterator[RestServer]:
    server = RestServer(
        RestApi(small_org, SESSION_ID), request_timeout_s=1.0, max_connections=4
    ).start()
    try:
        yield server
    finally:
        server.stop()


def _exchange(server: RestServer, data: bytes, wait: float = PATIENCE_S) -> tuple[bytes, float]:
    """Send ``data``, read until the server closes; (what came back, seconds until closed)."""
    started = time.monotonic()
    with socket.create_connection((server.host, server.port), timeout=wait) as sock:
        sock.sendall(data)
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
    return out, time.monotonic() - started


def _status_and_body(reply: bytes) -> tuple[int, object]:
    head, _, body = reply.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


@pytest.mark.parametrize("length", ["abc", "1, 1", "9" * 20, "-5", "+5", "0x10", "٣"])
def test_a_bad_content_length_is_a_clean_400_and_the_connection_closes(
    http_server: RestServer, length: str, capfd: pytest.CaptureFixture[str]
) -> None:
    request = f"POST /services/data/v59.0/query HTTP/1.1\r\nHost: x\r\n{AUTH}"
    reply, seconds = _exchange(http_server, f"{request}Content-Length: {length}\r\n\r\n".encode())
    status, body = _status_and_body(reply)
    assert status == 400 and seconds < 0.9  # answered at once, not after the timeout
    assert body == [{"errorCode": "BAD_REQUEST", "message": body[0]["message"]}]  # type: ignore[index]
    assert "is not a byte count" in body[0]["message"]  # type: ignore[index]
    assert b"Connection: close" in reply
    assert capfd.readouterr().err == ""


def test_a_chunked_body_is_refused_and_framing_stays_sound(http_server: RestServer) -> None:
    request = f"POST /services/data/v59.0/query HTTP/1.1\r\nHost: x\r\n{AUTH}"
    reply, _ = _exchange(
        http_server, f"{request}Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n".encode()
    )
    assert _status_and_body(reply)[0] == 411


def test_clients_that_leave_before_their_answer_write_nothing(
    http_server: RestServer, capfd: pytest.CaptureFixture[str]
) -> None:
    def leave() -> None:
        sock = socket.create_connection((http_server.host, http_server.port))
        sock.sendall(f"GET {QUERY} HTTP/1.1\r\nHost: x\r\n{AUTH}\r\n".encode())
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        sock.close()  # a reset: the answer's write fails with BrokenPipe or ConnectionReset

    threads = [threading.Thread(target=leave) for _ in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    time.sleep(0.5)
    reply, _ = _exchange(
        http_server,
        f"GET {QUERY}+LIMIT+1 HTTP/1.1\r\nHost: x\r\n{AUTH}Connection: close\r\n\r\n".encode(),
    )
    assert _status_and_body(reply)[0] == 200  # still serving
    err = capfd.readouterr().err
    assert "Traceback" not in err and "BrokenPipe" not in err and err == ""


def test_a_huge_locator_offset_is_an_invalid_locator(http_server: RestServer) -> None:
    path = f"/services/data/v59.0/query/01gAAAAAAAAAAAAAAA-{'9' * 5000}"
    reply, _ = _exchange(
        http_server, f"GET {path} HTTP/1.1\r\nHost: x\r\n{AUTH}Connection: close\r\n\r\n".encode()
    )
    status, body = _status_and_body(reply)
    assert status == 400
    assert body == [{"errorCode": "INVALID_QUERY_LOCATOR", "message": "invalid query locator"}]


def test_locator_offsets_and_batch_sizes_are_plain_short_numbers() -> None:
    assert split_locator("01gAbc-4000") == ("01gAbc", 4000)
    for bad in ("01gAbc-" + "9" * 5000, "01gAbc-²", "01gAbc-٣", "01gAbc-"):
        assert split_locator(bad) is None
    assert page_size_from("batchSize=" + "9" * 5000) == 2000
    assert page_size_from("batchSize=٣٠٠") == 2000
    assert page_size_from("batchSize=300") == 300


def test_idle_and_slow_header_connections_are_closed_after_the_timeout(
    http_server: RestServer,
) -> None:
    _, idle = _exchange(http_server, b"")
    assert 0.8 < idle < promptly(3.0, instead=PATIENCE_S)

    started = time.monotonic()
    with socket.create_connection((http_server.host, http_server.port), timeout=30) as sock:
        sock.sendall(b"GET /services/data/v59.0/ HTTP/1.1\r\n")
        sock.settimeout(0.1)
        closed = False
        while time.monotonic() - started < PATIENCE_S and not closed:
            try:
                sock.sendall(b"X")  # a header one byte at a time, never finished
                closed = sock.recv(1024) == b""
            except TimeoutError:
                continue
            except OSError:
                closed = True
    assert closed and time.monotonic() - started < promptly(3.0, instead=PATIENCE_S)


def test_keep_alive_requests_each_get_the_whole_timeout(http_server: RestServer) -> None:
    import http.client

    conn = http.client.HTTPConnection(http_server.host, http_server.port, timeout=PATIENCE_S)
    try:
        for _ in range(3):
            # Each pause is well under the 1 s timeout (room for a loaded machine's late
            # wake-up); together they are over it.
            time.sleep(0.4)
            conn.request("GET", f"{QUERY}+LIMIT+1", headers={"Authorization": AUTH[15:-2]})
            response = conn.getresponse()
            assert response.status == 200 and not response.will_close
            response.read()
        assert conn.sock is not None  # one connection served all three
    finally:
        conn.close()


def test_connection_threads_are_bounded_and_the_rest_wait(http_server: RestServer) -> None:
    idle = [socket.create_connection((http_server.host, http_server.port)) for _ in range(8)]
    try:
        # Four connections hold the four slots (threads); four wait, not accepted.
        slots = http_server._httpd.slots  # type: ignore[attr-defined]
        poll(lambda: slots._value == 0, what="the four slots taken")
        # The queued ones are served once the idle ones time out: nobody is refused.
        request = f"GET {QUERY}+LIMIT+1 HTTP/1.1\r\nHost: x\r\n{AUTH}Connection: close\r\n\r\n"
        reply, seconds = _exchange(http_server, request.encode())
        assert _status_and_body(reply)[0] == 200 and seconds > 0.5
    finally:
        for sock in idle:
            sock.close()


def test_a_stalled_tls_handshake_is_closed_after_the_timeout(
    small_org: Org, tmp_path: Path
) -> None:
    tls = make_tls(tmp_path / "ca.pem", "127.0.0.1")
    server = RestServer(
        RestApi(small_org, SESSION_ID), tls=tls.context, request_timeout_s=0.5
    ).start()
    try:
        _, seconds = _exchange(server, b"")  # connects, never says hello
        assert seconds < promptly(3.0, instead=PATIENCE_S)
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ([], 0),
        ([("Content-Length", "12")], 12),
        ([("Content-Length", " 7 ")], 7),
        ([("Content-Length", "7"), ("Content-Length", "7")], 7),
        ([("Content-Length", "abc")], 400),
        ([("Content-Length", "1, 1")], 400),
        ([("Content-Length", "9" * 20)], 400),
        ([("Content-Length", "-5")], 400),
        ([("Content-Length", "7"), ("Content-Length", "8")], 400),
        ([("Content-Length", str(20 * 1024 * 1024))], 413),
        ([("Transfer-Encoding", "chunked")], 411),
        ([("Transfer-Encoding", "identity"), ("Content-Length", "3")], 3),
    ],
)
def test_body_length_reads_only_plain_byte_counts(
    headers: list[tuple[str, str]], expected: int
) -> None:
    from email.message import Message

    from crmtui.rest.framing import FramingError, body_length

    message = Message()
    for name, value in headers:
        message[name] = value
    if expected in (400, 411, 413):
        with pytest.raises(FramingError) as info:
            body_length(message)
        assert info.value.status == expected and info.value.body()[0]["errorCode"]
    else:
        assert body_length(message) == expected
