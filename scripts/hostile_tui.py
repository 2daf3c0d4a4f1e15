"""The terminal probe of the hostile-surfaces battery: 20 MB at a real TUI, in tmux.

``crmtui play --interactive --channel`` (a person as the agent) runs in a tmux session of its
own; this process joins as the user, appends a raw 20 MB line to the channel and then says a
small message; then a 20 MB bracketed paste goes into the chat box. Measured: the time for
the small message to show, for the paste to come through (cut to the cap), the process's
memory, the echo of a key afterwards, and how soon the process ends once its terminal is
closed. Run with ``scripts/hostile_surfaces.py --only tui`` (needs tmux; a few minutes).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from hostile_common import ROOT, row

TWENTY_MB = 20 * 1024 * 1024


def _tmux(*args: str) -> str:
    done = subprocess.run(["tmux", *args], capture_output=True, text=True, check=False)
    return done.stdout


def _until(condition: Callable[[], bool], limit_s: float, step: float = 0.2) -> float | None:
    """Seconds until ``condition()`` held, or None when ``limit_s`` passed first."""
    began = time.monotonic()
    while time.monotonic() - began < limit_s:
        if condition():
            return time.monotonic() - began
        time.sleep(step)
    return None


def _status_kb(pid: int, field: str) -> int:
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def probe_tui(work: Path, home: Path) -> None:
    """20 MB at the real TUI: a raw channel line, then a paste into the chat box."""
    from crmtui.play.channel import Channel

    if shutil.which("tmux") is None:
        row("tui", "20 MB in the real TUI", "skipped: no tmux", True)
        return
    name = f"hostile-probe-{os.getpid()}"
    crmtui = Path(sys.executable).with_name("crmtui")
    command = (f"env CRMTUI_HOME={home} {crmtui} play --org sample-b2b --idx 0 --interactive "
               "--channel big --annotator ann")  # fmt: skip
    _tmux("new", "-d", "-s", name, "-x", "160", "-y", "48", "-c", str(ROOT), command)
    channel = home / "recordings" / "channels" / "big" / "0-1.channel"
    stop = threading.Event()
    pid = 0
    try:
        if _until(channel.exists, 180) is None:
            row("tui", "play --interactive --channel opens", "no channel after 180 s", False)
            return
        pid = int(_tmux("list-panes", "-t", name, "-F", "#{pane_pid}").split()[0])
        user = Channel.open(home / "recordings", "big", 0, "user", "ben", max_user_turns=10)

        def beat() -> None:
            while not stop.wait(1.0):
                with contextlib.suppress(Exception):
                    user.beat()

        threading.Thread(target=beat, daemon=True).start()

        def screen() -> str:
            return _tmux("capture-pane", "-p", "-t", name)

        big = json.dumps({"kind": "message", "role": "user", "text": "x" * TWENTY_MB})
        with channel.open("ab") as out:
            out.write((big + "\n").encode())
        user.say("small after the big one")
        shown = _until(lambda: "small after the big one" in screen(), 120)
        row("tui", "raw 20 MB channel line, then a message",
            f"the message showed after {shown if shown is None else round(shown, 1)} s; "
            f"process {_status_kb(pid, 'VmRSS') / 1024:.0f} MB", shown is not None)  # fmt: skip

        paste = work / "paste.txt"
        paste.write_text("z" * TWENTY_MB, "utf-8")
        _tmux("send-keys", "-t", name, "F4")
        _tmux("load-buffer", "-b", name, str(paste))
        _tmux("paste-buffer", "-p", "-b", name, "-t", name)
        through = _until(lambda: "zzzzzzzzzz" in screen(), 400, step=1.0)
        peak = _status_kb(pid, "VmHWM") / 1024
        row("tui", "20 MB paste into the chat box",
            f"shown after {through if through is None else round(through)} s, peak {peak:.0f} MB",
            through is not None)  # fmt: skip
        _tmux("send-keys", "-t", name, "BSpace")
        _tmux("send-keys", "-t", name, "-l", "Q")
        echo = _until(lambda: "zQ" in screen(), 30, step=0.05)
        row(
            "tui",
            "a key after the paste",
            f"echoed after {echo if echo is None else round(echo, 2)} s",
            echo is not None,
        )
    finally:
        stop.set()
        _tmux("kill-session", "-t", name)
        _tmux("delete-buffer", "-b", name)  # 20 MB held by the tmux server otherwise
    if not pid:
        return
    gone = _until(lambda: not Path(f"/proc/{pid}").exists(), 30, step=0.05)
    row("tui", "terminal closed (tmux kill-session)",
        f"the process ended after {gone if gone is None else round(gone, 2)} s",
        gone is not None)  # fmt: skip
