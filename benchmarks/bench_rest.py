"""Benchmark ``serve-rest``: overhead per query over the engine, and parallel clients.

Uses bench_query.py's 36 realistic queries on the ``full`` org (built once into the temp
folder). The server runs in its own process, as ``crmtui serve-rest`` does (a server thread in
the measuring process would share its GIL and add GIL hand-over waits that no real client
sees). For each query: the engine's own time (``crmtui.query.run`` in-process, warm plan
cache) and the round trip through the local REST API over loopback on a keep-alive
connection, HTTPS with the local CA by default, ``--http`` for plain HTTP (SOQL via
``query``, SOSL via ``search``). The overhead is the median over the queries of
(round trip - engine), measured with two clients: a minimal one (``http.client``: what
serve-rest itself adds) and ``requests`` (what simple-salesforce, and so upstream's harness,
sees: it adds requests' own per-call cost, about 1 ms).

Concurrency: the same query mix sent by 1 and by 8 client processes (``http.client``) for a
fixed number of requests each; the speed-up is 8-client throughput over 1-client throughput,
for the default worker count and for threads only (``--workers 1``). The machine's load
average is printed beside the figures: on a shared, loaded machine both get worse.

    .venv/bin/python benchmarks/bench_rest.py                 # full org, HTTPS
    .venv/bin/python benchmarks/bench_rest.py --http --repeat 7

Targets: overhead median < 3 ms; 8 clients >= 1.6x one client on 2 cores.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import multiprocessing as mp
import os
import ssl
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_query import _open_org as load_org  # noqa: E402
from bench_query import build_queries  # noqa: E402

from crmtui.query import QueryError, run  # noqa: E402

OVERHEAD_TARGET_MS = 3.0
SCALE_TARGET = 1.6
SID = "00DBENCH!bench"
HEADERS = {"Authorization": f"Bearer {SID}"}


def _serve(org_path: str, https: bool, workers: int, today: Any, conn: Any, stop: Any) -> None:
    from crmtui.org.store import open_org
    from crmtui.rest import serve

    folder = Path(tempfile.mkdtemp(prefix="crmtui-bench-rest-"))
    server, tls = serve(
        open_org(org_path),
        session_id=SID,
        https=https,
        ca_path=folder / "ca.pem",
        log_path=folder / "requests.jsonl",
        today=today,
        workers=workers,
    )
    conn.send((server.port, str(tls.ca_path) if tls else None))
    stop.wait()
    server.stop()


class Server:
    """serve-rest in a separate process (spawned, so it imports and opens the org itself)."""

    def __init__(self, org_path: str, https: bool, workers: int, today: Any) -> None:
        ctx = mp.get_context("spawn")
        mine, theirs = ctx.Pipe()
        self._stop = ctx.Event()
        args = (org_path, https, workers, today, theirs, self._stop)
        self._proc = ctx.Process(target=_serve, args=args)
        self._proc.start()
        self.port, self.ca = mine.recv()

    def close(self) -> None:
        self._stop.set()
        self._proc.join(timeout=30)


def _path(text: str) -> str:
    route = "search" if text.lstrip()[:4].upper() == "FIND" else "query"
    return f"/services/data/v59.0/{route}/?q={quote(text)}"


def _connection(port: int, ca: str | None) -> http.client.HTTPConnection:
    if ca is None:
        return http.client.HTTPConnection("127.0.0.1", port)
    return http.client.HTTPSConnection(
        "127.0.0.1", port, context=ssl.create_default_context(cafile=ca)
    )


def _plain_call(conn: http.client.HTTPConnection, text: str) -> None:
    conn.request("GET", _path(text), headers=HEADERS)
    conn.getresponse().read()


def _requests_session(ca: str | None) -> Any:
    import requests

    session = requests.Session()
    session.trust_env = False
    session.verify = ca if ca else False
    return session


def _requests_call(session: Any, base: str, text: str) -> None:
    session.get(base + _path(text), headers=HEADERS).content  # noqa: B018 - read the body


def _client(port: int, ca: str | None, texts: list[str], count: int, start: Any) -> None:
    conn = _connection(port, ca)
    _plain_call(conn, texts[0])  # connect (and handshake) before the clock starts
    start.wait()
    for i in range(count):
        _plain_call(conn, texts[i % len(texts)])


def throughput(port: int, ca: str | None, texts: list[str], clients: int, per: int) -> float:
    """Requests per second with ``clients`` processes sending ``per`` requests each."""
    ctx = mp.get_context("spawn")
    start = ctx.Event()
    procs = [
        ctx.Process(target=_client, args=(port, ca, texts, per, start)) for _ in range(clients)
    ]
    for proc in procs:
        proc.start()
    time.sleep(3.0)  # let every client import and connect
    began = time.perf_counter()
    start.set()
    for proc in procs:
        proc.join()
    return clients * per / (time.perf_counter() - began)


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (1 min), {five:.1f} (5 min) on {os.cpu_count()} CPUs"


def overheads(org: Any, server: Server, queries: list, today: Any, repeat: int) -> tuple:
    """Median overhead (ms) over the queries for the plain client and for requests."""
    conn = _connection(server.port, server.ca)
    scheme = "https" if server.ca else "http"
    base = f"{scheme}://127.0.0.1:{server.port}"
    session = _requests_session(server.ca)
    plain, via_requests = [], []
    for name, text, _ in queries:
        engine, raw, req = [], [], []
        for _ in range(repeat):
            t0 = time.perf_counter()
            with contextlib.suppress(QueryError):
                run(org, text, today=today)
            engine.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            _plain_call(conn, text)
            raw.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            _requests_call(session, base, text)
            req.append((time.perf_counter() - t0) * 1000)
        e, r, q = (statistics.median(x) for x in (engine, raw, req))
        plain.append(r - e)
        via_requests.append(q - e)
        print(
            f"{name:<30} engine {e:7.2f} ms  REST {r:7.2f} ms (+{r - e:5.2f})  "
            f"requests {q:7.2f} ms (+{q - e:5.2f})"
        )
    return statistics.median(plain), statistics.median(via_requests)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--org", help="org file or name (default: build the --scale org)")
    parser.add_argument("--scale", default="full", choices=["small", "full", "stress"])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--http", action="store_true", help="plain HTTP instead of HTTPS")
    parser.add_argument("--per-client", type=int, default=60)
    parser.add_argument(
        "--workers", type=int, default=None, help="server processes (default: serve-rest's)"
    )
    args = parser.parse_args(argv)
    from crmtui.commands.serve_rest import default_workers

    workers = args.workers or default_workers()
    org = load_org(args)
    conn = org.connect()
    queries, today = build_queries(conn)
    conn.close()
    texts = [q for _, q, _ in queries]
    scheme = "http" if args.http else "https"
    print(f"[{scheme}] before: {_load()}")
    server = Server(str(org.path), not args.http, workers, today)
    try:
        plain, via_requests = overheads(org, server, queries, today, args.repeat)
        print(
            f"\nserve-rest overhead over the engine, median over {len(queries)} queries "
            f"[{scheme}]: {plain:.2f} ms with a plain keep-alive client (target < "
            f"{OVERHEAD_TARGET_MS} ms); {via_requests:.2f} ms through requests "
            f"(simple-salesforce's client, its own cost included)"
        )
        scale = {}
        for count in (workers, 1) if workers > 1 else (1,):
            if count != workers:
                server.close()
                server = Server(str(org.path), not args.http, count, today)
            one = throughput(server.port, server.ca, texts, 1, args.per_client)
            eight = throughput(server.port, server.ca, texts, 8, args.per_client)
            scale[count] = eight / one
            print(
                f"{count} worker process(es): 1 client {one:.1f} req/s, 8 clients {eight:.1f} "
                f"req/s: speed-up {eight / one:.2f}x (target >= {SCALE_TARGET}x)"
            )
    finally:
        server.close()
    print(f"[{scheme}] after: {_load()}")
    ok = plain < OVERHEAD_TARGET_MS and scale[workers] >= SCALE_TARGET
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
