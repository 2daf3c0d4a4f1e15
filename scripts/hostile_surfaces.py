"""The hostile-input battery of the newer surfaces (issue #35), run on the current code.

Each probe attacks one surface as the issue's battery did and prints one row: what was done,
what came out (with numbers) and whether the guarantee of docs/robustness-surfaces.md held.
Everything runs offline in a temporary CRMTUI_HOME: models are a scripted OpenAI-compatible
server on 127.0.0.1, the REST server is started in this process.

    .venv/bin/python scripts/hostile_surfaces.py            # every probe (a few minutes)
    .venv/bin/python scripts/hostile_surfaces.py --only exports,deployments
    .venv/bin/python scripts/hostile_surfaces.py --hostile 300 --requests 20

Groups: exports, channels, messages, verify, deployments, time-limit, serve-rest; and tui
(the real TUI in tmux, two to three minutes), run only when named in ``--only``. The exit
status is 1 when any probe failed.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import http.client
import json
import os
import socket
import ssl
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hostile_common import ROWS, STOP, Models, crmtui, one_error_line, row
from hostile_conversations import honest_dialogue, probe_channels, probe_messages, probe_verify


def probe_exports(work: Path, home: Path) -> None:
    import sqlite3

    recordings = work / "recs"
    recordings.mkdir()
    honest_dialogue(recordings / "r.jsonl")
    for fmt in ("csv", "jsonl", "sqlite", "hf"):
        targets: dict[str, Path] = {}
        ext = ".parquet" if fmt == "hf" else ""  # hf writes a folder unless given a .parquet
        text = work / f"notes-{fmt}.txt{ext}"
        text.write_text("my notes\n", "utf-8")
        targets["text file"] = text
        db = work / f"mine-{fmt}.db{ext}"
        with contextlib.closing(sqlite3.connect(db)) as con:
            con.execute("CREATE TABLE mine (x)")
            con.execute("INSERT INTO mine VALUES (1)")
            con.commit()
        targets["someone's database"] = db
        link = work / f"link-{fmt}{ext}"
        link.symlink_to(text)
        targets["symlink"] = link
        if os.geteuid() == 0 and Path("/dev/full").exists():
            targets["/dev/full (root)"] = Path("/dev/full")
        for what, target in targets.items():
            before = _fingerprint(target)
            code, said, took = crmtui(
                "export", str(recordings), "--format", fmt, "--out", str(target), home=home
            )
            forced, said_forced, _ = crmtui(
                "export", str(recordings), "--format", fmt, "--out", str(target), "--force",
                home=home,
            )  # fmt: skip
            kept = _fingerprint(target) == before
            held = kept and one_error_line(code, said) and one_error_line(forced, said_forced)
            first = said.strip().splitlines()[0][:70] if said.strip() else "(nothing)"
            row(
                "exports",
                f"{fmt} over {what}",
                f"exit {code}/{forced} (--force), "
                f"{'left as it was' if kept else 'CHANGED'}, {took:.1f} s: {first}",
                held,
            )


def _fingerprint(path: Path) -> tuple[Any, ...]:
    stat = path.lstat()
    data = b""
    if path.is_file() and not path.is_symlink():
        data = path.read_bytes()
    elif path.is_symlink():
        data = os.readlink(path).encode()
    return stat.st_mode, stat.st_rdev, hashlib.sha256(data).hexdigest()


def probe_deployments(work: Path, home: Path) -> None:
    files: dict[str, Callable[[Path], None]] = {
        "FIFO": lambda p: os.mkfifo(p),
        "200,000 entries": lambda p: p.write_text(json.dumps(
            [{"model_name": "m", "litellm_params": {"model": "openai/m",
              "api_base": f"http://127.0.0.1:{9000 + n % 1000}/v1"}} for n in range(200_000)]),
            "utf-8"),
        "1,001 entries (under 1 MB)": lambda p: p.write_text(json.dumps(
            [{"model_name": "m", "litellm_params": {"model": "openai/m"}}] * 1001), "utf-8"),
        "non-UTF-8": lambda p: p.write_bytes(b'[{"model_name": "\xff\xfe"}]'),
        "5,000-deep nesting": lambda p: p.write_text("[" * 5000 + "]" * 5000, "utf-8"),
        "cooldown_s NaN": lambda p: p.write_text(
            '[{"model_name":"m","litellm_params":{"model":"openai/m"}}]'.replace(
                "}]", ', "cooldown_s": NaN}]'), "utf-8"),
    }  # fmt: skip
    for number, (name, make) in enumerate(files.items()):
        path = work / f"deploy-{number}.json"
        make(path)
        code, said, took = crmtui(
            "run", "--model", "openai/m", "--deployments", str(path), "--idx", "0",
            "--out", str(work / "dep-out"), home=home, timeout=60,
        )  # fmt: skip
        first = said.strip().splitlines()[0][:70] if said.strip() else "(nothing)"
        row("deployments", name, f"exit {code} in {took:.1f} s: {first}",
            one_error_line(code, said) and took < 10)  # fmt: skip


def probe_time_limit(work: Path, home: Path, models: Models, limit: float = 3.0) -> None:
    """The episode's own time (its recording's last ``ms``) against ``--time-limit``; the
    command's time beside a run whose user answers at once (start-up, org, litellm)."""
    models.plan["agent"] = [(0, "<respond>Which state?</respond>")]
    models.plan["user"] = [(0, "Hi."), (0, STOP)]
    _, _, baseline = crmtui(
        "run", "--model", "openai/agent", "--api-base", models.base, "--org", "sample-b2b",
        "--idx", "0", "--interactive", "--user-model", "openai/user", "--user-api-base",
        models.base, "--out", str(work / "tl-baseline"), home=home, timeout=120,
    )  # fmt: skip
    row("time-limit", "baseline: the user answers at once", f"command {baseline:.1f} s", True)
    for where in ("opening", "reply"):
        stall = (60.0, "far too late")
        models.plan["agent"] = [(0, "<respond>Which state?</respond>")]
        models.plan["user"] = [stall, stall] if where == "opening" else [(0, "Hi."), stall, stall]
        out = work / f"tl-{where}"
        code, said, took = crmtui(
            "run", "--model", "openai/agent", "--api-base", models.base, "--org", "sample-b2b",
            "--idx", "0", "--interactive", "--user-model", "openai/user", "--user-api-base",
            models.base, "--time-limit", f"{limit:g}", "--timeout", "30", "--out", str(out),
            home=home, timeout=120,
        )  # fmt: skip
        from crmtui.record import verify
        from crmtui.record.verify import load

        (path,) = list(out.rglob("*.jsonl")) or [None]
        if path is None:
            row("time-limit", f"user model stalls at its {where}", f"no recording: {said}", False)
            continue
        recording = load(path)
        spent = recording.events[-1].ms / 1000
        reason = recording.end.payload.get("end_reason", {}) if recording.end else {}
        held = (
            verify(path).ok and reason.get("message") == "Time limit reached"
            and reason.get("role") == "user" and spent <= limit + 1.0
        )  # fmt: skip
        row("time-limit", f"user model stalls 60 s at its {where} (limit {limit:g} s)",
            f"episode {spent:.2f} s (+{100 * (spent - limit) / limit:.1f}%), command {took:.1f} s "
            f"(baseline + {took - baseline:.1f} s)"
            f", end {reason.get('message')!r} role {reason.get('role')!r}", held)  # fmt: skip


