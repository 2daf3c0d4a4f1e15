"""A local, read-only Salesforce REST API over any org (``crmtui serve-rest``).

Clients written for Salesforce, simple-salesforce above all and through it upstream's own
harness, query a crmtui org as if it were a live org: same URLs, same JSON, same error list
and statuses, so they raise the same exceptions with the same text.

Public API::

    RestApi(org, session_id, today=None)         # request -> Reply, no sockets
    RestServer(api, host=, port=, tls=, request_log=)   # threads, TLS, keep-alive
    make_tls(ca_path, host=None) -> TlsSetup     # local CA + server certificate
    RequestLog(path) / read_log(path)            # one JSON line per request
    serve(org, ...) -> RestServer                # all of it, started
    PAGE_SIZE                                    # records per batch (2,000 as Salesforce)
    REQUEST_TIMEOUT_S                            # seconds to send a whole request (20)
"""

from __future__ import annotations

import datetime as dt
import os
import secrets
from pathlib import Path
from typing import Any

from crmtui.rest.api import VERSIONS, Reply, RestApi
from crmtui.rest.cursors import PAGE_SIZE, CursorStore, SharedCursorStore
from crmtui.rest.errors import ApiError
from crmtui.rest.log import RequestLog, read_log
from crmtui.rest.server import REQUEST_TIMEOUT_S, RestServer
from crmtui.rest.tls import TlsSetup, make_tls

__all__ = [
    "PAGE_SIZE",
    "REQUEST_TIMEOUT_S",
    "VERSIONS",
    "ApiError",
    "CursorStore",
    "Reply",
    "RequestLog",
    "RestApi",
    "RestServer",
    "SharedCursorStore",
    "TlsSetup",
    "make_tls",
    "new_session_id",
    "read_log",
    "serve",
]


def new_session_id() -> str:
    """A session id in Salesforce's shape (``00D...!...``), random."""
    return "00D" + secrets.token_hex(6)[:12].upper() + "!" + secrets.token_urlsafe(48)


def serve(
    org: Any,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    session_id: str | None = None,
    https: bool = True,
    ca_path: str | os.PathLike[str] | None = None,
    log_path: str | os.PathLike[str] | None = None,
    today: dt.date | None = None,
    workers: int = 1,
    request_timeout_s: float = REQUEST_TIMEOUT_S,
) -> tuple[RestServer, TlsSetup | None]:
    """Start a local REST API over ``org`` in a background thread.

    Args:
        org: An opened org.
        host: Address to bind (loopback by default).
        port: Port (0: any free one).
        session_id: The session id clients must present (random by default).
        https: Serve TLS with a fresh local CA (needed by simple-salesforce).
        ca_path: Where to write the CA certificate (required with ``https``).
        log_path: JSONL request log, if any.
        today: Reference date for relative date literals (default: the real date).
        workers: Processes serving (POSIX; more than one uses a second core, see
            :mod:`crmtui.rest.server`); paging cursors then live in a temporary folder.
        request_timeout_s: Seconds a connection has to send a whole request after the
            previous answer (or after connecting) before it is closed.

    Returns:
        The running server and its TLS setup (None over plain HTTP).
    """
    cursors = None
    if workers > 1:
        import tempfile

        cursors = SharedCursorStore(Path(tempfile.mkdtemp(prefix="crmtui-rest-cursors-")))
    api = RestApi(org, session_id or new_session_id(), today=today, cursors=cursors)
    tls = None
    if https:
        if ca_path is None:
            raise ValueError("ca_path is required to serve HTTPS")
        tls = make_tls(Path(ca_path), host)
    log = RequestLog(log_path) if log_path is not None else None
    server = RestServer(
        api,
        host=host,
        port=port,
        tls=tls.context if tls else None,
        request_log=log,
        workers=workers,
        request_timeout_s=request_timeout_s,
    )
    return server.start(), tls
