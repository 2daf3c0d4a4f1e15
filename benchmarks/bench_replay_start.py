"""Benchmark `crmtui replay FILE`'s cold start: seconds until its first frame is drawn.

Spawns ``crmtui replay`` on a shipped example recording of the sample org in a 160x48
pseudo-terminal (as a user's terminal runs it) and waits for the replay screen's status bar;
``crmtui play``'s picker and a bare Textual app are spawned in the same rounds, so all three
see the same machine load::

    .venv/bin/python benchmarks/bench_replay_start.py              # 5 rounds
    .venv/bin/python benchmarks/bench_replay_start.py --runs 3 --json

Replaying a recording of the sample org reads the instance from a local JSON file; it must
not import ``datasets`` or pandas (they cost 1-2 s here), so replay should start about as
fast as the picker. Wall time counts other processes' turns on a shared machine: the child's
CPU seconds at the first frame are reported beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.coldstart import BARE_APP, env, prepare_sample, spawn_until_mark  # noqa: E402
from tests.ptyproc import crmtui_argv  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: The shipped human example (its name changes whenever scripts/make_examples.py re-runs).
RECORDING = min((ROOT / "recordings" / "example-annotator").glob("*.jsonl"))
#: Drawn by the replay screen's status bar once the recording, org and task are loaded.
REPLAY_MARK = b"REPLAY"


def measure(home: Path, runs: int, recording: Path) -> dict[str, list[float]]:
    """Interleaved cold starts after one uncounted round; lists of seconds per kind."""
    out: dict[str, list[float]] = {}
    for round_ in range(runs + 1):
        with tempfile.TemporaryDirectory(prefix="crmtui-bench-replay-") as tmp:
            cwd = Path(tmp)
            spawns = {
                "replay": ([*crmtui_argv(), "replay", str(recording)], REPLAY_MARK),
                "picker": (
                    [*crmtui_argv(), "play", "--annotator", "bench", "--recordings", tmp],
                    b"Annotator:",
                ),
                "bare": ([sys.executable, "-c", BARE_APP], b"Annotator:"),
            }
            results = {
                name: spawn_until_mark(argv, env(home), cwd, mark)
                for name, (argv, mark) in spawns.items()
            }
        if not round_:
            continue  # the warm-up: bytecode written, files in the page cache
        for name, result in results.items():
            out.setdefault(f"{name}_s", []).append(float(result["seen"] or 0))
            if result["cpu"] is not None:
                out.setdefault(f"{name}_cpu_s", []).append(result["cpu"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="counted rounds")
    parser.add_argument("--recording", type=Path, default=RECORDING)
    parser.add_argument("--json", action="store_true", help="print the raw figures as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="crmtui-bench-home-") as home_dir:
        home = Path(home_dir)
        prepare_sample(home)
        figures = measure(home, args.runs, args.recording)
    load = os.getloadavg()[0]
    if args.json:
        print(json.dumps({"load_1min": load, **figures}, indent=2))
        return
    print(f"cold start to first frame, {args.runs} rounds, 1-min load {load:.2f}")
    for name in ("replay", "picker", "bare"):
        wall = figures.get(f"{name}_s", [])
        cpu = figures.get(f"{name}_cpu_s", [])
        line = f"  {name:<7} median {statistics.median(wall):.2f} s wall"
        if cpu:
            line += f", {statistics.median(cpu):.2f} s CPU"
        print(line + f"  (min {min(wall):.2f}, max {max(wall):.2f})")


if __name__ == "__main__":
    main()
