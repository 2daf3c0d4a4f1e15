"""``crmtui query`` beside ``sqlite-utils query`` on the same org file, and what the CLI imports.

A one-line query's wall time is almost all process start: Python, the imports, opening the
file. Both tools run the same query on the same SQLite file (the sample org, built in a
temporary ``CRMTUI_HOME``): crmtui the SOQL, sqlite-utils the equivalent SQL, in alternating
pairs so that both see the same machine (``--pairs``, default 15). Printed: each side's
median wall time, their ratio (target: crmtui ≤ 0.5x), and the CPU of each.

sqlite-utils imports pandas and numpy whenever they are installed (here they are: ``datasets``
brings them), which is most of its time; it is also timed with them hidden, as it runs in an
environment of its own, and crmtui's ratio to that printed beside the target's.

Then, for each non-TUI command, the modules it loaded (``textual``, ``rich``, ``lark``...) and
its import CPU time, from ``python -X importtime`` (``--imports``).

sqlite-utils is not a crmtui dependency: ``.venv/bin/pip install sqlite-utils`` first.
Usage::

    .venv/bin/python benchmarks/bench_cli.py [--pairs 15]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SOQL = "SELECT Id, Subject FROM Case WHERE Status = 'Closed' LIMIT 50"
SQL = "SELECT Id, Subject FROM \"Case\" WHERE Status = 'Closed' LIMIT 50"
TARGET_RATIO = 0.5
NO_PANDAS = (
    "import sys; sys.modules['pandas'] = sys.modules['numpy'] = None; "
    "sys.argv[0] = 'sqlite-utils'; from sqlite_utils.cli import cli; cli()"
)
BIN = Path(sys.executable).parent


def load() -> str:
    """The load average, as uptime prints it."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f}"


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run (which must succeed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def side_by_side(env: dict[str, str], db: Path, pairs: int) -> dict[str, float]:
    """Alternating runs of both tools; medians."""
    crmtui = [str(BIN / "crmtui"), "query", "--org", str(db), SOQL]
    crmtui_json = [*crmtui[:-1], "--format", "json", SOQL]
    utils = [str(BIN / "sqlite-utils"), "query", str(db), SQL]
    # sqlite-utils imports pandas (and numpy) when they are installed, as they are here
    # (datasets brings them): the same tool in an environment without them.
    lean = [sys.executable, "-c", NO_PANDAS, "query", str(db), SQL]
    for command in (crmtui, crmtui_json, utils, lean):  # warm the page cache and bytecode
        timed(command, env)
    runs: dict[str, list[tuple[float, float]]] = {"crmtui": [], "json": [], "utils": [], "lean": []}
    for i in range(pairs):
        order = [("crmtui", crmtui), ("utils", utils), ("json", crmtui_json), ("lean", lean)]
        for name, command in order if i % 2 == 0 else order[::-1]:
            runs[name].append(timed(command, env))
    out = {}
    for name, values in runs.items():
        out[f"{name}_wall_s"] = statistics.median(w for w, _ in values)
        out[f"{name}_cpu_s"] = statistics.median(c for _, c in values)
    out["ratio"] = out["crmtui_wall_s"] / out["utils_wall_s"]
    out["ratio_json"] = out["json_wall_s"] / out["utils_wall_s"]
    out["ratio_lean"] = out["crmtui_wall_s"] / out["lean_wall_s"]
    return out


HEAVY = ("textual", "rich", "lark", "crmtui.query.soql.compiler", "litellm", "datasets")


def imports(env: dict[str, str], args: list[str]) -> tuple[float, list[str]]:
    """Import time (ms, summed self times) and heavy modules of ``crmtui ARGS``."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "crmtui.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    total, loaded = 0, set()
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, _, name = line[len("import time:") :].split("|")
        total += int(self_us)
        loaded.add(name.strip())
    return total / 1000, [m for m in HEAVY if m in loaded]


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--pairs", type=int, default=15)
    args = parser.parse_args()
    if shutil.which("sqlite-utils", path=str(BIN)) is None:
        print("Error: sqlite-utils is not installed here (.venv/bin/pip install sqlite-utils)")
        return 1
    print(f"bench_cli: {load()} at the start; {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="crmtui-bench-cli-") as tmp:
        env = dict(os.environ, CRMTUI_HOME=tmp)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run(
            [str(BIN / "crmtui"), "org", "list"], env=env, check=True, capture_output=True
        )
        subprocess.run(
            [str(BIN / "crmtui"), "query", "SELECT COUNT() FROM Case"],
            env=env,
            check=True,
            capture_output=True,
        )  # builds the sample org
        db = Path(tmp) / "orgs" / "sample.db"
        result = side_by_side(env, db, args.pairs)
        print(
            f"one-line query, median of {args.pairs} alternating runs: crmtui query "
            f"{result['crmtui_wall_s'] * 1000:.0f} ms (CPU {result['crmtui_cpu_s'] * 1000:.0f}), "
            f"--format json {result['json_wall_s'] * 1000:.0f} ms; sqlite-utils query "
            f"{result['utils_wall_s'] * 1000:.0f} ms (CPU {result['utils_cpu_s'] * 1000:.0f}): "
            f"{result['ratio']:.2f}x (json {result['ratio_json']:.2f}x; target ≤ {TARGET_RATIO}x)"
        )
        print(
            f"  sqlite-utils without pandas/numpy (as in a venv of its own): "
            f"{result['lean_wall_s'] * 1000:.0f} ms (CPU {result['lean_cpu_s'] * 1000:.0f}): "
            f"crmtui {result['ratio_lean']:.2f}x of it"
        )
        commands = {
            "query": ["query", "--org", str(db), SOQL],
            "verify": ["verify", str(Path(tmp) / "missing.jsonl")],
            "tasks list": ["tasks", "list"],
            "report": ["report"],
            "study list": ["study", "list"],
            "--help": ["--help"],
        }
        result["imports"] = {}
        for label, argv in commands.items():
            ms, heavy = imports(env, argv)
            result["imports"][label] = {"ms": ms, "heavy": heavy}
            loads = ", ".join(heavy) or "none of " + "/".join(HEAVY[:3])
            print(f"  crmtui {label}: imports {ms:.0f} ms; loads {loads}")
    ok = result["ratio"] <= TARGET_RATIO
    print(f"machine: {load()} at the end; target {'MET' if ok else 'MISSED'}")
    print(json.dumps({"bench": "cli", **result}, sort_keys=True))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
