"""A class signing in at once: ``crmtui serve`` with and without pre-started app processes.

Everything runs on loopback against real ``crmtui serve`` processes serving a study on the
sample org, in a temporary ``CRMTUI_HOME`` and study folder. Each *sign-in* is what a
browser does with an emailed link, spoken by an aiohttp client: ``GET /?token=...`` (the
link; 303 and the cookie), ``GET /`` (the terminal page), then the websocket at
160x48 and the browser terminal's ``["focus"]``. The client looks for text in the app's
frames with the escape codes taken out (a first frame paints whole lines, so the names
below arrive in one piece), which keeps its own CPU small: it shares the cores with the
server it measures. Times are from the link's request to

* *first frame*: the first bytes of the app on the websocket, and
* *picker*: the instance picker on screen, drawn whole (``Annotator: <name>`` and the table's
  header).

Runs, in one process, for each ``--standby`` value given (default: ``0`` and the server's
default, 4), side by side and alternating (``--rounds``):

1. **Alone**: one sign-in with nobody else connected (target: first frame < 1 s).
2. **A class at once**: ``--sessions`` (default 20) sign-ins started at the same instant
   (targets: every picker < 3 s, median < 1.5 s).
3. **A resumed instance**: an annotator whose connection dropped mid-instance opens the
   link again: time until the instance (not the picker) is on screen.

Also printed: the CPU the app processes used per sign-in of the class (from ``/proc``;
independent of other load on the machine, unlike the wall times), hence how many sign-ins
one core starts per second; and the memory of the standby process and of each waiting
pre-started process (RSS, PSS, private) before the class arrives.

Wall times count other processes' turns on the cores: say the load average with them
(printed). Usage::

    .venv/bin/python benchmarks/bench_signin.py [--sessions 20] [--rounds 2] [--standby 0,4]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_serve import _descendants, _read, cpu_s, load  # noqa: E402

WIDTH, HEIGHT = 160, 48
_ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()=>78]")
ALONE_FIRST_FRAME_S = 1.0
CLASS_EVERY_S = 3.0
CLASS_MEDIAN_S = 1.5
F4 = "\x1bOS"


class Stuck(Exception):
    """A sign-in did not get what it waited for."""


def setup(root: Path, annotators: int) -> tuple[dict[str, str], dict[str, str], Path]:
    """A home with the sample org, a blind study with ``annotators`` annotators."""
    env = dict(os.environ, CRMTUI_HOME=str(root / "home"), CRMTUI_STUDIES=str(root / "studies"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode cached, as on an installed machine
    os.environ.update(env)
    from crmtui.org.sample import ensure_sample
    from crmtui.study import StudyRequest, create_study

    ensure_sample()
    names = [f"ann{i:02d}" for i in range(annotators)]
    study, tokens = create_study(
        StudyRequest(name="class", annotators=names, per_type=2, shared=0.0, overlap=1)
    )
    return env, tokens, study.folder


def start_server(
    env: dict[str, str], folder: Path, standby: int, slots: str | None = None
) -> tuple[subprocess.Popen, str]:
    """``crmtui serve --standby N`` on a free port, once its standby process is ready
    (``slots``: ``CRMTUI_START_SLOTS`` for it, else the default)."""
    if slots is not None:
        env = dict(env, CRMTUI_START_SLOTS=slots)
    process = subprocess.Popen(
        [sys.executable, "-m", "crmtui.cli", "serve", "--study", str(folder), "--port", "0"]
        + ["--max-sessions", "100", "--standby", str(standby)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    url, ready = None, not standby
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (url and ready):
        line = process.stdout.readline()
        if not line:
            break
        if match := re.search(r"on (http://127\.0\.0\.1:\d+)/", line):
            url = match.group(1)
        ready = ready or "standby process ready" in line
    if not (url and ready):
        process.kill()
        raise Stuck("crmtui serve did not start (or its standby process did not load) in 120 s")
    threading.Thread(target=process.stdout.read, daemon=True).start()  # drain its log
    return process, url


@dataclass
class SignIn:
    """One sign-in's times (seconds after the link's request)."""

    name: str
    first_frame: float = 0.0
    shown: float = 0.0


async def sign_in(
    http: Any, url: str, name: str, token: str, until: str | tuple[str, ...], timeout: float = 120
) -> tuple[SignIn, Any]:
    """Open ``name``'s link as a browser does; wait until the screen has shown ``until``
    (every text of it, when several)."""
    result = SignIn(name)
    start = time.perf_counter()
    signed = await http.get(f"{url}/?token={token}", allow_redirects=False)
    if signed.status != 303:
        raise Stuck(f"{name}: sign-in answered {signed.status}")
    page = await http.get(f"{url}/")
    await page.read()
    ws = await http.ws_connect(
        f"{url.replace('http', 'ws')}/ws?width={WIDTH}&height={HEIGHT}", headers={"Origin": url}
    )
    await ws.send_str(json.dumps(["focus"]))
    pending = {until} if isinstance(until, str) else set(until)
    keep = max(len(text) for text in pending)
    tail = ""
    try:
        async with asyncio.timeout(timeout):
            async for message in ws:
                if not isinstance(message.data, bytes):
                    continue
                if not result.first_frame:
                    result.first_frame = time.perf_counter() - start
                text = tail + _ANSI.sub("", message.data.decode("utf-8", "replace"))
                pending = {each for each in pending if each not in text}
                if not pending:
                    result.shown = time.perf_counter() - start
                    return result, ws
                tail = text[-keep:]
    except TimeoutError:
        pass
    raise Stuck(f"{name}: {sorted(pending)!r} not on screen after {timeout:g} s")


def picker(name: str) -> tuple[str, str]:
    """The picker drawn whole: its top line and its table's header."""
    return (f"Annotator: {name}", "query")


