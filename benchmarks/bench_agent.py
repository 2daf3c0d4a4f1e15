"""Per-call overhead of ModelClient (litellm) against the local fake OpenAI server.

Measures, over N calls each: a bare HTTP round trip to the fake server (http.client, kept-alive
connection), ``ModelClient.complete`` non-streaming, and streaming. The difference between the
client and the bare round trip is what our client + litellm add per model call.

Run: ``.venv/bin/python benchmarks/bench_agent.py [--calls 50] [--json]``
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crmtui.agent.client import ModelClient, load_litellm  # noqa: E402
from tests.fakes.openai_server import FakeOpenAI, text  # noqa: E402

MESSAGES = [
    {"role": "system", "content": "You are a Salesforce expert. " * 50},
    {"role": "user", "content": "Which agent closed the most cases last quarter?"},
]


def _median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 3)


def bench(calls: int) -> dict[str, float]:
    start = time.perf_counter()
    load_litellm(online=False)
    import_ms = (time.perf_counter() - start) * 1000
    reply = "<thought>Count cases per owner.</thought><execute>SELECT OwnerId FROM Case</execute>"
    with FakeOpenAI() as server:
        server.push(*[text(reply) for _ in range(3 * calls + 2)])
        client = ModelClient("openai/fake", api_base=server.base_url, api_key="sk-bench")
        client.complete(MESSAGES)  # warm-up: first call builds litellm's HTTP client

        url = urlparse(server.base_url)
        conn = http.client.HTTPConnection(url.hostname, url.port)
        body = json.dumps({"model": "fake", "messages": MESSAGES})
        raw: list[float] = []
        for _ in range(calls):
            t = time.perf_counter()
            conn.request(
                "POST", url.path + "/chat/completions", body, {"Content-Type": "application/json"}
            )
            conn.getresponse().read()
            raw.append(time.perf_counter() - t)
        conn.close()

        plain: list[float] = []
        for _ in range(calls):
            t = time.perf_counter()
            client.complete(MESSAGES)
            plain.append(time.perf_counter() - t)

        streamed: list[float] = []
        for _ in range(calls):
            t = time.perf_counter()
            client.complete(MESSAGES, on_delta=lambda _piece: None)
            streamed.append(time.perf_counter() - t)
    return {
        "calls": calls,
        "litellm_import_ms": round(import_ms, 1),
        "raw_http_median_ms": _median_ms(raw),
        "client_median_ms": _median_ms(plain),
        "client_stream_median_ms": _median_ms(streamed),
        "client_overhead_median_ms": round(_median_ms(plain) - _median_ms(raw), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    result = bench(args.calls)
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:28} {value}")


if __name__ == "__main__":
    main()
