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

A client's mistakes and departures never reach stderr as tracebacks. Each request must arrive
whole (request line, headers and body) within the request timeout (20 s by default) of the
previous answer or of connecting: an idle keep-alive connection, a slow-header or slow-body
client, or a TLS handshake that stalls is closed then. A body's framing is checked first
(:mod:`crmtui.rest.framing`: a ``Content-Length`` of ``abc``, ``1, 1``, 20 digits or a
negative number is a 400 and the connection closes). A process serves at most
:data:`~crmtui.rest.framing.MAX_CONNECTIONS` connections at once (one thread each); further
clients wait in the listen queue until one ends, and while they wait every connection that
has been waiting :data:`~crmtui.rest.framing.SHED_AFTER_S` or more for (the rest of) its
request, or for the end of its TLS handshake, is closed (:meth:`_Server.shed`), so slow
and idle clients cannot starve the rest.
A client that hangs up before its answer is dropped silently; any other exception is an
internal error: one line on stderr, the traceback in a crash log.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
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
from crmtui.rest.framing import (
    MAX_CONNECTIONS,
    REQUEST_TIMEOUT_S,
    SHED_AFTER_S,
    DeadlineReader,
    FramingError,
    body_length,
)
from crmtui.rest.gate import ComputeGate
from crmtui.rest.log import RequestLog, format_time


