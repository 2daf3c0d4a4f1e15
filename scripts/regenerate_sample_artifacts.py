"""Regenerate everything drawn from the built-in sample org (run from the repository root).

Usage: python scripts/regenerate_sample_artifacts.py [--skip examples,snapshots,screenshots]

A change to the generator changes the sample org, and with it three kinds of committed files.
This script rebuilds them in the order they depend on each other:

1. ``recordings/``: the shipped example recordings (``scripts/make_examples.py``); the replay
   snapshots and screenshots show them;
2. ``tests/ui/__snapshots__/``: the SVG snapshot tests (``pytest --snapshot-update`` on the
   test files that take snapshots);
3. ``assets/``: the documentation screenshots (``scripts/screenshots.py`` and
   ``scripts/study_screenshots.py``).

Each step runs in a fresh process with this interpreter; the script stops at the first step
that fails and says which. Review the result with ``git status`` / ``git diff --stat``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The test files whose SVG snapshots show sample-org data.
SNAPSHOT_TESTS = (
    "tests/ui/test_play_snapshots.py",
    "tests/ui/test_replay.py",
    "tests/ui/test_replay_compact.py",
    "tests/ui/test_compare_report.py",
    "tests/ui/test_study_play.py",
)
STEPS: dict[str, list[list[str]]] = {
    "examples": [["scripts/make_examples.py"]],
    "snapshots": [["-m", "pytest", "-q", "-n", "0", "--snapshot-update", *SNAPSHOT_TESTS]],
    "screenshots": [["scripts/screenshots.py"], ["scripts/study_screenshots.py"]],
}


def main(argv: list[str] | None = None) -> int:
    """Run the steps; the exit status is 0 when all of them succeeded."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--skip", default="", help="comma-separated steps to leave out: " + ", ".join(STEPS)
    )
    args = parser.parse_args(argv)
    skip = {name.strip() for name in args.skip.split(",") if name.strip()}
    unknown = skip - set(STEPS)
    if unknown:
        print(f"Error: unknown step(s) {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    for name, commands in STEPS.items():
        if name in skip:
            continue
        for command in commands:
            started = time.perf_counter()
            print(f"== {name}: {' '.join(command)}", flush=True)
            done = subprocess.run([sys.executable, *command], cwd=ROOT)
            if done.returncode != 0:
                print(f"Error: step {name!r} failed (exit {done.returncode})", file=sys.stderr)
                return 1
            print(f"   done in {time.perf_counter() - started:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
