"""``crmtui query`` beside ``sqlite-utils query`` in a venv of its own, and what the CLI imports.

A one-line query's wall time is almost all process start: Python, the imports, opening the
file. Both tools run the same query on the same SQLite file (the sample org, built in a
temporary ``CRMTUI_HOME``): crmtui the SOQL, sqlite-utils the equivalent SQL, in alternating
rounds so that both see the same machine (``--pairs``, default 15). Printed: each side's
median wall and CPU time, the ratio of the medians and the median of the rounds' ratios
(target: crmtui ≤ 0.5x, a repeated query and a new one alike), and the machine's load before
and after.

sqlite-utils runs from a virtual environment holding nothing but sqlite-utils and its
dependencies, as a user installs it: in crmtui's own venv it would find pandas and numpy
(``datasets`` brings them) and import them, which is most of its time and flattered crmtui
(0.28x there against 1.27x lean, before the stored plans). The venv is made once under
``--cache`` (``pip install sqlite-utils``: needs the package index) unless ``--sqlite-utils``
names an executable.

crmtui is timed three times each round: ``query`` runs the plan stored by an earlier run
(``crmtui/query/soql/plan_store.py``), as any repeated query does (``--format json`` too);
``new query`` runs with the plan store emptied first, as a query never asked before: parsed
(from the generated tables, ``crmtui/query/soql/tables.py``) and compiled.

Then, for each non-TUI command, the modules it loaded (``textual``, ``rich``, ``lark``...) and
its import CPU time, from ``python -X importtime`` (``--imports``).

Usage::

    .venv/bin/python benchmarks/bench_cli.py [--pairs 15] [--sqlite-utils PATH]
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
BIN = Path(sys.executable).parent
DEFAULT_CACHE = Path.home() / ".cache" / "crmtui-bench"


def load() -> str:
    """The load average, as uptime prints it."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f}"


def lean_sqlite_utils(cache: Path) -> Path:
    """A ``sqlite-utils`` executable in a venv holding only it (made once under ``cache``)."""
    venv = cache / "sqlite-utils-venv"
    exe = venv / "bin" / "sqlite-utils"
    if not exe.exists():
        print(f"bench_cli: making a venv with only sqlite-utils in {venv}")
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "sqlite-utils"], check=True)
    return exe


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run (which must succeed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def side_by_side(
    env: dict[str, str], db: Path, utils: Path, plans: Path, pairs: int
) -> dict[str, float]:
    """Alternating rounds of crmtui (stored plan, new query) and sqlite-utils; medians."""
    crmtui = [str(BIN / "crmtui"), "query", "--org", str(db), SOQL]
    crmtui_json = [*crmtui[:-1], "--format", "json", SOQL]
    lean = [str(utils), "query", str(db), SQL]

    def new_query() -> tuple[float, float]:
        shutil.rmtree(plans, ignore_errors=True)  # not timed: the query was never asked
        return timed(crmtui, env)

    runs: dict[str, list[tuple[float, float]]] = {"crmtui": [], "json": [], "new": [], "lean": []}
    steps = {
        "crmtui": lambda: timed(crmtui, env),
        "lean": lambda: timed(lean, env),
        "json": lambda: timed(crmtui_json, env),
        "new": new_query,
    }
    for step in steps.values():  # warm the page cache and bytecode; store the plans
        step()
    for name in ("crmtui", "json"):
        steps[name]()
    for i in range(pairs):
        order = ["crmtui", "lean", "json", "new"]
        for name in order if i % 2 == 0 else order[::-1]:
            runs[name].append(steps[name]())
    out: dict[str, float] = {}
    for name, values in runs.items():
        out[f"{name}_wall_s"] = statistics.median(w for w, _ in values)
        out[f"{name}_cpu_s"] = statistics.median(c for _, c in values)
    for name in ("crmtui", "json", "new"):
        out[f"ratio_{name}"] = out[f"{name}_wall_s"] / out["lean_wall_s"]
        out[f"ratio_{name}_cpu"] = out[f"{name}_cpu_s"] / out["lean_cpu_s"]
        out[f"ratio_{name}_rounds"] = statistics.median(
            a[0] / b[0] for a, b in zip(runs[name], runs["lean"], strict=True)
        )
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
    parser.add_argument(
        "--sqlite-utils",
        type=Path,
        default=None,
        help="a sqlite-utils executable in a venv of its own (default: one made in --cache)",
    )
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--no-imports", action="store_true", help="skip the import table")
    args = parser.parse_args()
    utils = args.sqlite_utils or lean_sqlite_utils(args.cache)
    print(f"bench_cli: {load()} at the start; {os.cpu_count()} cores")
    print(f"  sqlite-utils: {utils} (a venv of its own)")
    with tempfile.TemporaryDirectory(prefix="crmtui-bench-cli-") as tmp:
        env = dict(os.environ, CRMTUI_HOME=tmp)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run(
            [str(BIN / "crmtui"), "query", "SELECT COUNT() FROM Case"],
            env=env,
            check=True,
            capture_output=True,
        )  # builds the sample org
        db = Path(tmp) / "orgs" / "sample.db"
        plans = Path(tmp) / "cache" / "soql-plans"
        result = side_by_side(env, db, utils, plans, args.pairs)
        lean_ms = f"{result['lean_wall_s'] * 1000:.0f} ms (CPU {result['lean_cpu_s'] * 1000:.0f})"
        print(f"one-line query, median of {args.pairs} alternating rounds; sqlite-utils {lean_ms}")
        for name, label in (
            ("crmtui", "crmtui query"),
            ("json", "crmtui query --format json"),
            ("new", "crmtui query, new query"),
        ):
            print(
                f"  {label:28} {result[f'{name}_wall_s'] * 1000:4.0f} ms "
                f"(CPU {result[f'{name}_cpu_s'] * 1000:3.0f}): "
                f"{result[f'ratio_{name}']:.2f}x wall, {result[f'ratio_{name}_cpu']:.2f}x CPU, "
                f"rounds' median {result[f'ratio_{name}_rounds']:.2f}x (target ≤ {TARGET_RATIO}x)"
            )
        if not args.no_imports:
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
    ok = max(result["ratio_crmtui"], result["ratio_new"]) <= TARGET_RATIO
    print(f"machine: {load()} at the end; target {'MET' if ok else 'MISSED'} (stored and new)")
    print(json.dumps({"bench": "cli", **result}, sort_keys=True))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
