"""Batch throughput and per-step harness overhead against the local fake OpenAI server.

A scripted 5-step agent (four real queries, then the gold answer) runs over the sample org's
90 instances with ``run_batch`` at several concurrencies, optionally with a simulated model
latency per reply. Reported per run: wall time, instances/second, and the harness overhead per
step = (wall time - time inside ``ModelClient.complete``) / steps at concurrency 1, i.e. query
execution, parsing, scoring and recording, excluding the model call.

Run: ``.venv/bin/python benchmarks/bench_batch.py [--instances 90] [--steps 5]
[--concurrency 1 4 8] [--latency-ms 0 100] [--fsync] [--json]``
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crmtui.agent import client as client_module  # noqa: E402
from crmtui.agent.batch import BatchConfig, run_batch  # noqa: E402
from tests.unit.batch.scripted import RoutingFake, solving_script  # noqa: E402


class _ModelTime:
    """Adds up the time spent inside ModelClient.complete, across threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seconds = 0.0
        self.calls = 0
        self._original = client_module.ModelClient.complete

    def install(self) -> None:
        original, meter = self._original, self

        def timed(self: Any, *args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(self, *args, **kwargs)
            finally:
                with meter.lock:
                    meter.seconds += time.perf_counter() - start
                    meter.calls += 1

        client_module.ModelClient.complete = timed  # type: ignore[method-assign]

    def reset(self) -> None:
        with self.lock:
            self.seconds, self.calls = 0.0, 0


def _scripts(tasks: list[Any], steps: int, latency_s: float) -> dict[Any, list[Any]]:
    scripts = {}
    for inst in tasks:
        replies = solving_script(inst, "react", steps)
        for reply in replies:
            reply.delay_s = latency_s
        scripts[inst] = replies
    return scripts


def bench(
    instances: int, steps: int, concurrencies: list[int], latencies_ms: list[float], fsync: bool
) -> list[dict[str, Any]]:
    from crmtui.agent.client import load_litellm
    from crmtui.data.loaders import load_tasks
    from crmtui.org.build import build_org
    from crmtui.org.store import Org

    os.environ.setdefault("OPENAI_API_KEY", "sk-bench-dummy")
    load_litellm(online=False)
    meter = _ModelTime()
    meter.install()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="crmtui-bench-batch-") as tmp:
        root = Path(tmp)
        built = build_org(root / "sample.db", seed=7, scale="small", name="sample")
        org = Org.open(built.path)
        taskset = load_tasks(str(built.tasks_path))
        chosen = list(taskset)[:instances]
        # Warm-up (discarded): litellm builds its HTTP client and caches on first use.
        warm = chosen[:3]
        server = RoutingFake(_scripts(warm, steps, 0.0)).start()
        try:
            run_batch(
                BatchConfig(
                    model="openai/fake",
                    out=root / "warm-up",
                    api_base=server.base_url,
                    idxs=tuple(i.idx for i in warm),
                    fsync=fsync,
                ),
                org=org,
                tasks=taskset,
            )
        finally:
            server.stop()
        for latency in latencies_ms:
            base_wall = None
            for k in concurrencies:
                server = RoutingFake(_scripts(chosen, steps, latency / 1000)).start()
                try:
                    config = BatchConfig(
                        model="openai/fake",
                        tasks=str(built.tasks_path),
                        org=str(built.path),
                        out=root / f"out-{latency:g}-{k}",
                        api_base=server.base_url,
                        concurrency=k,
                        idxs=tuple(i.idx for i in chosen),
                        fsync=fsync,
                        timeout=30,
                    )
                    meter.reset()
                    start = time.perf_counter()
                    report = run_batch(config, org=org, tasks=taskset)
                    wall = time.perf_counter() - start
                finally:
                    server.stop()
                total_steps = meter.calls
                assert report.tally.finished == len(chosen), report.tally
                assert report.tally.reward_sum == len(chosen), "scripted agent must solve all"
                base_wall = base_wall or wall
                row = {
                    "latency_ms": latency,
                    "concurrency": k,
                    "instances": len(chosen),
                    "steps": total_steps,
                    "wall_s": round(wall, 3),
                    "instances_per_s": round(len(chosen) / wall, 2),
                    "speedup_vs_k1": round(base_wall / wall, 2),
                    "model_call_ms_per_step": round(meter.seconds / total_steps * 1000, 3),
                }
                if k == 1:
                    overhead = (wall - meter.seconds) / total_steps * 1000
                    row["harness_overhead_ms_per_step"] = round(overhead, 3)
                rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=90)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 8])
    parser.add_argument("--latency-ms", type=float, nargs="+", default=[0, 100])
    parser.add_argument("--fsync", action="store_true", help="fsync every event (the default)")
    parser.add_argument("--json", action="store_true", help="print one JSON list")
    args = parser.parse_args()
    rows = bench(args.instances, args.steps, args.concurrency, args.latency_ms, args.fsync)
    if args.json:
        print(json.dumps(rows))
        return
    for row in rows:
        print("  ".join(f"{key}={value}" for key, value in row.items()))


if __name__ == "__main__":
    main()