def app_processes(server_pid: int) -> list[int]:
    """The server's descendants that run Python (the standby process, its copies, apps)."""
    return [
        p
        for p in _descendants(server_pid)
        if p != server_pid and _read(f"/proc/{p}/comm").startswith("python")
    ]


def memory(pid: int) -> dict[str, int]:
    """RSS, PSS and private (USS) memory of ``pid`` in kB."""
    values = dict.fromkeys(("Rss", "Pss", "Private_Clean", "Private_Dirty"), 0)
    for line in _read(f"/proc/{pid}/smaps_rollup").splitlines():
        key = line.split(":", 1)[0]
        if key in values:
            values[key] = int(line.split()[1])
    return {
        "rss": values["Rss"],
        "pss": values["Pss"],
        "uss": values["Private_Clean"] + values["Private_Dirty"],
    }


def first_row(folder: Path, name: str) -> str:
    """The first instance of ``name``'s list, as the picker shows it (its idx)."""
    from crmtui.study import load_study

    return str(load_study(folder).assignment(name).order[0])


async def one_round(url: str, server_pid: int, tokens: dict[str, str], args: Any) -> dict:
    """Alone, then the class at once, then a resumed instance; CPU of the apps for the class."""
    import aiohttp

    names = sorted(tokens)
    alone_name, resume_name, class_names = names[0], names[1], names[2 : 2 + args.sessions]
    jar = lambda: aiohttp.CookieJar(unsafe=True)  # noqa: E731
    out: dict[str, Any] = {}
    async with aiohttp.ClientSession(cookie_jar=jar()) as http:
        alone, ws = await sign_in(http, url, alone_name, tokens[alone_name], picker(alone_name))
        await ws.close()
    out["alone"] = alone
    await asyncio.sleep(1.0)

    memory_before = [memory(pid) for pid in app_processes(server_pid)]
    cpu_before = {pid: cpu_s(pid) for pid in app_processes(server_pid)}
    server_before, own_before = cpu_s(server_pid), time.process_time()
    sessions = [aiohttp.ClientSession(cookie_jar=jar()) for _ in class_names]
    try:
        results = await asyncio.gather(
            *(
                sign_in(http, url, name, tokens[name], picker(name))
                for http, name in zip(sessions, class_names, strict=True)
            )
        )
        await asyncio.sleep(0.5)
        pids = app_processes(server_pid)
        used = sum(cpu_s(pid) - cpu_before.get(pid, 0.0) for pid in pids)
        out["server_cpu_s"] = cpu_s(server_pid) - server_before
        out["bench_cpu_s"] = time.process_time() - own_before
        for _, ws in results:
            await ws.close()
    finally:
        for http in sessions:
            await http.close()
    out["class"] = [r for r, _ in results]
    out["class_cpu_s"] = used
    out["memory"] = memory_before
    await asyncio.sleep(2.0)  # the class's apps save and exit

    # A dropped connection mid-instance, then the link again: straight back into it.
    async with aiohttp.ClientSession(cookie_jar=jar()) as http:
        _, ws = await sign_in(http, url, resume_name, tokens[resume_name], picker(resume_name))
        await ws.send_str(json.dumps(["stdin", "n"]))
        await asyncio.sleep(3.0)  # the instance opens; the app records it
        await ws.close()
    await asyncio.sleep(2.0)
    async with aiohttp.ClientSession(cookie_jar=jar()) as http:
        resumed, ws = await sign_in(http, url, resume_name, tokens[resume_name], "Task context")
        await ws.close()
    out["resumed"] = resumed
    return out


