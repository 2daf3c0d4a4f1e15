"""``crmtui serve``: the play app in annotators' browsers, through textual-serve, signed in.

The options and their checks are :mod:`crmtui.serve`; this module is the server itself and
:func:`serve_study`, which runs it.

:class:`StudyServer` subclasses textual-serve's :class:`~textual_serve.server.Server` and
replaces its routes with guarded ones:

* ``/`` with ``?token=`` (the link a researcher hands out) or ``POST /signin`` checks the
  token against the study's hashes and sets an HMAC-signed, HttpOnly, SameSite=Lax cookie
  (Secure under TLS), then redirects to ``/``, which serves the terminal page;
* every other route (the page, ``/ws``, ``/static``, ``/download``) needs a valid cookie:
  401 without one, 403 for a websocket from another origin, 503 when full;
* each websocket gets one app process, bound to the annotator taken from the cookie:
  nothing inside the app can change it. With ``standby`` (the default) it is a pre-started
  copy of the study's standby process (:mod:`crmtui.serve.pool`), told the annotator and
  the terminal size when it is handed over; else a fresh ``crmtui play --study S
  --annotator A``. The app writes its recordings into the study folder, on this machine;
* a second tab of the same annotator replaces the first (its session is closed and saved);
  at ``max_sessions`` live sessions, newcomers get the "server full" page;
* ``POST /signout`` ends the session, records the cookie's nonce as signed out (so no copy
  of the cookie works again, on any server sharing the study folder) and forgets the
  cookie; ``GET /signout`` only shows the button (a link or a prefetch must not sign out);
* every :data:`WATCH_S` seconds each live session's cookie is checked again: a rotated or
  revoked token, a sign-out elsewhere or an annotator gone from the study ends the session
  (its app saves the attempt, unfinished and resumable, as after a dropped connection).

Nothing here serves files from the study folder: the tokens, the gold answers (which live
in the task source, not the study) and other annotators' recordings have no route.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shlex
import signal
import socket
import sys
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

# textual-serve runs the app in a child process and does not import textual itself, so the
# server process never loads it (tests/unit/test_boundaries.py checks sys.modules); it lives
# under ui/ because it is the browser's way into the Textual app.
from textual_serve.app_service import AppService
from textual_serve.server import Server

from crmtui.serve import pages, wire
from crmtui.serve.assets import SCRIPT, Assets, accepts_gzip
from crmtui.serve.pool import DEFAULT_STANDBY, StandbyChild, StandbyPool
from crmtui.serve.run import ServeOptions, check_options, listen_error, ssl_context
from crmtui.study.definition import Study, StudyError, load_study
from crmtui.study.signouts import SignOuts
from crmtui.study.tokens import (
    COOKIE_MAX_AGE_S,
    CookieClaims,
    TokenStore,
    load_secret,
    read_cookie,
    sign_cookie,
)

log = logging.getLogger("crmtui.serve")

COOKIE_NAME = "crmtui_study"
#: Seconds a session's app gets to exit (and close its recording) once asked to quit.
CHILD_EXIT_S = 10
DEFAULT_MAX_SESSIONS = 20
#: Seconds between checks that each live session's sign-in is still valid.
WATCH_S = 1.0
#: Websocket close code telling the page its sign-in ended (a private-use code).
SIGNED_OUT_CLOSE = pages.SIGNED_OUT_CLOSE
#: Failed sign-ins allowed per client address per minute before 429.
SIGN_IN_FAILURES_PER_MINUTE = 10
_PUBLIC = ("/signin", "/signout")
_HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self' 'unsafe-inline'; "
        "style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
        "frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
    ),
}


class _AppProcess(AppService):
    """textual-serve's app process, which also ends the browser's session when it exits
    (the annotator quit, or the app could not start), instead of leaving a dead terminal.

    Given a pre-started process (``standby``) it hands that one over to ``annotator``
    instead of starting ``command``.
    """

    def __init__(
        self,
        command: str,
        *,
        standby: StandbyChild | None = None,
        annotator: str = "",
        **kwargs: Any,
    ) -> None:
        super().__init__(command, **kwargs)
        self.standby = standby
        self.annotator = annotator

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
        if self.standby is None:
            return await super()._open_app_process(width, height)
        child = self.standby
        self._process = child  # type: ignore[assignment]  # a Process as far as run() cares
        self._stdin = child.stdin
        await child.hand_over(self.annotator, width, height)
        return child

    async def run(self) -> None:
        await super().run()
        process = self._process
        if process is not None:  # reap it (textual-serve does not), after it saved its work
            try:
                await asyncio.wait_for(process.wait(), timeout=CHILD_EXIT_S)
            except TimeoutError:
                log.warning("a session's app did not exit in %d s; killing it", CHILD_EXIT_S)
                process.kill()
                await process.wait()
        if self.standby is not None:
            self.standby.close()
        with contextlib.suppress(Exception):  # the websocket may be gone already
            await self.remote_close()


def app_environment(debug: bool = False) -> dict[str, str]:
    """The environment textual-serve gives an app process, but its terminal size (a
    pre-started process learns that at hand-over)."""

    async def nothing(*_: Any) -> None:
        return None

    service = AppService(
        "",
        write_bytes=nothing,
        write_str=nothing,
        close=nothing,
        download_manager=None,  # type: ignore[arg-type]
        debug=debug,
    )
    environment = service._build_environment()
    for key in ("COLUMNS", "ROWS"):
        environment.pop(key, None)
    return environment


@dataclass
class LiveSession:
    """One annotator's open browser session."""

    annotator: str
    websocket: web.WebSocketResponse | None = None
    service: AppService | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)
    started: float = field(default_factory=time.monotonic)
    #: The sign-in the session was opened with (re-checked every WATCH_S seconds).
    claims: CookieClaims | None = None
    #: Why the server is ending it (None: it is not).
    ending: str | None = None


