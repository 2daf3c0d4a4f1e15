"""``crmtui serve`` under load: first frame in a browser, 20 typing sessions, memory.

Everything runs on loopback against a real ``crmtui serve`` (a child process) serving a
study on the sample org, in a temporary ``CRMTUI_HOME`` and study folder.

1. **First frame in a browser** (needs Playwright and Debian's chromium): a fresh
   headless Chromium page opens the sign-in link; the time from the navigation to the
   terminal's first bytes (textual.js marks ``body.-first-byte``) and to the instance
   picker being drawn. Target: first frame < 3 s after sign-in.
2. **20 concurrent sessions**: 20 scripted websocket clients (aiohttp) sign in, start
   their app, open their first instance, focus the answer box and type letters at a
   steady rate. Keystroke-to-screen latency is the time from sending a key to receiving
   the frame that shows it. Target: p95 < 150 ms.
3. **Memory per session**: proportional set size (PSS, shared pages split fairly) and RSS
   of every session's app process while all 20 are open, and the server's own RSS.

Usage::

    .venv/bin/python benchmarks/bench_serve.py [--sessions 20] [--keys 40] [--rate 4]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

FIRST_FRAME_TARGET_S = 3.0
P95_TARGET_MS = 150.0
_ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()=>]")


def _text(raw: bytes) -> str:
    return _ANSI.sub(b"", raw).decode("utf-8", "replace")


def setup(root: Path, sessions: int) -> tuple[dict[str, str], dict[str, str], Path]:
    """A home with the sample org, and a study with one annotator per session (+3)."""
    env = dict(os.environ, CRMTUI_HOME=str(root / "home"), CRMTUI_STUDIES=str(root / "studies"))
    os.environ.update(env)
    from crmtui.org.sample import ensure_sample
    from crmtui.study import StudyRequest, create_study

    ensure_sample()
    names = [f"ann{i:02d}" for i in range(sessions + 3)]
    study, tokens = create_study(
        StudyRequest(name="load", annotators=names, per_type=10, shared=0.0, overlap=1)
    )
    return env, tokens, study.folder


def start_server(env: dict[str, str], folder: Path, cap: int) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "crmtui.cli", "serve", "--study", str(folder), "--port", "0"]
        + ["--max-sessions", str(cap)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    while True:
        line = process.stdout.readline()
        if match := re.search(r"on (http://127\.0\.0\.1:\d+)/", line):
            return process, match.group(1)
        if not line:
            raise SystemExit("crmtui serve did not start")


# -- 1. the browser ----------------------------------------------------------------------


def browser_first_frame(url: str, tokens: list[str]) -> list[tuple[float, float]] | None:
    """(first bytes, picker drawn) seconds after opening the sign-in link, per token."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("browser: skipped (playwright is not installed)")
        return None
    if not Path("/usr/bin/chromium").exists():
        print("browser: skipped (/usr/bin/chromium is not installed)")
        return None
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.serve.browser import CHROMIUM, CHROMIUM_FLAGS, Screen

    results = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        for token in tokens:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            screen = Screen()
            screen.attach(page)
            start = time.perf_counter()
            page.goto(f"{url}/?token={token}")
            page.wait_for_selector("body.-first-byte", timeout=60_000)
            first = time.perf_counter() - start
            screen.wait_for("Annotator:", timeout=60, page=page)
            results.append((first, time.perf_counter() - start))
            page.close()
        browser.close()
    return results


# -- 2. typing sessions ------------------------------------------------------------------


class Client:
    """One scripted annotator over a websocket."""

    def __init__(self, name: str, token: str, history_rows: int) -> None:
        self.history_rows = history_rows
        self.name = name
        self.token = token
        self.raw = bytearray()
        self.changed = asyncio.Event()
        self.latencies: list[float] = []
        self.started_s = 0.0

    async def wait_for(self, needle: str, since: int = 0, timeout: float = 120) -> None:
        async with asyncio.timeout(timeout):
            while needle not in _text(bytes(self.raw[since:])):
                self.changed.clear()
                await self.changed.wait()

    async def _reader(self, ws: Any) -> None:
        async for message in ws:
            if isinstance(message.data, bytes):
                self.raw += message.data
                self.changed.set()

    async def run(self, url: str, go: asyncio.Event, keys: int, rate: float) -> None:
        import aiohttp

        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            signed = await http.get(f"{url}/?token={self.token}", allow_redirects=False)
            assert signed.status == 303, signed.status
            t0 = time.perf_counter()
            async with http.ws_connect(
                f"{url.replace('http', 'ws')}/ws?width=160&height=48", headers={"Origin": url}
            ) as ws:
                reader = asyncio.create_task(self._reader(ws))
                await self.wait_for(f"Annotator: {self.name}")
                self.started_s = time.perf_counter() - t0
                await ws.send_str(json.dumps(["stdin", "n"]))
                # The object list shows its counts once the screen is mounted.
                await self.wait_for(f"{self.history_rows:,}")
                # F4 focuses the answer box (a priority key: safe however fast it follows 'n');
                # the footer no longer names the submit key, so give the focus a moment.
                await ws.send_str(json.dumps(["stdin", "\x1bOS"]))
                await asyncio.sleep(0.5)
                await go.wait()
                rng = random.Random(self.name)
                typed = ""
                for _ in range(keys):
                    letter = rng.choice("bcdghjkmpqrtvwxz")
                    typed += letter
                    mark = len(self.raw)
                    sent = time.perf_counter()
                    await ws.send_str(json.dumps(["stdin", letter]))
                    try:
                        await self.wait_for(typed[-6:], since=mark, timeout=30)
                    except TimeoutError:
                        tail = _text(bytes(self.raw[mark:]))[-400:]
                        raise SystemExit(
                            f"{self.name}: {typed!r} never drawn; got {tail!r}"
                        ) from None
                    self.latencies.append((time.perf_counter() - sent) * 1000)
                    await asyncio.sleep(max(0.0, rng.expovariate(rate)))
                await ws.close()
                reader.cancel()


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _memory_kb(pid: int) -> tuple[int, int]:
    """(PSS, RSS) in kB."""
    pss = rss = 0
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                pss = int(line.split()[1])
            elif line.startswith("Rss:"):
                rss = int(line.split()[1])
    except OSError:
        pass
    return pss, rss


