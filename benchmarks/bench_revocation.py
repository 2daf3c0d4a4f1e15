"""A study organizer's trial in real Chromium, timing how fast a rotated token ends a session.

Everything runs on loopback in a temporary ``CRMTUI_HOME`` and study folder:

1. The organizer creates a two-annotator study (``crmtui study create ... --practice 1
   --qualify 1 --instructions FILE``) and serves it (``crmtui serve``, a child process).
2. ann and ben sign in with their links in two headless Chromium contexts (Debian's
   chromium through Playwright), accept the instructions page, and see their lists.
3. ``--rounds`` times: ann opens her instance (resumed after the first round) and types a
   draft into the answer box; the organizer rotates her token (the library call
   ``crmtui study tokens --rotate`` makes). Measured from the moment the new
   ``tokens.json`` is in place: **close** = until ann's browser sees its websocket closed;
   **ended** = until the server logs that her session's app has exited (the attempt saved,
   unfinished). Target: the session ends within 5 s. ann then signs in with the new link
   and her draft is back.
4. ben's session, untouched all along, is still open; he signs out with the button (a
   POST) and a copy of his old cookie is refused afterwards.

The recordings are checked at the end: ann's attempt is unfinished (resumable, not
submitted), verified, and holds every round's draft. Prints the latencies (median and
max) with the load average; exits 1 if a session outlived 5 s.

Usage::

    .venv/bin/python benchmarks/bench_revocation.py [--rounds 5] [--shots DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.serve.browser import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_FLAGS,
    Screen,
    browser_missing,
    wait_until,
)

TARGET_S = 5.0
INSTRUCTIONS = """\
# Trial study: instructions and consent

Answer each question from the records. Your queries, answers and time are recorded.

