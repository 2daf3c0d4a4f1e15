"""Cold start in a pseudo-terminal: spawn a program until a mark reaches the screen.

Shared by the benchmarks that compare crmtui's start with a bare Textual app's
(``bench_play.py --only start``). Each spawn reports wall time to the mark and the CPU
time the child had used by then (read from ``/proc``), because on a shared machine the
wall time also counts other processes' turns on the cores.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.ptyproc import PtyProcess, crmtui_argv, terminal_env  # noqa: E402

FIRST_FRAME_MARK = b"Annotator:"
#: The picker's table header: with it the picker is drawn whole. (Before the picker became
#: the app's first screen, "Annotator:" reached the terminal in a first frame without the
#: filter or the table, ~40 ms before them: timing to it alone flattered the start.)
PICKER_TABLE_MARK = b"query"

#: The floor: a Textual app with one Label and a Footer, started the same way.
BARE_APP = """
from textual.app import App
from textual.widgets import Footer, Label

class Bare(App):
    def compose(self):
        yield Label("Annotator: bare")
        yield Footer()

Bare().run()
"""


def env(home: Path) -> dict[str, str]:
    """A terminal environment with ``CRMTUI_HOME`` at ``home`` and no network for datasets.

    Bytecode is cached as on any installed machine: a sandbox that sets
    ``PYTHONDONTWRITEBYTECODE`` would make every start compile crmtui's modules from source
    (~30 ms of CPU per 25 modules here) while Textual's come precompiled from pip, which
    measures the sandbox rather than the start. The first, uncounted round writes the cache.
    """
    environ = terminal_env(home, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    environ.pop("PYTHONDONTWRITEBYTECODE", None)
    return environ


def prepare_sample(home: Path) -> None:
    """Build the sample org in ``home`` once (a child process, so this one stays clean)."""
    code = "from crmtui.org.sample import ensure_sample; ensure_sample()"
    subprocess.run([sys.executable, "-c", code], env=env(home), check=True)


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds ``pid`` has used (None off Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def spawn_until_mark(
    argv: list[str],
    environ: dict[str, str],
    cwd: Path,
    mark: bytes = FIRST_FRAME_MARK,
    *also: bytes,
) -> dict[str, float | None]:
    """Spawn ``argv`` in a pseudo-terminal; seconds until ``mark`` (and every mark in
    ``also``) is drawn.

    Returns:
        ``seen`` (wall seconds to the mark), ``first_byte`` (to the first output) and
        ``cpu`` (the child's CPU seconds when the mark was seen; 10 ms resolution).
    """
    child = PtyProcess(argv, env=environ, cwd=cwd)
    try:
        seen = max(child.wait_for(each, timeout=60) for each in (mark, *also))
        cpu = _cpu_seconds(child.proc.pid)
        assert child.first_byte is not None
        return {"seen": seen, "first_byte": child.first_byte - child.started, "cpu": cpu}
    finally:
        child.quit()


def cold_starts(home: Path, runs: int, args: list[str] | None = None) -> dict[str, Any]:
    """Spawn ``crmtui play`` and the bare app ``runs`` times each, interleaved, after one
    uncounted round of each.

    Both see the same machine load. Returns lists of seconds: ``picker_s`` (crmtui to
    its first frame), ``first_byte_s``, ``picker_cpu_s``, ``bare_s`` and ``bare_cpu_s``.
    """
    out: dict[str, list[float]] = {
        "picker_s": [],
        "first_byte_s": [],
        "picker_cpu_s": [],
        "bare_s": [],
        "bare_cpu_s": [],
    }
    for round_ in range(runs + 1):
        with tempfile.TemporaryDirectory(prefix="crmtui-bench-start-") as tmp:
            bare = spawn_until_mark([sys.executable, "-c", BARE_APP], env(home), Path(tmp))
            argv = [*crmtui_argv(), "play", "--annotator", "bench", "--recordings", tmp]
            started = spawn_until_mark(
                [*argv, *(args or [])], env(home), Path(tmp), FIRST_FRAME_MARK, PICKER_TABLE_MARK
            )
        if not round_:
            continue  # the warm-up: bytecode written, files in the page cache
        out["bare_s"].append(float(bare["seen"] or 0))
        out["picker_s"].append(float(started["seen"] or 0))
        out["first_byte_s"].append(float(started["first_byte"] or 0))
        if bare["cpu"] is not None and started["cpu"] is not None:
            out["bare_cpu_s"].append(bare["cpu"])
            out["picker_cpu_s"].append(started["cpu"])
    return out