def probe_serve_rest(work: Path, hostile: int, requests: int) -> None:
    from crmtui.org.build import build_org
    from crmtui.org.store import Org
    from crmtui.rest import RestApi, RestServer
    from crmtui.rest.tls import make_tls

    session = "00DPROBE0000001!probe"
    query = "/services/data/v59.0/query?q=SELECT+Id+FROM+Case+LIMIT+1"
    path = work / "rest.db"
    build_org(path, seed=7, scale="small", name="probe")
    tls = make_tls(work / "ca.pem")
    client_tls = ssl.create_default_context(cafile=str(tls.ca_path))
    for kind in ("slow-header", "idle keep-alive", "stalled TLS handshake"):
        secure = kind == "stalled TLS handshake"
        server = RestServer(RestApi(Org.open(path), session), tls=tls.context if secure else None)
        server.start()
        socks: list[socket.socket] = []
        stop = threading.Event()
        try:
            for _ in range(hostile):
                sock = socket.create_connection((server.host, server.port), timeout=5)
                if kind == "slow-header":
                    sock.sendall(b"GET /services/data/v59.0/ HTTP/1.1\r\nHo")
                socks.append(sock)

            def trickle(stop: threading.Event = stop, socks: list[socket.socket] = socks) -> None:
                while not stop.wait(0.5):
                    for sock in socks:
                        with contextlib.suppress(OSError):
                            sock.sendall(b"x")

            if kind == "slow-header":
                threading.Thread(target=trickle, daemon=True).start()
            took, threads = [], threading.active_count()  # the hostile ones accepted so far
            for _ in range(requests):
                took.append(_normal(server, query, session, client_tls if secure else None))
                threads = max(threads, threading.active_count())
        finally:
            stop.set()
            for sock in socks:
                sock.close()
            server.stop()
        late = sum(1 for t in took if t > 15)
        row("serve-rest", f"{hostile} {kind} connections",
            f"{requests} normal requests: median {statistics.median(took):.2f} s, max "
            f"{max(took):.2f} s, {late}/{requests} past 15 s; {threads} threads, "
            f"{_rss_mb():.0f} MB", late == 0)  # fmt: skip


