"""Advisory file locks across processes, and the note that says who holds one.

Four parts of crmtui keep work single across processes with ``flock``: a recording has one
writer (:mod:`crmtui.record.recorder`), an annotator's instance one live session
(:mod:`crmtui.record.claims`), an output folder one ``crmtui run``
(:mod:`crmtui.agent.out_lock`), and the served copies take turns to start
(:mod:`crmtui.ui.standby`). The kernel drops a lock when its process exits, however it
exits, so no lock outlives a dead holder. Where ``flock`` does not exist (Windows) every
lock is granted: the callers say what they do instead.

A lock file may hold a *holder note* (:func:`write_holder`): pid, host, start time and
command, which a process turned away names in its message (:func:`holder_text`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import socket
import sys
from typing import Any

try:  # POSIX only
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["FLOCK", "holder_text", "read_holder", "try_lock", "write_holder"]

#: Whether locks are enforced here (False on Windows: :func:`try_lock` always grants).
FLOCK = fcntl is not None


def try_lock(fd: int, *, shared: bool = False) -> bool:
    """Take an exclusive (or ``shared``) lock on ``fd`` without waiting.

    Returns:
        True when taken (always, where ``flock`` does not exist); False when another open
        file holds a lock that excludes it. The lock goes with ``fd``'s closing.
    """
    if fcntl is None:  # pragma: no cover - Windows
        return True
    try:
        fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def write_holder(fd: int) -> None:
    """Write this process's holder note into the locked file ``fd`` (replacing it).

    Raises:
        OSError: It cannot be written (the caller decides whether that matters).
    """
    info = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "command": " ".join(["crmtui", *sys.argv[1:]])[:300],
    }
    os.ftruncate(fd, 0)
    os.pwrite(fd, (json.dumps(info) + "\n").encode("utf-8"), 0)


def read_holder(fd: int) -> dict[str, Any]:
    """The holder note in ``fd`` ({}: none, or unreadable)."""
    try:
        data = json.loads(os.pread(fd, 4096, 0).decode("utf-8", "replace"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def holder_text(info: dict[str, Any]) -> str:
    """A holder note in words: ``pid 123 on host since 2026-... (crmtui run ...)``."""
    parts = [f"pid {info.get('pid', '?')}"]
    if info.get("host"):
        parts.append(f"on {info['host']}")
    if info.get("started_at"):
        parts.append(f"since {info['started_at']}")
    text = " ".join(parts)
    if info.get("command"):
        text += f" ({info['command']})"
    return text
