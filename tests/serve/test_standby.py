"""Pre-started app processes: a copy learns whom it serves at hand-over, holds nobody before,
the pool refills, a standby process that dies is replaced, and the hand-over line is read
exactly."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
from pathlib import Path
from typing import Any

import pytest

from crmtui.errors import CrmtuiError
from crmtui.serve.pool import StandbyChild, StandbyPool
from crmtui.ui.standby import MAX_HANDOVER_BYTES, read_handover
from crmtui.ui.web import app_environment
from tests.waiting import PATIENCE_S

_ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


def _pipe_with(data: bytes) -> int:
    read, write = os.pipe()
    os.write(write, data)
    os.close(write)
    return read


def test_the_hand_over_line_is_read_exactly_and_nothing_after_it() -> None:
    fd = _pipe_with(b'{"annotator": "ann", "width": 90, "height": 30}\nD\x00\x00\x00\x01x')
    try:
        assert read_handover(fd) == {"annotator": "ann", "width": 90, "height": 30}
        assert os.read(fd, 100) == b"D\x00\x00\x00\x01x"  # the app's input, untouched
    finally:
        os.close(fd)


@pytest.mark.parametrize(
    "data",
    [
        b"",  # the server went away before handing over
        b'{"annotator": "ann"',  # ... or mid-line
        b"[1, 2]\n",
        b'{"width": 80}\n',
        b'{"annotator": 7}\n',
        b"not json\n",
        b'{"annotator": "' + b"a" * MAX_HANDOVER_BYTES + b'"}\n',
    ],
    ids=["closed", "cut", "a-list", "no-annotator", "not-a-name", "not-json", "too-long"],
)
def test_a_bad_hand_over_is_refused(data: bytes) -> None:
    fd = _pipe_with(data)
    try:
        with pytest.raises(CrmtuiError):
            read_handover(fd)
    finally:
        os.close(fd)


async def _screen(child: StandbyChild, needle: bytes, timeout: float = PATIENCE_S) -> bytes:
    """textual-serve's packets from ``child`` until the screen shows ``needle``."""
    screen = b""
    async with asyncio.timeout(timeout):
        while (await child.stdout.readline()) != b"__GANGLION__\n":
            pass
        while needle not in _ANSI.sub(b"", screen):
            kind = await child.stdout.readexactly(1)
            size = int.from_bytes(await child.stdout.readexactly(4), "big")
            payload = await child.stdout.readexactly(size)
            if kind == b"D":
                screen += payload
    return screen


async def _quit(child: StandbyChild) -> int:
    meta = json.dumps({"type": "quit"}).encode()
    child.stdin.write(b"M" + len(meta).to_bytes(4, "big") + meta)
    await child.stdin.drain()
    async with asyncio.timeout(PATIENCE_S):
        status = await child.wait()
    child.close()
    return status


def _holds(pid: int) -> str:
    """What a process could know about an annotator: its command line, its environment and
    the files it has open."""
    proc = Path(f"/proc/{pid}")
    links = []
    for fd in (proc / "fd").iterdir():
        try:
            links.append(os.readlink(fd))
        except OSError:
            continue
    return " ".join(
        [(proc / "cmdline").read_bytes().decode(errors="replace")]
        + [(proc / "environ").read_bytes().decode(errors="replace")]
        + links
    )


async def test_a_copy_learns_whom_it_serves_at_hand_over(served_study: Any) -> None:
    """The standby process loads before an annotator joins the study; a waiting copy then
    serves the newcomer, drawing their own list. Before the hand-over neither process names
    any annotator, nor has a recording, a token or a history file open."""
    from crmtui.study import add_annotator, load_study

    study, _ = served_study
    pool = StandbyPool(study.folder, 2, app_environment())
    await pool.start()
    try:
        async with asyncio.timeout(PATIENCE_S):
            while len(pool.waiting) < 2:
                await asyncio.sleep(0.05)
        add_annotator(str(study.folder), "cat")  # after the standby process loaded
        standby_pid = pool._process.pid  # type: ignore[union-attr]
        waiting = [child.pid for child in pool.waiting]
        for pid in (standby_pid, *waiting):
            held = _holds(pid)
            for name in ("ann", "ben", "cat"):
                assert f"--annotator {name}" not in held and f"/recordings/{name}" not in held
            assert "tokens.json" not in held and "/history/" not in held

        child = await pool.take()
        assert child is not None and child.pid in waiting
        await child.hand_over("cat", 120, 30)
        first = load_study(study.folder).assignment("cat").order[0]
        screen = _ANSI.sub(b"", await _screen(child, b"Annotator: cat"))
        assert f" {first} ".encode() in screen  # cat's own list
        async with asyncio.timeout(PATIENCE_S):  # the pool refilled behind the copy it gave
            while len(pool.waiting) < 2:
                await asyncio.sleep(0.05)
        assert child not in pool.waiting
        assert await _quit(child) == 0
    finally:
        await pool.close()
    assert pool._process is not None and pool._process.returncode is not None


async def test_an_unknown_annotator_at_hand_over_ends_the_copy_with_an_error(
    served_study: Any,
) -> None:
    study, _ = served_study
    pool = StandbyPool(study.folder, 1, app_environment())
    await pool.start()
    try:
        child = await pool.take()
        assert child is not None
        await child.hand_over("mallory", 80, 24)
        async with asyncio.timeout(PATIENCE_S):
            status = await child.wait()
        errors = await child.stderr.read()
        assert status != 0
        assert b"Error:" in errors and b"mallory" in errors
    finally:
        await pool.close()


async def test_a_standby_process_that_dies_is_replaced(served_study: Any) -> None:
    study, _ = served_study
    pool = StandbyPool(study.folder, 1, app_environment())
    await pool.start()
    try:
        async with asyncio.timeout(PATIENCE_S):
            while not pool.waiting:
                await asyncio.sleep(0.05)
        first = pool._process
        assert first is not None
        os.kill(first.pid, signal.SIGKILL)
        async with asyncio.timeout(PATIENCE_S):  # noticed, and started again
            while pool._process is first or not pool.ready:
                await asyncio.sleep(0.05)
        child = await pool.take()
        assert child is not None
        await child.hand_over("ann", 100, 30)
        await _screen(child, b"Annotator: ann")
        assert await _quit(child) == 0
    finally:
        await pool.close()


async def test_no_standby_means_no_process(served_study: Any) -> None:
    study, _ = served_study
    pool = StandbyPool(study.folder, 0, app_environment())
    await pool.start()
    assert await pool.take() is None and pool._process is None
    await pool.close()


def test_copies_take_turns_to_start_and_a_dead_copy_frees_its_turn() -> None:
    """At most ``count`` copies draw their first screen at once; a turn comes back when its
    copy gives it back, or when the copy dies (SIGKILL included: the kernel frees it)."""
    import threading

    from crmtui.ui.standby import StartSlots

    slots = StartSlots(2)
    try:
        first, second = slots.take(), slots.take()
        got: list[int] = []
        waiting = threading.Thread(target=lambda: got.append(slots.take()))
        waiting.start()
        waiting.join(0.2)
        assert waiting.is_alive() and not got  # both turns are taken: the third waits
        os.close(first)
        waiting.join(PATIENCE_S)
        assert got  # ... and starts when one is given back
        os.close(second)
        os.close(got[0])

        ready_r, ready_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # a copy that takes both turns and is killed holding them
            slots.take(), slots.take()
            os.write(ready_w, b"x")
            signal.pause()
            os._exit(0)
        os.read(ready_r, 1)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(slots.take())  # freed by its death
    finally:
        slots.remove()