class _Handshake:
    """A TLS handshake in progress, tracked as a connection waiting for its request: one
    that stalls is shed like an idle or slow-header connection (it holds a thread too)."""

    def __init__(self, connection: socket.socket) -> None:
        # A duplicate of the socket: ``wrap_socket`` detaches the one it is given, and a
        # shutdown on the duplicate ends the handshake's read all the same.
        self.connection = connection.dup()
        self.waiting_since: float | None = time.monotonic()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Without it every small response waits for the peer's delayed ACK (~40 ms on Linux).
    disable_nagle_algorithm = True
    server: _Server
    deadline = 0.0
    #: When this connection began waiting for its current request (None: serving one).
    waiting_since: float | None = None

    def setup(self) -> None:
        super().setup()
        self.rfile.close()  # the plain socket file, replaced by one that keeps the deadline
        self.rfile = io.BufferedReader(DeadlineReader(self.connection, lambda: self.deadline))
        self.server.track(self, True)

    def finish(self) -> None:
        self.server.track(self, False)
        super().finish()

    def handle_one_request(self) -> None:
        # The clock for the next request starts now: an idle keep-alive connection waiting
        # for its next request line is closed after the same timeout as a slow one.
        now = time.monotonic()
        self.deadline = now + self.server.request_timeout_s
        self.waiting_since = now
        super().handle_one_request()

    def _refuse(self, error: FramingError) -> None:
        """Answer a request whose framing cannot be trusted, then close the connection."""
        status = error.status
        payload = json.dumps(error.body()).encode("utf-8")
        self.close_connection = True
        self._answer_timeout()
        self.send_response(status)
        self.send_header("Content-Type", "application/json;charset=UTF-8")
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    def _answer_timeout(self) -> None:
        # Reads shortened the socket's timeout towards the deadline; an answer gets it whole.
        self.connection.settimeout(self.server.request_timeout_s)

    def _serve(self) -> None:
        arrived = dt.datetime.now(dt.UTC)
        start = time.perf_counter()
        try:
            length = body_length(self.headers)
        except FramingError as error:
            self._refuse(error)
            return
        if length:
            self.rfile.read(length)  # a write's body: read so the connection stays usable
        self.waiting_since = None  # the whole request is here: it is served, never shed
        split = urlsplit(self.path)
        params = dict(parse_qsl(split.query, keep_blank_values=True))
        with self.server.gate:  # the CPU-bound part: one connection thread at a time
            reply = self.server.api.handle(self.command, split.path, params, dict(self.headers))
            data = json.dumps(reply.body, ensure_ascii=False, separators=(",", ":"), default=str)
            payload = data.encode("utf-8")
        # Logged before the answer goes out: a client holding a response may stop the server
        # at once (a worker dies on SIGTERM), and its request must already be in the log.
        self._log(arrived, start, split.path, reply)
        self._answer_timeout()
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
        *,
        request_timeout_s: float = REQUEST_TIMEOUT_S,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        self.api = api
        self.tls = tls
        self.request_log = request_log
        self.request_timeout_s = request_timeout_s
        self.balance: ConnectionBalance | None = None
        self.gate = ComputeGate()
        # One slot per connection thread: taken when a connection is accepted, given back
        # when its thread ends. With none free, connections wait in the kernel's queue.
        self.slots = threading.BoundedSemaphore(max_connections)
        self._connections: set[_Handler | _Handshake] = set()
        self._connections_lock = threading.Lock()
        family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.address_family = family
        super().__init__(address, _Handler)

    request_queue_size = 1024  # where connections wait while every slot is taken

    def track(self, handler: _Handler | _Handshake, alive: bool) -> None:
        """Note a connection's thread starting (``alive``) or ending."""
        with self._connections_lock:
            if alive:
                self._connections.add(handler)
            else:
                self._connections.discard(handler)

    def shed(self) -> int:
        """Every slot is taken and clients wait: close the connections that have been waiting
        for (the rest of) a request for :data:`SHED_AFTER_S` or more (idle keep-alive, slow
        headers or body). A client that sends its request at once is never one of them, so
        hundreds of slow or idle connections cannot keep normal ones waiting in the queue for
        the whole request timeout. Returns how many were closed."""
        cutoff = time.monotonic() - min(SHED_AFTER_S, self.request_timeout_s)
        with self._connections_lock:
            stale = [h for h in self._connections
                     if h.waiting_since is not None and h.waiting_since <= cutoff]  # fmt: skip
        for handler in stale:
            with contextlib.suppress(OSError):  # its thread's read returns and it ends
                handler.connection.shutdown(socket.SHUT_RDWR)
        return len(stale)

    def _clients_waiting(self) -> bool:
        import select

        with contextlib.suppress(OSError, ValueError):
            return bool(select.select([self.socket], [], [], 0)[0])
        return False

    def get_request(self) -> tuple[Any, Any]:
        if not self.slots.acquire(timeout=0.05):
            if self._clients_waiting():
                self.shed()
            raise BlockingIOError  # every connection thread is busy: leave it queued
        try:
            if self.balance is not None and not self.balance.should_accept():
                time.sleep(0.001)  # the socket stays readable: do not spin while another takes it
                raise BlockingIOError  # socketserver's "nothing accepted this time"
            return super().get_request()
        except BaseException:
            self.slots.release()
            raise

    def process_request(self, request: Any, client_address: Any) -> None:
        try:
            if self.balance is None:
                super().process_request(request, client_address)
                return
            self.balance.opened()
            try:
                super().process_request(request, client_address)
            except BaseException:
                self.balance.closed()  # the connection's thread never started
                raise
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()
            if self.balance is not None:
                self.balance.closed()

    def finish_request(self, request: Any, client_address: Any) -> None:
        # Runs on the connection's thread: the TLS handshake happens here, not in accept(),
        # and a client that stalls in it is dropped after the request timeout.
        if self.tls is not None:
            pending = _Handshake(request)
            self.track(pending, True)  # a stalled handshake is shed with the idle connections
            try:
                request.settimeout(self.request_timeout_s)
                request = self.tls.wrap_socket(request, server_side=True)
            except (ssl.SSLError, OSError):
                return  # a client that does not trust the CA, hung up or stalled mid-handshake
            finally:
                self.track(pending, False)
                pending.connection.close()
        super().finish_request(request, client_address)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that left (or stalled) is no error; anything else is one line, logged.

        socketserver printed a traceback to stderr for each: a bad request or a client that
        hung up before its answer (BrokenPipeError) wrote a block per connection.
        """
        exc = sys.exc_info()[1]
        if exc is None or isinstance(exc, ConnectionError | TimeoutError | ssl.SSLError):
            return
        from crmtui.crash import internal_error

        print(f"serve-rest: {internal_error(exc).user_message()}", file=sys.stderr, flush=True)


class RestServer:
    """A running local Salesforce REST API. Use as a context manager or start/stop it.

    Attributes:
        api: The request handler.
        host: Address bound.
        port: Port bound (the real one when 0 was asked for).
        scheme: ``https`` or ``http``.
        request_timeout_s: Seconds a connection has to send a whole request.
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
        request_timeout_s: float = REQUEST_TIMEOUT_S,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        self.api = api
        self.request_log = request_log
        self.request_timeout_s = request_timeout_s
        self.workers = max(1, workers) if hasattr(os, "fork") else 1
        self._children: list[int] = []
        try:
            self._httpd = _Server(
                (host, port),
                api,
                tls,
                request_log,
                request_timeout_s=request_timeout_s,
                max_connections=max_connections,
            )
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
