"""The HTTP(S) server around :class:`~crmtui.rest.api.RestApi`: threads, TLS, request log.

One thread per client connection (keep-alive connections stay on their thread), so several
agents are served in parallel; each thread queries the org through its own read-only SQLite
connection (the engine opens one per thread). The TLS handshake runs on the connection's own
thread, not on the accepting one, so a slow client cannot hold the others up.

Threads share one GIL, and the engine's Python work (parsing, shaping records) holds it, so on
their own they cannot use a second core; worse, ``sqlite3`` lets go of the GIL on every row,
so several busy connection threads hand it back and forth mid-query, at a cost in CPU. The
threads of a process therefore take turns for the CPU-bound part of a request (the engine and
the JSON encoding: :mod:`crmtui.rest.gate`); reading requests and writing answers overlap.

With ``workers=N`` (POSIX) the server forks N-1 more processes after binding; all of them
accept from the one listening socket (made non-blocking, so a process that loses the race for
a connection goes back to waiting), and a worker leaves a new connection to a less busy one
(:mod:`crmtui.rest.balance`): keep-alive connections stay where they land, so an uneven split
would leave a core idle. Workers share the request log (whole lines appended with
``O_APPEND``) and a folder of paging cursor notes
(:class:`~crmtui.rest.cursors.SharedCursorStore`); each dies with the parent
(``PR_SET_PDEATHSIG`` on Linux) and on :meth:`RestServer.stop`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import shutil
import signal
import socket
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from crmtui.errors import ConfigError
from crmtui.rest.api import Reply, RestApi
from crmtui.rest.balance import ConnectionBalance
from crmtui.rest.gate import ComputeGate
from crmtui.rest.log import RequestLog, format_time


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Without it every small response waits for the peer's delayed ACK (~40 ms on Linux).
    disable_nagle_algorithm = True
    server: _Server

    def _serve(self) -> None:
        arrived = dt.datetime.now(dt.UTC)
        start = time.perf_counter()
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)  # a write's body: read so the connection stays usable
        split = urlsplit(self.path)
        params = dict(parse_qsl(split.query, keep_blank_values=True))
        with self.server.gate:  # the CPU-bound part: one connection thread at a time
            reply = self.server.api.handle(self.command, split.path, params, dict(self.headers))
            data = json.dumps(reply.body, ensure_ascii=False, separators=(",", ":"), default=str)
            payload = data.encode("utf-8")
        # Logged before the answer goes out: a client holding a response may stop the server
        # at once (a worker dies on SIGTERM), and its request must already be in the log.
        self._log(arrived, start, split.path, reply)
        self.send_response(reply.status)
        self.send_header("Content-Type", "application/json;charset=UTF-8")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in reply.extra_headers.items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    def _log(self, arrived: dt.datetime, start: float, path: str, reply: Reply) -> None:
        log = self.server.request_log
        if log is None:
            return
        log.write(
            {
                "t": format_time(arrived),
                "method": self.command,
                "path": path,
                "endpoint": reply.endpoint,
                "query": reply.query,
                "status": reply.status,
                "rows": reply.rows,
                "total": reply.total,
                "error_code": reply.error_code,
                "ms": round((time.perf_counter() - start) * 1000, 3),
            }
        )

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = do_HEAD = _serve

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Silenced: requests go to the JSONL request log instead of stderr."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self,
        address: tuple[str, int],
        api: RestApi,
        tls: ssl.SSLContext | None,
        request_log: RequestLog | None,
    ) -> None:
        self.api = api
        self.tls = tls
        self.request_log = request_log
        self.balance: ConnectionBalance | None = None
        self.gate = ComputeGate()
        family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.address_family = family
        super().__init__(address, _Handler)

    def get_request(self) -> tuple[Any, Any]:
        if self.balance is not None and not self.balance.should_accept():
            time.sleep(0.001)  # the socket stays readable: do not spin while another takes it
            raise BlockingIOError  # socketserver's "nothing accepted this time"
        return super().get_request()

    def process_request(self, request: Any, client_address: Any) -> None:
        if self.balance is None:
            super().process_request(request, client_address)
            return
        self.balance.opened()
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.balance.closed()  # the connection's thread never started
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            if self.balance is not None:
                self.balance.closed()

    def finish_request(self, request: Any, client_address: Any) -> None:
        # Runs on the connection's thread: the TLS handshake happens here, not in accept().
        if self.tls is not None:
            try:
                request = self.tls.wrap_socket(request, server_side=True)
            except (ssl.SSLError, OSError):
                return  # a client that does not trust the CA, or hung up mid-handshake
        super().finish_request(request, client_address)


class RestServer:
    """A running local Salesforce REST API. Use as a context manager or start/stop it.

    Attributes:
        api: The request handler.
        host: Address bound.
        port: Port bound (the real one when 0 was asked for).
        scheme: ``https`` or ``http``.
    """

    def __init__(
        self,
        api: RestApi,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        tls: ssl.SSLContext | None = None,
        request_log: RequestLog | None = None,
        workers: int = 1,
    ) -> None:
        self.api = api
        self.request_log = request_log
        self.workers = max(1, workers) if hasattr(os, "fork") else 1
        self._children: list[int] = []
        try:
            self._httpd = _Server((host, port), api, tls, request_log)
        except OSError as exc:
            raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
        self.host = host
        self.port = int(self._httpd.server_address[1])
        self.scheme = "https" if tls is not None else "http"
        self._thread: threading.Thread | None = None

    @property
    def instance_url(self) -> str:
        """What to give a client as its instance URL (``https://127.0.0.1:PORT``)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        if host in ("0.0.0.0", "[::]"):
            host = "127.0.0.1"
        return f"{self.scheme}://{host}:{self.port}"

    def start(self) -> RestServer:
        """Serve in a background thread (and in the worker processes, when there are any)."""
        self._fork_workers()
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, name="crmtui-rest", daemon=True
        )
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve on the calling thread until :meth:`stop` (or Ctrl-C in the caller)."""
        self._fork_workers()
        self._httpd.serve_forever()

    def _fork_workers(self) -> None:
        if self.workers == 1 or self._children:
            return
        # Every process waits on the same socket; the losers of a race must not block in
        # accept() (socketserver treats the BlockingIOError as "nothing to do").
        self._httpd.socket.setblocking(False)
        balance = self._httpd.balance = ConnectionBalance(self.workers)
        for slot in range(1, self.workers):
            pid = os.fork()
            if pid == 0:  # pragma: no cover - runs in the child, measured by the benchmark
                balance.become(slot)
                self._httpd.gate.reset_after_fork()
                _serve_as_worker(self._httpd)
            self._children.append(pid)

    def stop(self) -> None:
        """Stop serving (workers included), close the socket and the request log."""
        for pid in self._children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        for pid in self._children:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        self._children = []
        folder = getattr(self.api.cursors, "folder", None)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        self._httpd.shutdown()
        self._httpd.server_close()
        # Not closed here: a connection thread may still be finishing and count itself out;
        # the shared table goes with the last reference to it.
        self._httpd.balance = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        if self.request_log is not None:
            self.request_log.close()

    def __enter__(self) -> RestServer:
        if self._thread is None:
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _serve_as_worker(httpd: _Server) -> None:  # pragma: no cover - forked child
    """A worker's whole life: serve until SIGTERM (or the parent's death), never return."""
    code = 0
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C goes to the parent, which stops us
        _die_with_parent()
        httpd.serve_forever()
    except BaseException:  # noqa: BLE001 - a child must never unwind into the parent's code
        code = 1
    finally:
        os._exit(code)


def _die_with_parent() -> None:  # pragma: no cover - forked child
    """Ask Linux to SIGTERM this worker when its parent dies (a killed serve-rest)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
