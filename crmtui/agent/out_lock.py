"""One ``crmtui run`` per output folder at a time.

Two runs on one ``--out`` used to pay for every instance twice and drop each other's
results. :class:`OutLock` holds an exclusive ``flock`` on ``OUT/.crmtui-run.lock`` for the
whole run and writes who holds it (pid, host, start time, command) into the file, so a
second run can say who is in the way. The kernel releases the lock when its process dies,
so a lock left by a killed run is simply taken over; on systems without ``flock`` a lock
file naming a dead pid on this host is taken over too.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
from pathlib import Path
from types import TracebackType
from typing import Any

from crmtui.errors import ConfigError
from crmtui.flock import FLOCK, holder_text, try_lock, write_holder

__all__ = ["LOCK_NAME", "OutInUse", "OutLock"]

LOCK_NAME = ".crmtui-run.lock"


class OutInUse(ConfigError):
    """Another live run holds the output folder."""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class OutLock:
    """Exclusive hold on an output folder; use as a context manager.

    Args:
        out: The output folder (created if missing).

    Raises:
        OutInUse: On enter, when another live run holds the folder (the message names it).
    """

    def __init__(self, out: Path) -> None:
        self.path = Path(out) / LOCK_NAME
        self._fd: int | None = None

    def read(self) -> dict[str, Any]:
        """What the lock file says about its holder (empty when unreadable)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def acquire(self) -> None:
        """Take the folder (see class docstring).

        Raises:
            OutInUse: Another live run holds it.
            ConfigError: The folder cannot be created or written (``/proc/x``, a read-only
                or full disk).
        """
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise ConfigError(
                f"cannot write to the output folder {self.path.parent}: {exc.strerror or exc}"
            ) from None
        if not try_lock(fd):
            os.close(fd)
            raise self._in_use()
        if not FLOCK:  # pragma: no cover - Windows: trust the recorded pid
            holder = self.read()
            pid = holder.get("pid")
            same_host = holder.get("host") == socket.gethostname()
            if isinstance(pid, int) and pid != os.getpid() and (not same_host or _alive(pid)):
                os.close(fd)
                raise self._in_use()
        try:
            write_holder(fd)
        except OSError as exc:
            os.close(fd)
            raise ConfigError(
                f"cannot write to the output folder {self.path.parent}: {exc.strerror or exc}"
            ) from None
        self._fd = fd

    def _in_use(self) -> OutInUse:
        return OutInUse(
            f"{self.path.parent} is in use by another crmtui run: {holder_text(self.read())}; "
            "wait for it to finish or choose another --out"
        )

    def release(self) -> None:
        """Let the folder go (the file stays; the next run overwrites it)."""
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, 0)
        os.close(self._fd)  # closing drops the flock
        self._fd = None

    def __enter__(self) -> OutLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
