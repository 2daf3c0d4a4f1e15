"""Run CI on a fresh clone while other test suites keep the same cores busy.

Issue #37 asks that ``.ci/run`` on a fresh clone pass "with two other test suites running on
the same 2 cores". This script does exactly that and reports it: it clones the repository
``--others + 1`` times, builds each other clone's venv the README's way, starts their test
suites (each restarted when it ends, so they run for the whole of CI), then runs ``.ci/run``
in the remaining clone and prints its exit code, its wall time, pytest's summary line, the
load average sampled every few seconds, and how the other suites fared.

The other suites are crmtui's own (the README's test command): the heaviest neighbour this
project knows, three xdist workers each. Their results are reported, not judged.

Usage::

    python benchmarks/bench_suite_beside.py [--repo PATH] [--others 2] [--workdir DIR] [--keep]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INSTALL = (
    "python3 -m venv .venv && .venv/bin/pip install -q uv && "
    ".venv/bin/uv pip install -q -p .venv/bin/python --compile-bytecode -e '.[test]'"
)
SUMMARY = re.compile(r"\b\d+ (passed|failed)\b.*")


class Neighbour:
    """One other clone's test suite, restarted until :meth:`stop`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.runs: list[tuple[int, float, str]] = []  # (exit code, seconds, summary line)
        self._process: subprocess.Popen[str] | None = None
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _loop(self) -> None:
        while not self._stopped.is_set():
            began = time.monotonic()
            self._process = subprocess.Popen(
                [".venv/bin/python", "-m", "pytest", "-p", "no:randomly"],
                cwd=self.folder,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                start_new_session=True,
            )
            out, _ = self._process.communicate()
            if self._stopped.is_set():
                break
            lines = [m.group(0) for m in map(SUMMARY.search, out.splitlines()) if m]
            summary = lines[-1] if lines else out.strip().splitlines()[-1:]
            self.runs.append((self._process.returncode, time.monotonic() - began, str(summary)))

    def stop(self) -> None:
        self._stopped.set()
        if self._process is not None and self._process.poll() is None:
            os.killpg(self._process.pid, signal.SIGTERM)
        self._thread.join(timeout=60)


def _clone(repo: Path, into: Path) -> None:
    subprocess.run(["git", "clone", "-q", str(repo), str(into)], check=True)


def main(argv: list[str] | None = None) -> int:
    """Run the measurement; the exit code is CI's."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=ROOT, help="repository to clone")
    parser.add_argument("--others", type=int, default=2, help="other suites beside CI")
    parser.add_argument("--workdir", type=Path, default=None, help="where the clones go")
    parser.add_argument("--keep", action="store_true", help="keep the clones afterwards")
    args = parser.parse_args(argv)

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="crmtui-beside-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"clones in {workdir}", flush=True)
    neighbours = []
    for n in range(args.others):
        folder = workdir / f"other{n + 1}"
        _clone(args.repo, folder)
        subprocess.run(INSTALL, shell=True, cwd=folder, check=True)
        neighbours.append(Neighbour(folder))
    ci_folder = workdir / "ci"
    _clone(args.repo, ci_folder)

    loads: list[float] = []
    sampling = threading.Event()

    def sample() -> None:
        while not sampling.wait(5):
            loads.append(os.getloadavg()[0])

    for neighbour in neighbours:
        neighbour.start()
    time.sleep(30)  # the neighbours past their start-up before CI begins
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    began = time.monotonic()
    env = {**os.environ, "CI": "true"}
    ci = subprocess.run(["bash", ".ci/run"], cwd=ci_folder, env=env, capture_output=True, text=True)
    wall = time.monotonic() - began
    sampling.set()
    for neighbour in neighbours:
        neighbour.stop()

    output = ci.stdout + ci.stderr
    (workdir / "ci-output.txt").write_text(output, encoding="utf-8")
    summaries = [m.group(0) for m in map(SUMMARY.search, output.splitlines()) if m]
    print(f"CI exit code   {ci.returncode}")
    print(f"CI wall time   {wall / 60:.1f} min")
    print(f"CI pytest      {summaries[-1] if summaries else '(no summary line)'}")
    if loads:
        print(
            f"load (1 min)   min {min(loads):.1f}  median {statistics.median(loads):.1f}  "
            f"max {max(loads):.1f}  ({len(loads)} samples)"
        )
    for n, neighbour in enumerate(neighbours, 1):
        done = "; ".join(f"exit {c} in {s / 60:.1f} min: {line}" for c, s, line in neighbour.runs)
        print(f"other suite {n}  {done or 'still running when CI ended (stopped)'}")
    print(f"CI's output: {workdir / 'ci-output.txt'}")
    if not args.keep:
        for folder in [ci_folder, *(n.folder for n in neighbours)]:
            shutil.rmtree(folder, ignore_errors=True)
    return ci.returncode


if __name__ == "__main__":
    sys.exit(main())