def _rss_mb() -> float:
    """This process's resident memory (Linux), MB; 0 where /proc is missing."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _normal(server: Any, query: str, session: str, context: ssl.SSLContext | None) -> float:
    began = time.monotonic()
    if context is None:
        conn: http.client.HTTPConnection = http.client.HTTPConnection(
            server.host, server.port, timeout=60
        )
    else:
        conn = http.client.HTTPSConnection(server.host, server.port, timeout=60, context=context)
    try:
        conn.request("GET", query, headers={"Authorization": f"Bearer {session}"})
        conn.getresponse().read()
    except OSError:
        return 60.0
    finally:
        conn.close()
    return time.monotonic() - began


@contextlib.contextmanager
def workspace() -> Iterator[tuple[Path, Path]]:
    with tempfile.TemporaryDirectory(prefix="crmtui-hostile-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        os.environ["CRMTUI_HOME"] = str(home)
        yield Path(tmp), home


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="Comma-separated groups to run.")
    parser.add_argument("--hostile", type=int, default=300, help="Hostile REST connections.")
    parser.add_argument("--requests", type=int, default=20, help="Normal REST requests.")
    args = parser.parse_args()
    only = {name.strip() for name in args.only.split(",") if name.strip()}

    def wanted(group: str) -> bool:
        return not only or group in only

    with workspace() as (work, home):
        models = Models()
        if wanted("exports"):
            probe_exports(work, home)
        if wanted("channels"):
            probe_channels(work)
        if wanted("messages"):
            probe_messages(work, home, models)
        if wanted("verify"):
            probe_verify(work)
        if wanted("deployments"):
            probe_deployments(work, home)
        if wanted("time-limit"):
            probe_time_limit(work, home, models)
        if wanted("serve-rest"):
            probe_serve_rest(work, args.hostile, args.requests)
        if "tui" in only:
            from hostile_tui import probe_tui

            probe_tui(work, home)
    failed = [r for r in ROWS if not r.held]
    print(f"\n{len(ROWS) - len(failed)}/{len(ROWS)} probes held")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
