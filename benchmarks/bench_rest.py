"""Benchmark ``serve-rest``: overhead per query over the engine, and parallel clients.

Uses bench_query.py's 36 realistic queries on the ``full`` org (built once into the temp
folder). For each query: the engine's own time (``crmtui.query.run`` in-process, warm plan
cache) and the round trip through the local REST API over loopback (a keep-alive requests
session, HTTPS with the local CA by default, ``--http`` for plain HTTP; SOQL via ``query``,
SOSL via ``search``). The overhead is the median over the queries of (round trip - engine).

Concurrency: the same query mix sent by 1 and by 8 client processes for a fixed number of
requests each; the speed-up is 8-client throughput over 1-client throughput.

    .venv/bin/python benchmarks/bench_rest.py                 # full org, HTTPS
    .venv/bin/python benchmarks/bench_rest.py --http --repeat 7

Targets: overhead median < 3 ms; 8 clients >= 1.6x one client on 2 cores.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing as mp
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_query import _open_org as load_org  # noqa: E402
from bench_query import build_queries  # noqa: E402

from crmtui.query import QueryError, run  # noqa: E402
from crmtui.rest import serve  # noqa: E402

OVERHEAD_TARGET_MS = 3.0
SCALE_TARGET = 1.6
SID = "00DBENCH!bench"


def _session(ca: str | None) -> Any:
    import requests

    session = requests.Session()
    session.trust_env = False
    session.verify = ca if ca else False
    return session


def _call(session: Any, base: str, text: str) -> None:
    route = "search" if text.lstrip()[:4].upper() == "FIND" else "query"
    reply = session.get(
        f"{base}/services/data/v59.0/{route}/",
        params={"q": text},
        headers={"Authorization": f"Bearer {SID}"},
    )
    reply.content  # noqa: B018 - read the whole body


def _client(base: str, ca: str | None, texts: list[str], count: int, start: Any) -> None:
    session = _session(ca)
    _call(session, base, texts[0])  # connect (and handshake) before the clock starts
    start.wait()
    for i in range(count):
        _call(session, base, texts[i % len(texts)])


def throughput(base: str, ca: str | None, texts: list[str], clients: int, per: int) -> float:
    """Requests per second with ``clients`` processes sending ``per`` requests each."""
    ctx = mp.get_context("spawn")
    start = ctx.Event()
    procs = [
        ctx.Process(target=_client, args=(base, ca, texts, per, start)) for _ in range(clients)
    ]
    for proc in procs:
        proc.start()
    time.sleep(3.0)  # let every client import and connect
    began = time.perf_counter()
    start.set()
    for proc in procs:
        proc.join()
    return clients * per / (time.perf_counter() - began)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--org", help="org file or name (default: build the --scale org)")
    parser.add_argument("--scale", default="full", choices=["small", "full", "stress"])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--http", action="store_true", help="plain HTTP instead of HTTPS")
    parser.add_argument("--per-client", type=int, default=60)
    args = parser.parse_args(argv)
    org = load_org(args)
    conn = org.connect()
    queries, today = build_queries(conn)
    conn.close()
    texts = [q for _, q, _ in queries]
    folder = Path(tempfile.mkdtemp(prefix="crmtui-bench-rest-"))
    server, tls = serve(
        org, session_id=SID, https=not args.http, ca_path=folder / "ca.pem", today=today
    )
    ca = str(tls.ca_path) if tls else None
    base = server.instance_url
    session = _session(ca)
    overheads = []
    for name, text, _ in queries:
        engine, http = [], []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            with contextlib.suppress(QueryError):
                run(org, text, today=today)
            engine.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            _call(session, base, text)
            http.append((time.perf_counter() - t0) * 1000)
        e, h = statistics.median(engine), statistics.median(http)
        overheads.append(h - e)
        print(f"{name:<34} engine {e:7.2f} ms  via REST {h:7.2f} ms  overhead {h - e:6.2f} ms")
    median = statistics.median(overheads)
    print(
        f"\nserve-rest overhead, median over {len(queries)} queries: {median:.2f} ms "
        f"(target < {OVERHEAD_TARGET_MS} ms) [{'https' if ca else 'http'}]"
    )
    one = throughput(base, ca, texts, 1, args.per_client)
    eight = throughput(base, ca, texts, 8, args.per_client)
    print(
        f"1 client: {one:.0f} req/s; 8 clients: {eight:.0f} req/s; "
        f"speed-up {eight / one:.2f}x (target >= {SCALE_TARGET}x)"
    )
    server.stop()
    ok = median < OVERHEAD_TARGET_MS and eight / one >= SCALE_TARGET
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