def child_command(study_folder: Path, annotator: str) -> str:
    """The shell command textual-serve runs for one annotator's session."""
    return " ".join(
        shlex.quote(part)
        for part in (
            sys.executable,
            "-m",
            "crmtui.cli",
            "play",
            "--study",
            str(study_folder.resolve()),
            "--annotator",
            annotator,
        )
    )


class StudyServer(Server):
    """Serves one study to its annotators (see the module docs).

    Args:
        study: The study to serve.
        host: Address to bind.
        port: Port to bind (0: any free port).
        max_sessions: Live sessions allowed at once.
        secure: Whether the server runs under TLS (sets the cookie's Secure flag).
        standby: App processes kept started and waiting for sessions (0: each session
            starts its own).
    """

    def __init__(
        self,
        study: Study,
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        secure: bool = False,
        standby: int = DEFAULT_STANDBY,
    ) -> None:
        super().__init__(
            command=f"crmtui play --study {study.name}",
            host=host,
            port=port,
            title=f"crmtui study {study.name}",
        )
        self.study = study
        self.tokens = TokenStore(study.tokens_path)
        self.signouts = SignOuts(study.signouts_path)
        self.secret = load_secret(study.secret_path)
        self.max_sessions = max_sessions
        self.secure = secure
        self.sessions: dict[str, LiveSession] = {}
        self._failures: dict[str, deque[float]] = defaultdict(deque)
        self._ending: set[asyncio.Task[None]] = set()
        self._study_stamp = self._stamp()
        self.pool = StandbyPool(study.folder, standby, app_environment(self.debug))
        self.assets = Assets(Path(self.statics_path))

    # -- identity --------------------------------------------------------------------------

    def _stamp(self) -> int:
        try:
            return self.study.definition_path.stat().st_mtime_ns
        except OSError:
            return 0

    def current_study(self) -> Study:
        """The study, re-read when ``study.toml`` changed (``add-annotator`` while serving)."""
        stamp = self._stamp()
        if stamp != self._study_stamp:
            with contextlib.suppress(StudyError):
                self.study = load_study(self.study.folder)
            self._study_stamp = stamp
        return self.study

    def revoked(self, claims: CookieClaims) -> str | None:
        """Why a sign-in no longer counts (None: it still does); the cookie's signature and
        age were checked when it was read."""
        if claims.annotator not in self.current_study().assignments:
            return pages.REMOVED
        generation = self.tokens.generation(claims.annotator)
        if generation is None:
            return pages.TOKEN_REVOKED
        if generation != claims.generation:
            return pages.TOKEN_ROTATED  # since this cookie was issued
        if self.signouts.signed_out(claims):
            return pages.SIGNED_OUT
        return None

    def claims_of(self, request: web.Request) -> CookieClaims | None:
        """The sign-in a request's cookie proves (authentic, unexpired, still valid), or None."""
        claims = read_cookie(self.secret, request.cookies.get(COOKIE_NAME))
        if claims is None or self.revoked(claims) is not None:
            return None
        return claims

    def annotator_of(self, request: web.Request) -> str | None:
        """The annotator a request's cookie proves, or None."""
        claims = self.claims_of(request)
        return None if claims is None else claims.annotator

    def _full_for(self, annotator: str) -> bool:
        # A second tab of the same annotator takes over their slot.
        return annotator not in self.sessions and len(self.sessions) >= self.max_sessions

    # -- the aiohttp app -------------------------------------------------------------------

    async def _make_app(self) -> web.Application:
        wire.quiet_refusals()  # an unparsable request: one log line, not a traceback
        app = web.Application(middlewares=[self._guard])
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/signin", self.handle_sign_in_form),
                web.post("/signin", self.handle_sign_in),
                web.get("/signout", self.handle_sign_out_form),
                web.post("/signout", self.handle_sign_out),
                web.get("/favicon.ico", self.handle_favicon),
                web.get("/ws", self.handle_websocket, name="websocket"),
                web.get("/download/{key}", self.handle_download, name="download"),
                web.get("/static/{name:.+}", self.handle_static, name="static"),
            ]
        )
        app.on_startup.append(self._start_watch)
        app.on_startup.append(self._start_pool)
        app.on_shutdown.append(self.on_shutdown)
        app.on_cleanup.append(self._close_pool)
        return app

    async def _start_pool(self, app: web.Application) -> None:
        await self.pool.start()

    async def _close_pool(self, app: web.Application) -> None:
        await self.pool.close()

    @web.middleware
    async def _guard(self, request: web.Request, handler: Any) -> web.StreamResponse:
        """Security headers everywhere; a cookie for static files."""
        if request.path.startswith("/static/") and self.annotator_of(request) is None:
            response: web.StreamResponse = web.Response(status=401, text="sign in first")
        else:
            response = await handler(request)
        if not response.prepared:
            for key, value in _HEADERS.items():
                response.headers.setdefault(key, value)
        return response

    def _page(self, text: str, status: int = 200) -> web.Response:
        return web.Response(text=text, status=status, content_type="text/html")

    def _too_many_failures(self, request: web.Request) -> bool:
        now = time.monotonic()
        recent = self._failures[request.remote or "?"]
        while recent and now - recent[0] > 60:
            recent.popleft()
        return len(recent) >= SIGN_IN_FAILURES_PER_MINUTE

    def _sign_in(self, request: web.Request, token: str) -> web.Response:
        annotator = self.tokens.who(token.strip()) if token.strip() else None
        if annotator is None or annotator not in self.current_study().assignments:
            # Slow down guessing (and log noise) per address. A valid token is never
            # refused: behind a load balancer every annotator shares one address.
            if self._too_many_failures(request):
                return self._page(
                    pages.sign_in_page(self.study.name, "Too many attempts; wait a minute."),
                    429,
                )
            self._failures[request.remote or "?"].append(time.monotonic())
            log.warning("failed sign-in from %s", request.remote)
            return self._page(
                pages.sign_in_page(self.study.name, "That token is not valid for this study."),
                401,
            )
        generation = self.tokens.generation(annotator) or 0
        response = web.Response(status=303, headers={"Location": "/"})
        response.set_cookie(
            COOKIE_NAME,
            sign_cookie(self.secret, annotator, generation),
            max_age=COOKIE_MAX_AGE_S,
            path="/",
            httponly=True,
            samesite="Lax",  # Strict would drop it on the redirect after an emailed link
            secure=self.secure,
        )
        log.info("%s signed in from %s", annotator, request.remote)
        return response

    async def handle_index(self, request: web.Request) -> web.Response:
        """``/``: sign in with ``?token=``, else the terminal page for a signed-in annotator."""
        token = request.query.get("token")
        if token is not None:
            return self._sign_in(request, token)
        annotator = self.annotator_of(request)
        if annotator is None:
            return self._page(pages.sign_in_page(self.study.name), 401)
        if self._full_for(annotator):
            return self._page(pages.full_page(self.study.name, self.max_sessions), 503)
        scheme = "wss" if self.secure else "ws"
        page = self._page(
            pages.app_page(
                title=f"crmtui study {self.study.name} · {annotator}",
                static_url="/static/",
                websocket_url=f"{scheme}://{request.host}/ws",
                font_size=wire.font_size(request.query.get("fontsize")),
                script_url=self.assets.url(SCRIPT),
                stylesheet=self.assets.stylesheet,
            )
        )
        page.enable_compression()  # gzip when the browser accepts it
        return page

    async def handle_static(self, request: web.Request) -> web.Response:
        """``/static/NAME``: the page's script, gzip-compressed and cached by the browser
        (a year at its versioned URL; else revalidated by ETag). Only the files the page
        loads are served (:mod:`crmtui.serve.assets`); the cookie is checked by the guard."""
        asset = self.assets.get(request.match_info["name"])
        if asset is None:
            raise web.HTTPNotFound(text="no such file")
        versioned = request.query.get("v") == asset.digest
        body, headers = asset.headers(
            gzip_ok=accepts_gzip(request.headers.get("Accept-Encoding")), versioned=versioned
        )
        if request.headers.get("If-None-Match") == asset.etag:
            return web.Response(
                status=304, headers={k: headers[k] for k in ("ETag", "Cache-Control", "Vary")}
            )
        return web.Response(body=body, headers=headers)

    async def handle_favicon(self, request: web.Request) -> web.Response:
        """No icon (and no 404 in the browser's console)."""
        return web.Response(status=204)

    async def handle_sign_in_form(self, request: web.Request) -> web.Response:
        """``GET /signin``: the form."""
        return self._page(pages.sign_in_page(self.study.name))

    async def handle_sign_in(self, request: web.Request) -> web.Response:
        """``POST /signin``: the form's token."""
        form = await request.post()
        token = form.get("token")
        return self._sign_in(request, token if isinstance(token, str) else "")

    async def handle_sign_out_form(self, request: web.Request) -> web.Response:
        """``GET /signout``: the sign-out button, nothing more (a link or a browser's
        prefetch must not sign anybody out)."""
        return self._page(pages.sign_out_page(self.study.name))

    async def handle_sign_out(self, request: web.Request) -> web.Response:
        """``POST /signout``: end the session (saved, resumable), refuse this cookie from now
        on, on every server sharing the study folder, and forget it in the browser."""
        if not self._same_site_post(request):
            raise web.HTTPForbidden(text="cross-origin sign-out refused")
        claims = self.claims_of(request)
        if claims is not None:
            try:
                self.signouts.add(claims)
            except StudyError as exc:
                log.error("%s", exc)
                return self._page(pages.signed_out_page(self.study.name, str(exc)), 500)
            log.info("%s signed out from %s", claims.annotator, request.remote)
            live = self.sessions.get(claims.annotator)
            if live is not None:
                await self._end(live, pages.SIGNED_OUT)
        response = self._page(pages.signed_out_page(self.study.name))
        response.del_cookie(COOKIE_NAME, path="/")
        return response

    async def handle_download(self, request: web.Request) -> web.StreamResponse:
        """Downloads the app offers (e.g. a screenshot), to the annotator whose app made it."""
        annotator = self.annotator_of(request)
        if annotator is None:
            raise web.HTTPUnauthorized(text="sign in first")
        try:
            download = await self.download_manager.get_download_metadata(request.match_info["key"])
        except KeyError:
            raise web.HTTPNotFound(text="no such download") from None
        live = self.sessions.get(annotator)
        if live is None or download.app_service is not live.service:
            raise web.HTTPNotFound(text="no such download")
        return await super().handle_download(request)

    # -- sessions --------------------------------------------------------------------------

    def _same_origin(self, request: web.Request) -> bool:
        origin = request.headers.get("Origin")
        if origin is None:  # not a browser: no cross-site request to defend against
            return True
        scheme = "https" if self.secure else "http"
        return origin == f"{scheme}://{request.host}"

    def _same_site_post(self, request: web.Request) -> bool:
        """Whether a form POST comes from this site's own pages.

        The page's ``Referrer-Policy: no-referrer`` makes Chromium send ``Origin: null`` on
        its own form posts, so the browser's ``Sec-Fetch-Site`` decides when present; else
        an ``Origin`` naming another site refuses. (The cookie is SameSite=Lax, so another
        site's POST would not carry it anyway.)
        """
        site = request.headers.get("Sec-Fetch-Site")
        if site is not None:
            return site in ("same-origin", "none")
        origin = request.headers.get("Origin")
        return origin in (None, "null") or self._same_origin(request)

    async def _end(self, live: LiveSession, reason: str | None = None) -> None:
        """Close a session's websocket and wait until its app has exited.

        With a ``reason`` (the sign-in ended) the page is told so with close code
        :data:`SIGNED_OUT_CLOSE`.
        """
        if live.websocket is not None:
            with contextlib.suppress(Exception):
                if reason is None:
                    await live.websocket.close()
                else:
                    await live.websocket.close(
                        code=SIGNED_OUT_CLOSE, message=reason.encode("utf-8")
                    )
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(live.done.wait(), timeout=15)

    async def _start_watch(self, app: web.Application) -> None:
        task = asyncio.create_task(self._watch())
        app.on_cleanup.append(lambda _: _cancel(task))

    async def _watch(self) -> None:
        """End, within :data:`WATCH_S` seconds, every live session whose sign-in stopped
        counting: a token rotated or revoked (here or by another server), a sign-out, an
        annotator removed from the study."""
        troubled = False
        while True:
            await asyncio.sleep(WATCH_S)
            try:
                self.check_sessions()
                troubled = False
            except StudyError as exc:  # e.g. tokens.json unreadable: say so once, keep going
                if not troubled:
                    log.error("cannot check the live sessions' sign-ins: %s", exc)
                troubled = True

    def check_sessions(self) -> list[LiveSession]:
        """Start ending the live sessions whose sign-in no longer counts; returns them."""
        ended = []
        for live in list(self.sessions.values()):
            if live.claims is None or live.ending is not None:
                continue
            reason = self.revoked(live.claims)
            if reason is not None:
                live.ending = reason
                log.info("%s: %s; ending the session", live.annotator, reason)
                task = asyncio.get_running_loop().create_task(self._end(live, reason))
                self._ending.add(task)  # held until done: the loop keeps weak references
                task.add_done_callback(self._ending.discard)
                ended.append(live)
        return ended

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """``/ws``: one annotator's app, bound to the annotator named by their cookie."""
        claims = self.claims_of(request)
        if claims is None:
            raise web.HTTPUnauthorized(text="sign in first")
        annotator = claims.annotator
        if not self._same_origin(request):
            raise web.HTTPForbidden(text="cross-origin websocket refused")
        previous = self.sessions.get(annotator)
        if previous is None and len(self.sessions) >= self.max_sessions:
            raise web.HTTPServiceUnavailable(text="server full")
        live = LiveSession(annotator, claims=claims)
        self.sessions[annotator] = live  # take the slot before any await
        try:
            if previous is not None:
                log.info("%s opened a new tab; closing the old session", annotator)
                await self._end(previous)
            websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=wire.MAX_MESSAGE_BYTES)
            live.websocket = websocket
            await websocket.prepare(request)
            # Held to the same caps as a resize: the first frame of a 10,000 x 4,000
            # terminal was 160 MB.
            width, height = wire.first_size(request.query.get("width"), request.query.get("height"))
            service = _AppProcess(
                child_command(self.study.folder, annotator),
                standby=await self.pool.take(),
                annotator=annotator,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=websocket.close,
                download_manager=self.download_manager,
                debug=self.debug,
            )
            live.service = service
            log.info("%s: session started (%d live)", annotator, len(self.sessions))
            await service.start(width, height)
            try:
                await self._forward_messages(websocket, service, annotator)
            finally:
                await service.stop()
        except asyncio.CancelledError:
            raise
        finally:
            if self.sessions.get(annotator) is live:
                del self.sessions[annotator]
            live.done.set()
            log.info("%s: session ended (%d live)", annotator, len(self.sessions))
        return websocket

    async def _forward_messages(
        self, websocket: web.WebSocketResponse, app_service: AppService, annotator: str
    ) -> None:
        """Forward the browser's keys, resizes and focus changes; ignore anything else.

        A message over :data:`~crmtui.serve.wire.MAX_MESSAGE_BYTES` makes aiohttp close the
        websocket (code 1009, "message too big"); a malformed one is ignored, and said once
        per session in the log.
        """
        noted = False
        async for message in websocket:
            if message.type == WSMsgType.ERROR:
                log.warning("%s: websocket closed: %s", annotator, websocket.exception())
                break
            if message.type != WSMsgType.TEXT:
                continue
            parsed = wire.parse_envelope(message.data)
            if parsed is None:
                if not noted:
                    log.warning("%s: ignored a malformed websocket message", annotator)
                    noted = True
                continue
            kind, data = parsed
            if kind == "stdin" and isinstance(data, str):
                await app_service.send_bytes(data.encode("utf-8"))
            elif kind == "resize" and isinstance(data, dict):
                size = wire.terminal_size(data.get("width"), data.get("height"))
                if size is not None:
                    await app_service.set_terminal_size(*size)
            elif kind == "ping":
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await app_service.blur()
            elif kind == "focus":
                await app_service.focus()

    async def on_shutdown(self, app: web.Application) -> None:
        """End every session so each app closes its recording cleanly."""
        await asyncio.gather(*(self._end(live) for live in list(self.sessions.values())))


