"""Benchmark the engine's guards: error checks, refusing huge input, budgets and cancel.

Targets (issue #14):

* the error boundary and limit checks add < 0.05 ms to parse+compile (median over the
  36 queries of ``bench_query.py``), measured A/B against a baseline commit's engine: both
  trees run in child processes, interleaved, on the same org and queries;
* a 1 MB SOSL text is refused in < 50 ms;
* cancel returns control in < 200 ms (a heavy query on the largest org at hand, cancelled
  from another thread while SQLite works);
* the stress org's 7-column OrderItem join is bounded by the default budget (time and the
  2,000,000-value cap) instead of running for tens of seconds and taking gigabytes.

::

    .venv/bin/python benchmarks/bench_limits.py                    # full org; baseline: main
    .venv/bin/python benchmarks/bench_limits.py --baseline 608c964 --org stress-7
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HEAVY = (
    "SELECT Id, Quantity, UnitPrice, Order.Status, Order.EffectiveDate, Product2.Name, "
    "Order.Account.Name FROM OrderItem"
)

# Child program: cold parse+compile time of the 36 bench_query queries, one median each.
_COMPILE_CHILD = """
import json, statistics, sqlite3, sys
sys.path.insert(0, sys.argv[2])
import bench_query
from crmtui.org.store import Org
from crmtui.query import run
from crmtui.query.soql.engine import PLAN_CACHE
from crmtui.query.sosl.parser import clear_parse_cache
org = Org.open(sys.argv[1])
conn = sqlite3.connect(f"file:{org.path}?mode=ro", uri=True)
queries, today = bench_query.build_queries(conn)
out = {}
for name, text, _ in queries:
    samples = []
    for _ in range(int(sys.argv[3])):
        PLAN_CACHE.clear(); clear_parse_cache()
        samples.append(run(org, text, today=today).compile_ms)
    out[name] = statistics.median(samples)
print(json.dumps(out))
"""


def _org_path(spec: str | None) -> Path:
    from crmtui.org.sample import open_org_or_sample

    return Path(open_org_or_sample(spec).path)


def _baseline_tree(ref: str, into: Path) -> Path:
    """Extract ``crmtui/`` of commit ``ref`` (read-only: git archive, no worktree)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "crmtui"], capture_output=True, check=True
    ).stdout
    path = into / "archive.tar"
    path.write_bytes(archive)
    with tarfile.open(path) as tar:
        tar.extractall(into, filter="data")
    return into


def _compile_medians(tree: Path, org: Path, repeats: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, "-c", _COMPILE_CHILD, str(org), str(ROOT / "benchmarks"), str(repeats)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=tempfile.gettempdir(),  # never pick up ./crmtui from the working directory
    )
    return json.loads(out.stdout)


def compile_overhead(org: Path, baseline: str, rounds: int, repeats: int) -> dict[str, Any]:
    """Median parse+compile over the 36 queries: this tree vs ``baseline``, interleaved."""
    with tempfile.TemporaryDirectory() as tmp:
        base = _baseline_tree(baseline, Path(tmp))
        ours: list[float] = []
        theirs: list[float] = []
        deltas: list[float] = []
        for _ in range(rounds):
            new = _compile_medians(ROOT, org, repeats)
            old = _compile_medians(base, org, repeats)
            ours.append(statistics.median(new.values()))
            theirs.append(statistics.median(old.values()))
            deltas.append(statistics.median(new[k] - old[k] for k in new))
    return {
        "compile_ms_median": statistics.median(ours),
        "baseline_compile_ms_median": statistics.median(theirs),
        "added_ms_median": statistics.median(deltas),
        "target_added_ms": 0.05,
    }


def refuse_megabyte(org: Any) -> dict[str, Any]:
    """Time to refuse a 1 MB SOSL text (and a 1 MB SOQL text)."""
    from crmtui.query import QueryError, run

    results = {}
    for name, text in (
        ("sosl", "FIND {" + "x" * 1_000_000 + "}"),
        ("soql", "SELECT Id FROM Case WHERE Subject = '" + "x" * 1_000_000 + "'"),
    ):
        samples = []
        for _ in range(20):
            started = time.perf_counter()
            with contextlib.suppress(QueryError):
                run(org, text)
            samples.append((time.perf_counter() - started) * 1000)
        results[f"refuse_1mb_{name}_ms"] = statistics.median(samples)
    results["target_ms"] = 50.0
    return results


def cancel_latency(org: Any, after_s: float = 0.3, tries: int = 5) -> dict[str, Any]:
    """Cancel a heavy query from another thread; time until ``run`` returns."""
    from crmtui.query import QueryBudget, QueryError, run
    from crmtui.query.budget import UNLIMITED

    latencies = []
    outcome = ""
    for _ in range(tries):
        cancel = threading.Event()
        done: dict[str, float] = {}

        def work(cancel: threading.Event = cancel, done: dict[str, float] = done) -> None:
            try:
                run(org, HEAVY, budget=QueryBudget(timeout_s=None, max_cells=None, cancel=cancel))
            except QueryError as exc:
                done["code"] = 1.0 if exc.code == "QUERY_TIMEOUT" else 0.0
            done["at"] = time.perf_counter()

        thread = threading.Thread(target=work)
        thread.start()
        time.sleep(after_s)
        pressed = time.perf_counter()
        cancel.set()
        thread.join()
        if "at" in done and done["at"] > pressed:
            latencies.append((done["at"] - pressed) * 1000)
            outcome = "cancelled" if done.get("code") == 1.0 else "finished first"
    started = time.perf_counter()
    run(org, "SELECT COUNT() FROM OrderItem", budget=UNLIMITED)
    return {
        "cancel_ms_median": statistics.median(latencies) if latencies else None,
        "cancel_ms_max": max(latencies) if latencies else None,
        "outcome": outcome,
        "next_query_ms": (time.perf_counter() - started) * 1000,
        "target_ms": 200.0,
    }


def heavy_join(org: Path) -> dict[str, Any]:
    """The 7-column OrderItem join under the default budget, in a fresh process."""
    code = (
        "import json, resource, sys, time\n"
        "from crmtui.org.store import Org\n"
        "from crmtui.query import QueryError, run\n"
        f"org = Org.open({str(org)!r})\n"
        "t = time.perf_counter()\n"
        "try:\n"
        f"    r = run(org, {HEAVY!r}); out = f'ok {{r.total_size}} rows'\n"
        "except QueryError as e:\n"
        "    out = e.code\n"
        "print(json.dumps({'outcome': out, 'seconds': time.perf_counter() - t,\n"
        "    'max_rss_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return json.loads(out.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--org", default=None, help="org for compile/cancel (default: full-7)")
    parser.add_argument("--heavy-org", default=None, help="org for the heavy join (stress-7)")
    parser.add_argument("--baseline", default="main", help="commit to compare compile with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    from crmtui.org.store import Org

    org_path = _org_path(args.org or "full-7")
    org = Org.open(org_path)
    summary: dict[str, Any] = {"org": str(org_path)}
    summary["compile"] = compile_overhead(org_path, args.baseline, args.rounds, args.repeats)
    summary["refuse"] = refuse_megabyte(org)
    summary["cancel"] = cancel_latency(org)
    heavy = args.heavy_org or "stress-7"
    try:
        summary["heavy_join"] = {"org": heavy, **heavy_join(_org_path(heavy))}
    except Exception as exc:  # noqa: BLE001 - the stress org is optional (45 s to build)
        summary["heavy_join"] = {"skipped": f"{heavy}: {exc}"}
    summary["load_average"] = os.getloadavg()
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        for section, values in summary.items():
            print(f"{section}: {values}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