Choose **I accept** to take part.
"""


class ServerLog:
    """The server's output, each line with the monotonic time it arrived."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.lines: list[tuple[float, str]] = []
        self._thread = threading.Thread(target=self._read, args=(process,), daemon=True)
        self._thread.start()

    def _read(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            self.lines.append((time.monotonic(), line.rstrip("\n")))

    def first_after(self, since: float, needle: str) -> float | None:
        """When a line holding ``needle`` arrived after ``since``."""
        return next((t for t, line in self.lines if t >= since and needle in line), None)

    def url(self) -> str | None:
        for _, line in self.lines:
            if " on http://" in line:
                return line.split(" on ", 1)[1].split("/ ", 1)[0]
        return None


def _crmtui(*args: str, env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "crmtui.cli", *args], env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"Error: crmtui {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def _accept_instructions(page: Any, screen: Screen) -> None:
    screen.wait_for("Trial study: instructions and consent", page=page)
    page.click("#terminal", position={"x": 8, "y": 8})  # keys go to a focused terminal
    page.keyboard.press("Tab")  # from the text to the "I accept" button
    page.keyboard.press("Enter")
    screen.wait_for("Annotator:", page=page)


def _status(url: str, cookie: str) -> int:
    request = urllib.request.Request(url + "/", headers={"Cookie": f"crmtui_study={cookie}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def _one_round(
    ann: Any, url: str, token: str, round_: int, study: Any, log: ServerLog, shots: Path | None
) -> tuple[float, float, str]:
    """ann signs in (with ``token``), types a draft, her token is rotated: returns the
    seconds until her websocket closed and until her app exited, and her new token."""
    from crmtui.study import rotate_tokens

    screen = Screen()
    screen.attach(ann)
    closed: list[float] = []
    ann.once("websocket", lambda ws: ws.on("close", lambda _: closed.append(time.monotonic())))
    ann.goto(f"{url}/?token={token}")
    if round_ == 0:
        if shots:
            screen.wait_for("Trial study", page=ann)
            shots.mkdir(parents=True, exist_ok=True)
            ann.screenshot(path=str(shots / "browser-instructions.png"))
        _accept_instructions(ann, screen)
        ann.keyboard.press("n")  # the practice instance
        screen.wait_for("practice 1 of 1", page=ann)
    else:
        screen.wait_for("(resumed)", page=ann)
        # Focus the terminal by clicking its status line (a click mid-screen would act).
        ann.click("#terminal", position={"x": 8, "y": 8})
        ann.wait_for_timeout(1000)  # let the resumed screen settle before keys
    ann.keyboard.press("F4")
    ann.wait_for_timeout(500)
    ann.keyboard.type(f" d{round_}")
    screen.wait_for(f"d{round_}", page=ann)
    _, fresh = rotate_tokens(str(study.folder), ["ann"])
    rotated = time.monotonic()
    wait_until(lambda: bool(closed), 15, "ann's websocket to close", ann)
    wait_until(
        lambda: log.first_after(rotated, "ann: session ended") is not None, 30, "ann's app to exit"
    )
    ended = float(log.first_after(rotated, "ann: session ended") or 0.0)
    ann.wait_for_selector("text=Your sign-in has ended (token rotated)", timeout=10_000)
    return closed[0] - rotated, ended - rotated, fresh["ann"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--shots", type=Path, default=None, help="save PNGs of the pages here")
    args = parser.parse_args()
    if problem := browser_missing():
        print(f"Error: {problem}")
        return 1
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="crmtui-bench-revocation-"))
    env = {**os.environ, "CRMTUI_HOME": str(tmp / "home"), "CRMTUI_STUDIES": str(tmp / "st")}
    os.environ.update(CRMTUI_HOME=env["CRMTUI_HOME"], CRMTUI_STUDIES=env["CRMTUI_STUDIES"])
    page_file = tmp / "instructions.md"
    page_file.write_text(INSTRUCTIONS, encoding="utf-8")
    made = json.loads(
        _crmtui(
            "study", "create", "trial", "--annotators", "ann,ben", "--per-type", "1",
            "--shared", "1", "--overlap", "2", "--practice", "1", "--qualify", "1",
            "--instructions", str(page_file), "--seed", "1", "--format", "json", env=env,
        )
    )  # fmt: skip
    tokens = {item["annotator"]: item["token"] for item in made["annotators"]}
    server = subprocess.Popen(
        [sys.executable, "-m", "crmtui.cli", "serve", "--study", "trial", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    log = ServerLog(server)
    closes: list[float] = []
    endings: list[float] = []
    try:
        wait_until(lambda: log.url() is not None, 60, "the server's URL")
        url = str(log.url())
        from crmtui.study import load_study

        study = load_study("trial")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            viewport = {"width": 1400, "height": 900}
            ann_context = browser.new_context(viewport=viewport)
            ben_context = browser.new_context(viewport=viewport)
            ben = ben_context.new_page()
            ben_screen = Screen()
            ben_screen.attach(ben)
            ben.goto(f"{url}/?token={tokens['ben']}")
            _accept_instructions(ben, ben_screen)
            ben_cookie = next(
                c["value"] for c in ben_context.cookies() if c["name"] == "crmtui_study"
            )

            ann = ann_context.new_page()
            token = tokens["ann"]
            for round_ in range(args.rounds):
                close, ended, token = _one_round(ann, url, token, round_, study, log, args.shots)
                closes.append(close)
                endings.append(ended)
                print(
                    f"round {round_ + 1}: websocket closed {close:.2f} s, "
                    f"app exited {ended:.2f} s after the rotation"
                )
            if args.shots:
                ann.screenshot(path=str(args.shots / "browser-ended.png"))
            # ben was never touched: still signed in, still live; then he signs out.
            assert ben_screen.text and _status(url, ben_cookie) == 200
            ben.click("#sign-out")
            ben.wait_for_selector("#signed-out", timeout=15_000)
            assert _status(url, ben_cookie) == 401, "a copy of ben's cookie still works"
            print("ben: untouched by ann's rotations; signed out by POST; old cookie refused")
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    from crmtui.record.sessions import find_unfinished
    from crmtui.record.verify import load, verify

    [path] = find_unfinished(study.recordings / "ann")
    events = load(path).events
    assert verify(path).ok and "submit" not in [e.type for e in events]
    drafts = [e.payload["text"] for e in events if e.type == "answer_edit"]
    assert all(any(f"d{k}" in text for text in drafts) for k in range(args.rounds)), drafts
    print(f"ann's attempt: unfinished, verified, {len(drafts)} draft edit(s) kept: {drafts[-1]!r}")
    load_avg = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"websocket closed after rotation: median {statistics.median(closes):.2f} s, "
        f"max {max(closes):.2f} s; app exited: median {statistics.median(endings):.2f} s, "
        f"max {max(endings):.2f} s ({args.rounds} rounds, load average {load_avg})"
    )
    return 0 if max(endings) < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