def describe(label: str, runs: list[dict], args: Any) -> dict[str, Any]:
    """Print one configuration's figures; return them."""
    alone = [r["alone"] for r in runs]
    every = [s for r in runs for s in r["class"]]
    pickers = [s.shown for s in every]
    firsts = [s.first_frame for s in every]
    resumed = [r["resumed"].shown for r in runs]
    cpu = statistics.median(r["class_cpu_s"] / args.sessions for r in runs)
    server = statistics.median(r["server_cpu_s"] / args.sessions for r in runs)
    bench = statistics.median(r["bench_cpu_s"] / args.sessions for r in runs)
    summary = {
        "alone_first_frame_s": statistics.median(a.first_frame for a in alone),
        "alone_picker_s": statistics.median(a.shown for a in alone),
        "class_picker_median_s": statistics.median(pickers),
        "class_picker_max_s": max(pickers),
        "class_first_frame_median_s": statistics.median(firsts),
        "resumed_instance_s": statistics.median(resumed),
        "cpu_per_sign_in_s": cpu,
        "server_cpu_per_sign_in_s": server,
    }
    print(f"{label}:")
    print(
        f"  alone:   first frame {summary['alone_first_frame_s']:.2f} s, picker "
        f"{summary['alone_picker_s']:.2f} s (target first frame < {ALONE_FIRST_FRAME_S:g} s)"
    )
    print(
        f"  {args.sessions} at once: picker median {summary['class_picker_median_s']:.2f} s, max "
        f"{summary['class_picker_max_s']:.2f} s; first frame median "
        f"{summary['class_first_frame_median_s']:.2f} s (targets: every picker < "
        f"{CLASS_EVERY_S:g} s, median < {CLASS_MEDIAN_S:g} s)"
    )
    print(
        f"  CPU per sign-in of the class: apps {cpu * 1000:.0f} ms (until 0.5 s after the last "
        f"picker), server {server * 1000:.0f} ms, this script {bench * 1000:.0f} ms: one core "
        f"starts {1 / (cpu + server):.1f} sign-ins a second"
    )
    print(f"  a resumed instance on screen {summary['resumed_instance_s']:.2f} s after the link")
    mem = runs[0]["memory"]
    if mem:
        standby, *waiting = sorted(mem, key=lambda m: -m["rss"])
        print(
            f"  before the class: {len(mem)} app process(es); the largest RSS "
            f"{standby['rss'] / 1024:.0f} MB (PSS {standby['pss'] / 1024:.0f}, private "
            f"{standby['uss'] / 1024:.0f})"
            + (
                f"; each other: RSS {statistics.median(m['rss'] for m in waiting) / 1024:.0f} MB, "
                f"PSS {statistics.median(m['pss'] for m in waiting) / 1024:.0f} MB, private "
                f"{statistics.median(m['uss'] for m in waiting) / 1024:.1f} MB"
                if waiting
                else ""
            )
        )
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--standby",
        default="0,4",
        help="comma list of --standby values; N/S also sets CRMTUI_START_SLOTS=S (4/0: no turns)",
    )
    args = parser.parse_args()
    configs = args.standby.split(",")
    print(f"bench_signin: {load()} at the start; {os.cpu_count()} cores")
    results: dict[str, list[dict]] = {c: [] for c in configs}
    label = {
        c: f"--standby {c.partition('/')[0]}"
        + (f", CRMTUI_START_SLOTS={c.partition('/')[2]}" if "/" in c else "")
        for c in configs
    }
    with tempfile.TemporaryDirectory(prefix="crmtui-bench-signin-") as tmp:
        env, tokens, folder = setup(Path(tmp), args.sessions + 2)
        for round_ in range(args.rounds):
            for config in configs:
                standby, _, slots = config.partition("/")
                # A fresh study folder state per run: the resumed annotator's recording
                # from an earlier run would be resumed at once.
                for path in (folder / "recordings").glob("*/*.jsonl"):
                    path.unlink()
                server, url = start_server(env, folder, int(standby), slots or None)
                try:
                    result = asyncio.run(one_round(url, server.pid, tokens, args))
                except Stuck as exc:
                    print(f"Error: {exc}")
                    return 1
                finally:
                    server.terminate()
                    server.wait(timeout=60)
                results[config].append(result)
                print(f"  round {round_ + 1}, {label[config]} done; {load()}", flush=True)
    ok = True
    out: dict[str, Any] = {"bench": "signin", "sessions": args.sessions}
    for config in configs:
        summary = describe(label[config], results[config], args)
        out[f"standby_{config.replace('/', '_slots_')}"] = summary
        if config == "4":  # the server's default
            ok &= (
                summary["alone_first_frame_s"] < ALONE_FIRST_FRAME_S
                and summary["class_picker_max_s"] < CLASS_EVERY_S
                and summary["class_picker_median_s"] < CLASS_MEDIAN_S
            )
    print(f"machine: {load()} (1, 5, 15 min) at the end; targets {'MET' if ok else 'MISSED'}")
    print(json.dumps(out, sort_keys=True))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
