"""Run one ``crmtui`` command in a fresh interpreter: its CPU time and the modules it loaded.

The import-time budget tests (``test_*_import_budget.py``) state what a non-TUI command may
load and how much CPU it may take in all: a one-line ``crmtui query`` was 1.2x the wall
time of ``sqlite-utils query``, nearly all of it imports (benchmarks/bench_cli.py).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from collections.abc import Callable

#: Modules no non-TUI command loads unless it draws with them.
TUI = ("textual", "litellm", "datasets")

_PROBE = (
    "import json, sys\n"
    "from crmtui.cli import main\n"
    "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
    "sys.stdout.flush()\n"
    "print('\\nMODULES=' + json.dumps(sorted(sys.modules)))\n"
)


def run_command(
    *args: str, before: Callable[[], None] | None = None
) -> tuple[float, set[str], str]:
    """CPU seconds of the whole process, the modules loaded, and what it printed.

    Run twice, the second measured: the first writes the bytecode an installed crmtui has.
    ``before`` runs before each run (say, to empty a cache the first run filled).
    """
    for _ in range(2):
        if before is not None:
            before()
        measured = _run(args)
    return measured


def _run(args: tuple[str, ...]) -> tuple[float, set[str], str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    out, _, modules = done.stdout.rpartition("\nMODULES=")
    return cpu, set(json.loads(modules)), out + done.stderr


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    """Which of ``names`` (packages or modules) were loaded."""
    return [n for n in names if n in modules]