async def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


def serve_study(
    study: object,
    options: ServeOptions,
    on_ready: Callable[[str], None] = print,
) -> None:
    """Serve ``study`` until SIGINT/SIGTERM, then end every session cleanly.

    Args:
        study: A :class:`~crmtui.study.definition.Study`.
        options: Address, TLS and cap.
        on_ready: Called with the server's URL once it listens.
    """
    from aiohttp import web

    check_options(options)
    context = ssl_context(options)
    server = StudyServer(
        study,  # type: ignore[arg-type]
        host=options.host,
        port=options.port,
        max_sessions=options.max_sessions,
        secure=context is not None,
        standby=options.standby,
    )
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")

    # Listen before anything starts (the standby processes start with the app): a busy
    # port, no permission or no such address is one line, and nothing to clean up.
    try:
        family = socket.AF_INET6 if ":" in options.host else socket.AF_INET
        listening = socket.create_server((options.host, options.port), family=family, backlog=128)
    except OSError as exc:
        raise listen_error(exc, options.host, options.port) from exc

    async def main() -> None:
        runner = web.AppRunner(await server._make_app(), handle_signals=False, access_log=None)
        await runner.setup()
        site = web.SockSite(runner, listening, ssl_context=context)
        await site.start()
        port = runner.addresses[0][1]
        scheme = "https" if context else "http"
        host = f"[{options.host}]" if ":" in options.host else options.host
        on_ready(f"{scheme}://{host}:{port}")
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await runner.cleanup()

    asyncio.run(main())
