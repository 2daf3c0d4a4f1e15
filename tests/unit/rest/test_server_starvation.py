"""serve-rest keeps serving normal clients while hundreds of connections are slow or idle
(issue #35).

The property: with every connection thread taken by clients that never finish a request
(idle keep-alive connections, headers trickled a byte at a time) and more of them queued,
a normal client's request is still answered within seconds, not after the whole request
timeout; the threads stay bounded; nothing reaches stderr.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from crmtui.org import Org
from crmtui.rest import RestApi, RestServer
from tests.waiting import PATIENCE_S, promptly

from .conftest import SESSION_ID

QUERY = "/services/data/v59.0/query?q=SELECT+Id+FROM+Case+LIMIT+1"
SLOTS = 16
#: The request timeout a starved client would wait out: far above what serving it takes on
#: a loaded machine, so the bound below (tests.waiting.promptly) tells the two apart.
REQUEST_TIMEOUT_S = 120.0


@pytest.fixture
def server(small_org: Org) -> Iterator[RestServer]:
    served = RestServer(
        RestApi(small_org, SESSION_ID), request_timeout_s=REQUEST_TIMEOUT_S, max_connections=SLOTS
    ).start()
    try:
        yield served
    finally:
        served.stop()


def _normal_request(server: RestServer) -> float:
    began = time.monotonic()
    conn = http.client.HTTPConnection(server.host, server.port, timeout=PATIENCE_S)
    try:
        conn.request("GET", QUERY, headers={"Authorization": f"Bearer {SESSION_ID}"})
        response = conn.getresponse()
        response.read()
        assert response.status == 200
    finally:
        conn.close()
    return time.monotonic() - began


def test_slow_and_idle_connections_do_not_starve_normal_clients(
    server: RestServer, capfd: pytest.CaptureFixture[str]
) -> None:
    hostile: list[socket.socket] = []
    stop = threading.Event()
    try:
        for number in range(96):  # six times the connection threads
            sock = socket.create_connection((server.host, server.port), timeout=PATIENCE_S)
            if number % 2:
                sock.sendall(b"GET /services/data/v59.0/ HTTP/1.1\r\nHo")  # never finished
            hostile.append(sock)

        def trickle() -> None:
            while not stop.wait(0.2):
                for sock in hostile[1::2]:
                    with contextlib.suppress(OSError):  # shed: it is closed now
                        sock.sendall(b"x")

        threading.Thread(target=trickle, daemon=True).start()
        time.sleep(0.3)
        threads_before = threading.active_count()
        took = [_normal_request(server) for _ in range(4)]
        assert max(took) < promptly(8.0, instead=REQUEST_TIMEOUT_S), took  # none waited it out
        assert threading.active_count() <= threads_before + SLOTS
    finally:
        stop.set()
        for sock in hostile:
            sock.close()
    assert "Traceback" not in capfd.readouterr().err


def test_stalled_tls_handshakes_do_not_starve_normal_clients(
    small_org: Org, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Clients that connect to the HTTPS server and never send their ClientHello hold a
    connection thread each, in the handshake: they are shed as idle connections are, and a
    normal HTTPS client is answered within seconds (before, after the whole request timeout)."""
    from crmtui.rest.tls import make_tls

    tls = make_tls(tmp_path / "ca.pem")
    server = RestServer(
        RestApi(small_org, SESSION_ID), tls=tls.context, request_timeout_s=REQUEST_TIMEOUT_S,
        max_connections=SLOTS,
    ).start()  # fmt: skip
    client_tls = ssl.create_default_context(cafile=str(tls.ca_path))
    stalled: list[socket.socket] = []
    try:
        stalled = [socket.create_connection((server.host, server.port), timeout=PATIENCE_S)
                   for _ in range(6 * SLOTS)]  # fmt: skip
        took = []
        for _ in range(4):
            began = time.monotonic()
            conn = http.client.HTTPSConnection(
                server.host, server.port, timeout=PATIENCE_S, context=client_tls
            )
            try:
                conn.request("GET", QUERY, headers={"Authorization": f"Bearer {SESSION_ID}"})
                response = conn.getresponse()
                response.read()
                assert response.status == 200
            finally:
                conn.close()
            took.append(time.monotonic() - began)
        assert max(took) < promptly(8.0, instead=REQUEST_TIMEOUT_S), took
    finally:
        for sock in stalled:
            sock.close()
        server.stop()
    assert "Traceback" not in capfd.readouterr().err
