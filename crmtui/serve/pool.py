"""Pre-started app processes for the study server: a standby process and its waiting copies.

``crmtui serve --standby N`` keeps ``N`` app processes started and waiting, each one
handed to the next browser session that opens, and refills the pool behind it. They are
forked copies of one *standby* process (:mod:`crmtui.ui.standby`) that imported Textual
and crmtui and loaded the study's org and tasks once, so a copy costs a fork rather than
a start (docs/performance.md), and a class signing in at once gets
copies as fast as the standby process can fork. A copy knows nobody until its hand-over:
the server writes the annotator (from the session's cookie) and the terminal size on its
terminal socket when it hands it to a session.

No textual here: the server process never imports it. :class:`StandbyChild` is what
textual-serve's ``AppService`` needs of a child process (streams, ``wait``, ``kill``);
:class:`StandbyPool` runs the standby process and keeps the copies.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import socket
import sys
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger("crmtui.serve")

#: Waiting copies kept by default (``crmtui serve --standby``).
DEFAULT_STANDBY = 4
#: Seconds a session waits for the standby process to finish loading before starting
#: its app the slow way (a fresh process); loading takes about as long as one start.
READY_WAIT_S = 20.0
#: Seconds the standby process gets to answer a fork request.
FORK_WAIT_S = 10.0
#: Seconds before a standby process that died is started again.
RESTART_DELAY_S = 2.0


@dataclass
class StandbyChild:
    """A forked app process, seen as an ``asyncio.subprocess.Process`` by textual-serve.

    Attributes:
        pid: Its process id (a child of the standby process, not of the server).
        stdin: Its terminal socket, towards it.
        stdout: Its terminal socket, from it (textual-serve's packets).
        stderr: Its error socket.
        returncode: Its exit status once it has ended (None before).
    """

    pid: int
    stdin: asyncio.StreamWriter
    stdout: asyncio.StreamReader
    stderr: asyncio.StreamReader
    returncode: int | None = None
    _ended: asyncio.Event = field(default_factory=asyncio.Event)
    _errors: asyncio.StreamWriter | None = None

    async def hand_over(self, annotator: str, width: int, height: int) -> None:
        """Tell the copy whom it serves and how big their terminal is (its first input)."""
        line = json.dumps({"annotator": annotator, "width": width, "height": height})
        self.stdin.write(line.encode() + b"\n")
        await self.stdin.drain()

    def ended(self, status: int) -> None:
        """Record the exit status (the standby process reaped the copy).

        Its sockets stay open: what it wrote last may still be on its way to the session.
        """
        if self.returncode is None:
            self.returncode = status
        self._ended.set()

    async def wait(self) -> int:
        """Wait until the copy has ended; its exit status."""
        await self._ended.wait()
        assert self.returncode is not None
        return self.returncode

    def kill(self) -> None:
        """SIGKILL, unless it has already ended (its pid could be someone else's by now)."""
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def terminate(self) -> None:
        """SIGTERM (the app saves and exits), unless it has already ended."""
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)

    def close(self) -> None:
        """Close the server's ends of its sockets (a waiting copy then exits)."""
        for writer in (self.stdin, self._errors):
            if writer is not None:
                with contextlib.suppress(Exception):
                    writer.close()

    async def watch_orphan(self) -> None:
        """Wait for the end of a copy whose standby process died (nobody reports it now)."""
        while self.returncode is None:
            try:
                os.kill(self.pid, 0)
            except ProcessLookupError:
                self.ended(-1)
                return
            await asyncio.sleep(0.2)


def standby_command(folder: Path, control_fd: int) -> list[str]:
    """The standby process's command line."""
    return [
        sys.executable,
        "-m",
        "crmtui.ui.standby",
        str(folder.resolve()),
        "--control",
        str(control_fd),
    ]


class StandbyPool:
    """Keeps ``size`` forked app processes waiting for sessions of one study.

    Args:
        folder: The study's folder.
        size: Copies kept waiting (0: no standby process; every session starts its own).
        environment: The environment of the apps (textual-serve's, without a size).
    """

    def __init__(self, folder: Path, size: int, environment: dict[str, str]) -> None:
        self.folder = folder
        self.size = size
        self.environment = environment
        self.waiting: deque[StandbyChild] = deque()
        self.children: dict[int, StandbyChild] = {}
        self._early_exits: dict[int, int] = {}
        self._process: asyncio.subprocess.Process | None = None
        self._control: socket.socket | None = None
        self._ready = asyncio.Event()
        self._failed: str | None = None
        self._pending: deque[asyncio.Future[int]] = deque()
        self._fork_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._refilling: asyncio.Task[None] | None = None
        self._closing = False

    @property
    def ready(self) -> bool:
        """Whether the standby process has loaded and takes requests."""
        return self._ready.is_set()

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)  # held until done: the loop keeps weak references
        task.add_done_callback(self._tasks.discard)
        return task

    # -- the standby process -----------------------------------------------------------------

    async def start(self) -> None:
        """Start the standby process (it loads in the background; sessions may wait)."""
        if self.size < 1 or self._closing:
            return
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.setblocking(False)
        try:
            self._process = await asyncio.create_subprocess_exec(
                *standby_command(self.folder, theirs.fileno()),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                pass_fds=(theirs.fileno(),),
                env=self.environment,
            )
        except OSError as exc:
            ours.close()
            self._failed = f"cannot start the standby process: {exc}"
            log.error("%s", self._failed)
            return
        finally:
            theirs.close()
        self._control = ours
        self._spawn(self._read_events(self._process))
        self._spawn(self._read_errors(self._process))

    async def _read_events(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdout is not None
        while line := await process.stdout.readline():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if "forked" in event and self._pending:
                future = self._pending.popleft()
                if not future.done():
                    future.set_result(int(event["forked"]))
            elif "exited" in event:
                self._exited(int(event["exited"]), int(event.get("status", -1)))
            elif "ready" in event:
                log.info(
                    "standby process ready (pid %s): sessions start pre-loaded", event["ready"]
                )
                self._ready.set()
                self._refill()
            elif "error" in event:
                self._failed = str(event["error"])
                log.error("the standby process could not load the study: %s", self._failed)
        await process.wait()
        self._standby_gone(process)

    async def _read_errors(self, process: asyncio.subprocess.Process) -> None:
        assert process.stderr is not None
        while line := await process.stderr.readline():
            log.warning("standby: %s", line.decode("utf-8", "replace").rstrip())

    def _exited(self, pid: int, status: int) -> None:
        child = self.children.pop(pid, None)
        if child is None:
            self._early_exits[pid] = status  # before its fork answer was handled
            return
        child.ended(status)
        if child in self.waiting:
            self.waiting.remove(child)
            child.close()
            log.warning("a waiting app process (pid %d) ended with status %d", pid, status)
            self._refill()

    def _standby_gone(self, process: asyncio.subprocess.Process) -> None:
        """The standby process exited: nobody reports its copies' ends any more."""
        self._ready.clear()
        self._control, control = None, self._control
        if control is not None:
            control.close()
        while self._pending:
            future = self._pending.popleft()
            if not future.done():
                future.set_exception(ConnectionError("the standby process exited"))
        for child in list(self.waiting):
            child.close()
        self.waiting.clear()
        for child in list(self.children.values()):
            self._spawn(child.watch_orphan())
        self.children.clear()
        if self._closing or self._failed is not None:
            return
        log.warning("the standby process exited (status %s); starting it again", process.returncode)
        self._spawn(self._restart())

    async def _restart(self) -> None:
        await asyncio.sleep(RESTART_DELAY_S)
        await self.start()

    # -- copies ----------------------------------------------------------------------------

    async def _fork(self) -> StandbyChild:
        """A new waiting copy.

        Raises:
            ConnectionError: The standby process is gone or did not answer.
        """
        loop = asyncio.get_running_loop()
        async with self._fork_lock:  # answers come back in request order
            control = self._control
            if control is None:
                raise ConnectionError("no standby process")
            terminal, terminal_theirs = socket.socketpair()
            errors, errors_theirs = socket.socketpair()
            future: asyncio.Future[int] = loop.create_future()
            try:
                socket.send_fds(control, [b"F"], [terminal_theirs.fileno(), errors_theirs.fileno()])
            except OSError as exc:
                for sock in (terminal, errors):
                    sock.close()
                raise ConnectionError(f"the standby process took no request: {exc}") from exc
            finally:
                terminal_theirs.close()
                errors_theirs.close()
            self._pending.append(future)
        try:
            pid = await asyncio.wait_for(future, FORK_WAIT_S)
        except (TimeoutError, ConnectionError) as exc:
            terminal.close()
            errors.close()
            raise ConnectionError(f"the standby process did not fork: {exc}") from exc
        reader, writer = await asyncio.open_unix_connection(sock=terminal)
        err_reader, err_writer = await asyncio.open_unix_connection(sock=errors)
        child = StandbyChild(pid, writer, reader, err_reader, _errors=err_writer)
        if pid in self._early_exits:
            child.ended(self._early_exits.pop(pid))
        else:
            self.children[pid] = child
        return child

    def _refill(self) -> None:
        if self._refilling is None or self._refilling.done():
            self._refilling = self._spawn(self._fill())

    async def _fill(self) -> None:
        """Fork until ``size`` copies wait (one at a time, behind any session's request)."""
        while not self._closing and self.ready and len(self.waiting) < self.size:
            try:
                child = await self._fork()
            except ConnectionError as exc:
                log.warning("could not pre-start an app process: %s", exc)
                return
            if child.returncode is None:
                self.waiting.append(child)

    async def take(self) -> StandbyChild | None:
        """A started app process for a new session, or None (start one the slow way).

        Waits while the standby process is still loading (it is about as far along as a
        fresh process would be); takes a waiting copy, else forks one now.
        """
        if self.size < 1 or self._closing or self._failed is not None:
            return None
        if not self.ready:
            if self._process is None:
                return None
            try:
                await asyncio.wait_for(self._ready.wait(), READY_WAIT_S)
            except TimeoutError:
                return None
        while self.waiting:
            child = self.waiting.popleft()
            if child.returncode is None:
                self._refill()
                return child
        try:
            child = await self._fork()
        except ConnectionError as exc:
            log.warning("no pre-started app process: %s", exc)
            return None
        self._refill()
        return child if child.returncode is None else None

    async def close(self) -> None:
        """Stop refilling, end the waiting copies and the standby process."""
        self._closing = True
        if self._refilling is not None:
            self._refilling.cancel()
        for child in list(self.waiting):
            child.close()  # a waiting copy reads EOF instead of a hand-over and exits
        self.waiting.clear()
        if self._control is not None:
            self._control.close()  # the standby process exits at the end of its socket
            self._control = None
        process = self._process
        if process is not None and process.returncode is None:
            try:
                await asyncio.wait_for(process.wait(), 10)
            except TimeoutError:
                process.kill()
                await process.wait()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
