"""serve-rest with hundreds of slow or idle connections: how long normal requests wait.

Opens N hostile connections (half idle, half trickling a header a byte at a time) against
one server process with the default 100 connection threads and 20 s request timeout, then
times sequential normal requests. Issue #35 saw 1 in 5 normal requests wait past 15 s with
300 such connections.

    .venv/bin/python benchmarks/bench_rest_slow_clients.py --hostile 300 --requests 10
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path

from crmtui.org.build import build_org
from crmtui.org.store import Org
from crmtui.rest import RestApi, RestServer

SESSION = "00DBENCH00000001!bench"
QUERY = "/services/data/v59.0/query?q=SELECT+Id+FROM+Case+LIMIT+1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hostile", type=int, default=300)
    parser.add_argument("--requests", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "org.db"
        build_org(path, seed=7, scale="small", name="bench")
        server = RestServer(RestApi(Org.open(path), SESSION)).start()
        hostile: list[socket.socket] = []
        stop = threading.Event()
        try:
            for number in range(args.hostile):
                sock = socket.create_connection((server.host, server.port), timeout=5)
                if number % 2:
                    sock.sendall(b"GET /services/data/v59.0/ HTTP/1.1\r\nHo")
                hostile.append(sock)

            def trickle() -> None:
                while not stop.wait(0.5):
                    for sock in hostile[1::2]:
                        with contextlib.suppress(OSError):
                            sock.sendall(b"x")

            threading.Thread(target=trickle, daemon=True).start()
            took = []
            for _ in range(args.requests):
                began = time.monotonic()
                conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
                conn.request("GET", QUERY, headers={"Authorization": f"Bearer {SESSION}"})
                conn.getresponse().read()
                conn.close()
                took.append(time.monotonic() - began)
            print(f"{args.hostile} hostile connections; normal requests (s): "
                  f"median {statistics.median(took):.2f}, max {max(took):.2f}, "
                  f"over 15 s: {sum(t > 15 for t in took)}/{len(took)}")  # fmt: skip
        finally:
            stop.set()
            for sock in hostile:
                sock.close()
            server.stop()


if __name__ == "__main__":
    main()
