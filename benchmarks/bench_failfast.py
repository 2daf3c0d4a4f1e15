"""Time how fast a misconfigured ``crmtui run`` gives up (target: under 3 s, no retries).

Three mistakes, each run as a real ``crmtui run`` child process on the sample org: the API key
variable is missing, ``--api-base`` refuses connections, and the server there refuses the key
(HTTP 401). Each prints one ``Error:`` line and exits with status 2 before the first instance.

Usage::

    .venv/bin/python benchmarks/bench_failfast.py [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes.openai_server import FakeOpenAI  # noqa: E402


def _crmtui() -> list[str]:
    script = Path(sys.executable).with_name("crmtui")
    return [str(script)] if script.exists() else [sys.executable, "-m", "crmtui.cli"]


def _time(argv: list[str], env: dict[str, str], repeat: int) -> tuple[list[float], str, int]:
    times, last, code = [], "", 0
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=ROOT)
        times.append(time.perf_counter() - start)
        last, code = (
            done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "",
            done.returncode,
        )
    return times, last, code


def main(argv: list[str] | None = None) -> int:
    """Run each mistake ``--repeat`` times and print the median seconds to exit."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="crmtui-bench-") as tmp:
        home = Path(tmp) / "home"
        env = dict(os.environ, CRMTUI_HOME=str(home))
        env.pop("OPENAI_API_KEY", None)
        # Build the sample org once, so the timings below are about the checks only.
        subprocess.run([*_crmtui(), "org", "info"], env=env, capture_output=True, check=True)
        base = [*_crmtui(), "run", "--limit", "3", "--out", str(Path(tmp) / "out")]
        with FakeOpenAI() as dead:
            refused_url = dead.base_url
        with FakeOpenAI(require_key="sk-the-right-key") as strict:
            cases = [
                ("missing OPENAI_API_KEY", [*base, "--model", "openai/gpt-4o-mini"], env),
                (
                    "--api-base refuses connections",
                    [*base, "--model", "openai/local", "--api-base", refused_url],
                    dict(env, OPENAI_API_KEY="sk-anything"),
                ),
                (
                    "server refuses the key (401)",
                    [*base, "--model", "openai/local", "--api-base", strict.base_url],
                    dict(env, OPENAI_API_KEY="sk-wrong-key"),
                ),
            ]
            print(f"{'mistake':34} {'median s':>9} {'max s':>7}  exit  message")
            worst = 0.0
            for name, command, case_env in cases:
                times, message, code = _time(command, case_env, args.repeat)
                worst = max(worst, statistics.median(times))
                print(
                    f"{name:34} {statistics.median(times):9.2f} {max(times):7.2f}  {code:4}  "
                    f"{message[:70]}"
                )
    print(f"target: every mistake exits in < 3 s (worst median {worst:.2f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
