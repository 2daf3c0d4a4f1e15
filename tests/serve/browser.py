"""Driving Debian's Chromium with Playwright, and reading what the terminal drew.

Playwright's own browser download is not reachable here, so the system ``chromium`` is
used with the flags below. The terminal draws on a canvas, so tests read the screen from
the websocket frames the page receives (the app's output, escape codes stripped).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.waiting import PATIENCE_S

CHROMIUM = os.environ.get("CRMTUI_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
_ANSI = re.compile(
    r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()=>][0-9A-Za-z]?"
)


def browser_missing() -> str | None:
    """Why the browser test cannot run here (None: it can)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[test]')"
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"{CHROMIUM} not found (apt-get install chromium)"
    return None


class Screen:
    """Everything the app sent to one page, as text."""

    def __init__(self) -> None:
        self.raw = bytearray()

    def attach(self, page: Any) -> None:
        """Collect the binary frames of every websocket the page opens."""

        def on_socket(ws: Any) -> None:
            ws.on("framereceived", self._frame)

        page.on("websocket", on_socket)

    def _frame(self, payload: Any) -> None:
        if isinstance(payload, bytes | bytearray):
            self.raw += payload

    @property
    def text(self) -> str:
        """The output so far with escape sequences removed."""
        return _ANSI.sub("", self.raw.decode("utf-8", "replace"))

    def wait_for(self, needle: str, timeout: float = PATIENCE_S, page: Any = None) -> float:
        """Wait until ``needle`` was drawn; returns the seconds it took."""
        return wait_until(lambda: needle in self.text, timeout, f"{needle!r} on screen", page)


def patient(target: Any) -> Any:
    """A Playwright page or context whose waits (selectors, navigation, clicks) run to the
    suite's patience instead of Playwright's 30 s: they only guard a hang, and a loaded
    machine draws late but draws."""
    target.set_default_timeout(PATIENCE_S * 1000)
    target.set_default_navigation_timeout(PATIENCE_S * 1000)
    return target


def wait_until(condition: Callable[[], bool], timeout: float, what: str, page: Any = None) -> float:
    """Poll ``condition`` (letting Playwright process events) until true.

    ``timeout`` only guards a hang: it is never shorter than the suite's patience
    (tests/waiting.py), since a loaded machine draws late but draws.
    """
    timeout = max(timeout, PATIENCE_S)
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if condition():
            if os.environ.get("CRMTUI_TRACE_WAITS"):
                print(f"{what}: {time.monotonic() - start:.2f} s")
            return time.monotonic() - start
        if page is not None:
            page.wait_for_timeout(50)
        else:
            time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def start_server(study: str, env: dict[str, str], *extra: str) -> tuple[subprocess.Popen, str]:
    """``crmtui serve --study STUDY --port 0 ...`` in a child process; returns it and its URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "crmtui.cli", "serve", "--study", study, "--port", "0", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    deadline = time.monotonic() + PATIENCE_S  # a loaded machine starts it late
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        match = re.search(r"on (http://127\.0\.0\.1:\d+)/", line)
        if match:
            return process, match.group(1)
        if not line and process.poll() is not None:
            break
    process.kill()
    raise AssertionError("crmtui serve did not start")


def stop_server(process: subprocess.Popen) -> str:
    """SIGTERM (sessions end cleanly), then return what the server logged."""
    process.terminate()
    try:
        out, _ = process.communicate(timeout=PATIENCE_S)
    except subprocess.TimeoutExpired:
        process.kill()
        out, _ = process.communicate()
    return out or ""