async def load_test(
    url: str, server_pid: int, tokens: dict[str, str], sessions: int, keys: int, rate: float
) -> dict[str, Any]:
    names = sorted(tokens)[:sessions]
    from crmtui import paths
    from crmtui.org.store import Org

    rows = Org.open(paths.org_path("sample")).count("CaseHistory__c")
    clients = [Client(name, tokens[name], rows) for name in names]
    go = asyncio.Event()
    tasks = []
    for client in clients:  # staggered starts, as people arrive
        tasks.append(asyncio.create_task(client.run(url, go, keys, rate)))
        await asyncio.sleep(0.3)
    async with asyncio.timeout(600):
        while not all(c.started_s and "Submit answer" in _text(bytes(c.raw)) for c in clients):
            failed = [t for t in tasks if t.done() and t.exception()]
            if failed:
                raise failed[0].exception()  # type: ignore[misc]
            await asyncio.sleep(0.2)
    await asyncio.sleep(2)
    apps = [
        p
        for p in _descendants(server_pid)
        if "crmtui.cli" in _cmdline(p) and _comm(p).startswith("python")  # not the sh -c
    ]
    memory = [_memory_kb(p) for p in apps]
    server_memory = _memory_kb(server_pid)
    server_before = _cpu_s(server_pid)
    apps_before = sum(_cpu_s(p) for p in apps)
    wall = time.perf_counter()
    go.set()
    await asyncio.gather(*tasks)
    wall = time.perf_counter() - wall
    server_cpu = _cpu_s(server_pid) - server_before
    cpu = server_cpu + sum(_cpu_s(p) for p in apps) - apps_before
    if os.environ.get("BENCH_DEBUG"):
        print({p: (_comm(p), _cpu_s(p)) for p in [server_pid, *apps]})
    return {
        "cpu_s": cpu,
        "server_cpu_s": server_cpu,
        "typing_s": wall,
        "clients": clients,
        "apps": len(apps),
        "pss_kb": [m[0] for m in memory],
        "rss_kb": [m[1] for m in memory],
        "server_rss_kb": server_memory[1],
    }


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a live process."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--keys", type=int, default=40, help="keystrokes per session")
    parser.add_argument("--rate", type=float, default=4.0, help="keystrokes per second each")
    parser.add_argument("--browser-runs", type=int, default=3)
    args = parser.parse_args()
    ok = True
    with tempfile.TemporaryDirectory(prefix="crmtui-bench-serve-") as tmp:
        env, tokens, folder = setup(Path(tmp), args.sessions)
        server, url = start_server(env, folder, args.sessions + 3)
        try:
            spare = sorted(tokens)[args.sessions :]
            runs = browser_first_frame(url, [tokens[n] for n in spare[: args.browser_runs]])
            if runs:
                firsts = [r[0] for r in runs]
                pickers = [r[1] for r in runs]
                print(
                    f"browser: first frame {min(firsts):.2f} s best, "
                    f"{statistics.median(firsts):.2f} s median after opening the sign-in "
                    f"link (runs {', '.join(f'{t:.2f}' for t in firsts)}); picker drawn "
                    f"{statistics.median(pickers):.2f} s median; "
                    f"target < {FIRST_FRAME_TARGET_S:.0f} s"
                )
                ok &= statistics.median(firsts) < FIRST_FRAME_TARGET_S
            result = asyncio.run(
                load_test(url, server.pid, tokens, args.sessions, args.keys, args.rate)
            )
        finally:
            server.terminate()
            server.wait(timeout=60)
    latencies = [ms for c in result["clients"] for ms in c.latencies]
    starts = [c.started_s for c in result["clients"]]
    p95 = _pct(latencies, 0.95)
    pss, rss = result["pss_kb"], result["rss_kb"]
    print(
        f"{args.sessions} sessions: app start (websocket to picker) median "
        f"{statistics.median(starts):.2f} s, max {max(starts):.2f} s"
    )
    print(
        f"keystroke to screen over {len(latencies)} keys ({args.rate:g}/s per session): "
        f"p50 {_pct(latencies, 0.5):.0f} ms, p95 {p95:.0f} ms, p99 {_pct(latencies, 0.99):.0f} "
        f"ms, max {max(latencies):.0f} ms; target p95 < {P95_TARGET_MS:.0f} ms"
    )
    keys_total = max(1, len(latencies))
    print(
        f"CPU while typing (server + apps): {result['cpu_s']:.1f} s over "
        f"{result['typing_s']:.1f} s, {result['cpu_s'] * 1000 / keys_total:.1f} ms per keystroke"
        f" (server alone {result['server_cpu_s'] * 1000 / keys_total:.1f} ms;"
        f" the machine has {os.cpu_count()} cores; load average now "
        f"{os.getloadavg()[0]:.1f})"
    )
    if pss:
        print(
            f"memory per session ({result['apps']} app processes): PSS median "
            f"{statistics.median(pss) / 1024:.0f} MB (total {sum(pss) / 1024:.0f} MB), RSS "
            f"median {statistics.median(rss) / 1024:.0f} MB; server RSS "
            f"{result['server_rss_kb'] / 1024:.0f} MB"
        )
    ok &= p95 < P95_TARGET_MS
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
