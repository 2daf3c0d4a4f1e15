"""Real Chromium signing in: from opening the link to the picker, and what the page costs.

Starts ``crmtui serve`` (default ``--standby``) on a study of the sample org in a temporary
home, then opens annotators' links in headless Chromium (Debian's, through Playwright, as
``tests/serve/test_browser*.py`` do). For each sign-in it measures, from ``page.goto(link)``:

* *websocket*: when the page opened its websocket (everything before it is the page's
  own weight: requests, bytes, script);
* *picker*: when the picker was drawn whole (``Annotator: NAME`` and the table header in
  the frames the page received);
* *bytes* and *requests* of the page (response bodies as sent, so compressed; all of
  them come before the websocket opens: the page loads nothing later),
  and the page's script time then (CDP ``Performance.getMetrics`` ScriptDuration).

Runs: one browser alone (``--alone`` times, each a fresh context: a first visit, nothing
cached), the same annotator's repeat visit (the script from the browser's cache), and
optionally ``--sessions N`` contexts opening their links at the same instant. On a
2-core machine most of the N-at-once time is the browsers' own work (N pages parsing the
script and drawing), not the server's: the script prints the load average with it.

"before" bytes are computed, not measured: textual-serve's files as they were served
(uncompressed, ``no-store``), page + ``xterm.css`` + ``textual.js``.

Usage::

    .venv/bin/python benchmarks/bench_browser_signin.py [--alone 3] [--sessions 20]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_signin import picker, setup, start_server  # noqa: E402

from tests.serve.browser import CHROMIUM, CHROMIUM_FLAGS, browser_missing  # noqa: E402

_ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()=>78]")
TARGET_S = 1.0


class Visit:
    """One page's sign-in, watched from the browser's side."""

    def __init__(self, page: Any, name: str) -> None:
        self.page, self.name = page, name
        self.start = 0.0
        self.ws_at: float | None = None
        self.picker_at: float | None = None
        self.bytes = 0
        self.requests = 0
        self.raw = bytearray()
        page.on("websocket", self._socket)
        page.on("requestfinished", self._finished)

    def _socket(self, ws: Any) -> None:
        self.ws_at = self.ws_at or time.perf_counter()
        ws.on("framereceived", self._frame)

    def _finished(self, request: Any) -> None:
        # The page loads nothing after its websocket opens, so every request counts (an
        # event may arrive after the websocket's); a body from the cache counts 0.
        self.requests += 1
        self.bytes += max(0, request.sizes()["responseBodySize"])

    def _frame(self, payload: Any) -> None:
        if self.picker_at is not None or not isinstance(payload, bytes | bytearray):
            return
        self.raw += payload
        text = _ANSI.sub("", self.raw.decode("utf-8", "replace"))
        if all(needle in text for needle in picker(self.name)):
            self.picker_at = time.perf_counter()

    @property
    def websocket_s(self) -> float:
        return (self.ws_at or 0) - self.start

    @property
    def picker_s(self) -> float:
        return (self.picker_at or 0) - self.start


def open_link(page: Any, link: str, visit: Visit) -> None:
    visit.start = time.perf_counter()
    page.goto(link, wait_until="commit")


def wait_all(visits: list[Visit], timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while any(v.picker_at is None for v in visits):
        if time.monotonic() > deadline:
            raise SystemExit(f"pickers not drawn in {timeout:.0f} s")
        visits[0].page.wait_for_timeout(20)


def script_ms(cdp: Any) -> float:
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return 1000 * metrics.get("ScriptDuration", 0.0)


def before_bytes() -> int:
    """The page as it was (stylesheet linked, nothing compressed) and its two files."""
    from textual_serve.server import Server

    from crmtui.serve.pages import app_page

    static = Path(Server("x").statics_path)
    page = app_page(title="crmtui study class · ann00", static_url="/static/",
                    websocket_url="ws://127.0.0.1:8000/ws", font_size=16)  # fmt: skip
    return len(page.encode()) + sum(
        (static / name).stat().st_size for name in ("css/xterm.css", "js/textual.js")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--alone", type=int, default=3, help="single first visits")
    parser.add_argument("--sessions", type=int, default=0, help="then N at once (0: none)")
    args = parser.parse_args()
    if reason := browser_missing():
        raise SystemExit(reason)
    from playwright.sync_api import sync_playwright

    root = Path(tempfile.mkdtemp(prefix="bench-browser-"))
    env, tokens, folder = setup(root, max(args.alone + 1, args.sessions, 2))
    names = sorted(tokens)
    server, url = start_server(env, folder, standby=4)
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            rows = []
            for n in range(args.alone):
                context = browser.new_context(viewport={"width": 1280, "height": 800})
                page = context.new_page()
                cdp = context.new_cdp_session(page)
                cdp.send("Performance.enable")
                visit = Visit(page, names[n])
                open_link(page, f"{url}/?token={tokens[names[n]]}", visit)
                wait_all([visit])
                rows.append((visit, script_ms(cdp)))
                if n == 0:  # the same browser again: the script from its cache
                    page.close()
                    again = context.new_page()
                    repeat = Visit(again, names[n])
                    open_link(again, f"{url}/", repeat)
                    wait_all([repeat])
                    print(
                        f"repeat visit: websocket {repeat.websocket_s:.2f} s, picker "
                        f"{repeat.picker_s:.2f} s (the script from the browser's cache)"
                    )
                context.close()
            for visit, ms in rows:
                print(
                    f"first visit {visit.name}: websocket {visit.websocket_s:.2f} s, picker "
                    f"{visit.picker_s:.2f} s (target {TARGET_S:.0f} s), {visit.bytes:,} bytes "
                    f"in {visit.requests} request(s), script {ms:.0f} ms"
                )
            print(
                f"before (computed: the page and its files uncompressed, never cached): "
                f"{before_bytes():,} bytes in 3 requests, on every visit"
            )
            print(f"load average: {os.getloadavg()[0]:.1f}")
            if args.sessions:
                contexts = [browser.new_context() for _ in range(args.sessions)]
                pages = [c.new_page() for c in contexts]
                visits = [Visit(pg, names[k]) for k, pg in enumerate(pages)]
                # Start every goto at once: each in a thread would need its own loop, so
                # the links are opened by script (no waiting for each other's load).
                for pg, visit in zip(pages, visits, strict=True):
                    visit.start = time.perf_counter()
                    pg.evaluate(f"location.href = {f'{url}/?token={tokens[visit.name]}'!r}")
                wait_all(visits, timeout=300)
                ws = [v.websocket_s for v in visits]
                shown = [v.picker_s for v in visits]
                print(
                    f"{args.sessions} at once: websocket median {statistics.median(ws):.1f} s "
                    f"(max {max(ws):.1f}), picker median {statistics.median(shown):.1f} s "
                    f"(max {max(shown):.1f}); load average {os.getloadavg()[0]:.1f}"
                )
                for context in contexts:
                    context.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=60)
        threading.Event().wait(0.1)


if __name__ == "__main__":
    main()
