"""Run a program in a pseudo-terminal we control (POSIX): crmtui as a user's terminal runs it.

Shared by the kill-and-resume test and the play benchmark. A thread drains the terminal
continuously, so a child painting a full screen never blocks on a full pty buffer while the
caller waits for something else.
"""

from __future__ import annotations

import fcntl
import os
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

from tests.waiting import PATIENCE_S

COLUMNS, LINES = 160, 48


def crmtui_argv() -> list[str]:
    """The ``crmtui`` command of this interpreter's environment."""
    script = Path(sys.executable).with_name("crmtui")
    return [str(script)] if script.exists() else [sys.executable, "-m", "crmtui.cli"]


def terminal_env(home: Path, **extra: str) -> dict[str, str]:
    """This environment with ``CRMTUI_HOME`` set and a 160x48 xterm described."""
    env = dict(os.environ)
    env.update(
        CRMTUI_HOME=str(home),
        TERM="xterm-256color",
        COLUMNS=str(COLUMNS),
        LINES=str(LINES),
        PYTHONUNBUFFERED="1",
        **extra,
    )
    env.pop("TEXTUAL", None)  # no devtools / debug features in the child
    return env


class PtyProcess:
    """A child process on a fresh 160x48 pseudo-terminal.

    Attributes:
        proc: The child.
        started: ``time.perf_counter()`` at spawn.
        first_byte: When the child first wrote to its terminal (None until then).
    """

    def __init__(self, argv: list[str], *, env: dict[str, str], cwd: Path) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
        self.started = time.perf_counter()
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                env=env,
                cwd=cwd,
                start_new_session=True,
                close_fds=True,
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        self.master = master
        self.first_byte: float | None = None
        self._output = bytearray()
        self._marks: dict[bytes, float] = {}
        self._watch: list[bytes] = []
        self._seen = threading.Condition()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # EIO once the child is gone and the slave side closed
                chunk = b""
            now = time.perf_counter()
            with self._seen:
                if not chunk:
                    self._seen.notify_all()
                    return
                if self.first_byte is None:
                    self.first_byte = now
                self._output.extend(chunk)
                # Look only at the tail that can hold a new match: cheap on a growing buffer.
                for mark in self._watch:
                    tail = self._output[-(len(chunk) + len(mark)) :]
                    if mark not in self._marks and mark in tail:
                        self._marks[mark] = now
                self._seen.notify_all()

    @property
    def output(self) -> bytes:
        """Everything the child wrote so far (escape sequences included)."""
        with self._seen:
            return bytes(self._output)

    def send(self, data: bytes) -> None:
        """Type ``data`` into the child's terminal."""
        os.write(self.master, data)

    def wait_for(self, mark: bytes, timeout: float) -> float:
        """Seconds from spawn until ``mark`` was first written to the terminal.

        Raises:
            RuntimeError: If it does not appear in ``timeout`` seconds or the child exits.
        """
        with self._seen:
            self._watch.append(mark)
            if mark in self._output:
                self._marks.setdefault(mark, time.perf_counter())
            deadline = time.perf_counter() + timeout
            while mark not in self._marks:
                left = deadline - time.perf_counter()
                if left <= 0 or self.proc.poll() is not None:
                    tail = bytes(self._output[-1500:]).decode("utf-8", "replace")
                    raise RuntimeError(
                        f"{mark!r} never appeared (exit {self.proc.poll()}):\n{tail}"
                    )
                self._seen.wait(min(left, 0.1))
            return self._marks[mark] - self.started

    def kill(self) -> int:
        """SIGKILL the child and reap it; returns its exit status."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        return self.proc.wait(timeout=10)

    def quit(self, keys: bytes = b"\x11", timeout: float = 10.0) -> None:
        """Send Ctrl+Q (killing the child if it has not exited in ``timeout`` s) and close."""
        try:
            self.send(keys)
            self.proc.wait(timeout=timeout)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.close()

    def close(self) -> None:
        """Kill the child if still running and release the terminal."""
        self.kill()
        self._reader.join(timeout=PATIENCE_S)
        os.close(self.master)
