"""A served study's standby process: everything loaded once, one forked copy per session.

Starting the play app is mostly importing Textual and crmtui and loading the org and the
tasks, and a class signing in at once made that many processes at a time on a small server
(measured: docs/performance.md). ``crmtui
serve`` (:mod:`crmtui.serve.pool`) starts one standby process per study,
``python -m crmtui.ui.standby FOLDER --control FD``, which imports the app, loads the
study's org and tasks once, for nobody in particular, and then forks a copy of itself for
each session. A copy shares the loaded memory with it (copy on write) and starts where only
the annotator is missing.

What a copy learns, and when: nothing about any annotator exists in the standby process
or in a waiting copy. The copy's first input is its hand-over, one JSON line on its
terminal socket: ``{"annotator": ..., "width": ..., "height": ...}``, sent by the server
once the browser's websocket proved who it is. The copy then re-reads the study (an
annotator added or removed while serving counts), checks the annotator and the instances,
and runs the play app with textual's web driver, exactly as ``crmtui play --study`` does.

Protocol with the server:

* File descriptor ``--control``: a SOCK_SEQPACKET socket. Each request is one byte ``F``
  carrying two descriptors (SCM_RIGHTS): the session's terminal socket (the copy's stdin
  and stdout: textual-serve's packet stream) and its error socket (its stderr). Its end
  (the server stopped) ends the standby process; sessions already running go on.
* Standard output: one JSON line per event, ``{"ready": PID}`` once loaded (or
  ``{"error": "..."}``, then exit 1), ``{"forked": PID}`` per request, in order, and
  ``{"exited": PID, "status": N}`` when a copy ends.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import json
import os
import selectors
import signal
import socket
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crmtui.errors import CrmtuiError
from crmtui.startup import pause_collector, when_started

#: Longest hand-over line a copy reads.
MAX_HANDOVER_BYTES = 4096

#: Imported in the standby process so that no session imports them: the app and its
#: picker, textual's web driver, the Select the picker mounts after its first frame, and
#: what opening an instance brings (the play screen, the session, the recorder, dialogs).
WARM_MODULES = (
    "crmtui.ui.app",
    "crmtui.ui.screens.picker",
    "crmtui.ui.screens.play",
    "crmtui.ui.screens.dialogs",
    "crmtui.ui.screens.instructions",
    "crmtui.play.session",
    "crmtui.record.recorder",
    "crmtui.record.sessions",
    "textual.drivers.web_driver",
    "textual.widgets._select",
)


@dataclass(frozen=True)
class Loaded:
    """What every session of the study shares, loaded in the standby process."""

    folder: Path
    workspace: Any


#: Copies that draw their first screen at once (0: no turns); default one per core.
START_SLOTS_ENV = "CRMTUI_START_SLOTS"


class StartSlots:
    """At most one copy per core draws its first screen at a time; the others wait their turn.

    Twenty copies starting together share the cores evenly, so every one of them finishes
    near the end (docs/performance.md, "Serving studies"). Taking turns, the
    first are on screen in a fraction of a second and the median halves; the last comes no
    later. A slot is an exclusive ``flock`` on one of ``count`` files in a private folder:
    the kernel frees it when its copy's first frame is drawn (:func:`crmtui.startup.
    when_started`, 3 s at the latest) or when the copy dies, whatever kills it.
    """

    #: Seconds between a waiting copy's looks at the slots.
    POLL_S = 0.005

    def __init__(self, count: int) -> None:
        import tempfile

        self.count = max(1, count)
        self.folder = Path(tempfile.mkdtemp(prefix="crmtui-start-slots-"))
        for n in range(self.count):
            (self.folder / str(n)).touch()

    @classmethod
    def from_environment(cls) -> StartSlots | None:
        """One per core, or ``CRMTUI_START_SLOTS`` (0: None, no turns)."""
        try:
            count = int(os.environ.get(START_SLOTS_ENV, os.cpu_count() or 1))
        except ValueError:
            count = os.cpu_count() or 1
        return cls(count) if count > 0 else None

    def take(self) -> int:
        """Wait for a free slot; its held file descriptor (close it to give the slot back)."""
        import time

        from crmtui.flock import try_lock

        fds = [os.open(self.folder / str(n), os.O_RDONLY) for n in range(self.count)]
        try:
            while True:
                for fd in fds:
                    if not try_lock(fd):
                        continue
                    fds.remove(fd)
                    return fd
                time.sleep(self.POLL_S)
        finally:
            for fd in fds:
                os.close(fd)

    def remove(self) -> None:
        """Delete the slots' folder (the standby process is ending)."""
        import shutil

        shutil.rmtree(self.folder, ignore_errors=True)


def load(folder: str) -> Loaded:
    """Load the study's org and tasks (checked) and warm the app's modules.

    Raises:
        CrmtuiError: The study, its org or its tasks cannot be loaded, or its instances
            changed.
    """
    from crmtui.study.launch import load_study_workspace
    from crmtui.ui.launch import guard_terminal

    guard_terminal()  # what every play app's builder installs: once here, for every copy
    study, workspace = load_study_workspace(folder)
    for module in WARM_MODULES:
        importlib.import_module(module)
    warm_up(workspace)
    return Loaded(study.folder, workspace)


def warm_up(workspace: Any) -> None:
    """Run the play app once, headless, to its picker, for nobody: a throwaway name and an
    empty temporary recordings folder, no study.

    What is left is what every copy would otherwise build for itself: the app's CSS parsed
    (:mod:`crmtui.ui.css_cache`), Textual's and rich's caches of styles, colours and
    measurements filled. Copies start their first frame with ~40% less CPU.
    """
    import asyncio
    import tempfile
    import threading

    from crmtui.config import PlayConfig
    from crmtui.ui.launch import new_play_app
    from crmtui.ui.screens.picker import PickerScreen

    async def to_the_picker(app: Any) -> None:
        async with app.run_test(size=(160, 48)) as pilot:
            for _ in range(500):
                if isinstance(app.screen, PickerScreen) and app.screen.query("#picker-filter"):
                    break
                await pilot.pause(0.01)

    with tempfile.TemporaryDirectory(prefix="crmtui-standby-") as folder:
        config = PlayConfig(annotator="standby", recordings=Path(folder), fsync=False)
        asyncio.run(to_the_picker(new_play_app(config, workspace=workspace)))
    for thread in threading.enumerate():  # a process that forks must have no other thread
        if thread is not threading.main_thread():
            thread.join(timeout=5)
    # The app resumed the collector after its first frame: paused again for the copies.
    pause_collector(max_s=None)


def _event(payload: dict[str, Any]) -> None:
    os.write(1, (json.dumps(payload) + "\n").encode())


def read_handover(fd: int = 0) -> dict[str, Any]:
    """The hand-over line on ``fd``, read a byte at a time (what follows it is the app's).

    Raises:
        CrmtuiError: The socket closed first, or the line is too long or not a JSON object.
    """
    data = bytearray()
    while not data.endswith(b"\n"):
        byte = os.read(fd, 1)
        if not byte:
            raise CrmtuiError("the server closed the session before handing it over")
        data += byte
        if len(data) > MAX_HANDOVER_BYTES:
            raise CrmtuiError("the hand-over line is too long")
    try:
        handover = json.loads(data)
    except ValueError:
        handover = None
    if not isinstance(handover, dict) or not isinstance(handover.get("annotator"), str):
        raise CrmtuiError("the hand-over line is not a session's annotator and size")
    return handover


def run_session(loaded: Loaded, handover: dict[str, Any], slots: StartSlots | None = None) -> int:
    """Run the play app for the handed-over annotator (in a forked copy); its exit status.

    Raises:
        CrmtuiError: The annotator is not (or no longer) in the study, or the study's
            instances changed since the standby process loaded them; or the app crashed
            or exited with a non-zero status (as :func:`crmtui.ui.launch.run_to_end` says).
    """
    from crmtui.serve.wire import first_size
    from crmtui.study.definition import load_study
    from crmtui.study.launch import check_instances, seat_in
    from crmtui.ui.launch import new_play_app, run_to_end

    width, height = first_size(handover.get("width"), handover.get("height"))
    os.environ["COLUMNS"], os.environ["ROWS"] = str(width), str(height)
    study = load_study(loaded.folder)  # as it is now: annotators come and go while serving
    check_instances(study, loaded.workspace.tasks)
    seat = seat_in(study, handover["annotator"], loaded.workspace)
    slot = None if slots is None else slots.take()  # this copy's turn to draw its first screen
    pause_collector()  # this process's own safety timer (from its turn); the app resumes it
    if slot is not None:
        when_started(lambda: os.close(slot))  # the first frame is drawn: the next copy's turn
    # Built and run as `crmtui play --study S --annotator A` builds and runs it.
    run_to_end(new_play_app(seat.config, workspace=seat.workspace, plan=seat.plan))
    return 0


class Standby:
    """The standby process's loop: fork a copy per request, report copies that end."""

    def __init__(self, loaded: Loaded, control: socket.socket) -> None:
        self.loaded = loaded
        self.control = control
        self.slots = StartSlots.from_environment()
        self.selector = selectors.DefaultSelector()
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)

    def serve(self) -> int:
        """Until the control socket closes."""
        try:
            return self._loop()
        finally:
            if self.slots is not None:
                self.slots.remove()

    def _loop(self) -> int:
        signal.signal(signal.SIGCHLD, lambda *_: None)  # the wake-up fd does the work
        signal.set_wakeup_fd(self.wake_w)
        self.selector.register(self.control, selectors.EVENT_READ)
        self.selector.register(self.wake_r, selectors.EVENT_READ)
        while True:
            for key, _ in self.selector.select():
                if key.fileobj is self.control:
                    if not self._request():
                        return 0
                else:
                    with contextlib.suppress(BlockingIOError):
                        while os.read(self.wake_r, 512):
                            pass
                    self._reap()

    def _request(self) -> bool:
        """Handle one request; False once the server has gone."""
        try:
            message, fds, _, _ = socket.recv_fds(self.control, 16, 2)
        except OSError:
            return False
        if not message:
            return False
        if message != b"F" or len(fds) != 2:
            for fd in fds:
                os.close(fd)
            return True
        _event({"forked": self._fork(*fds)})
        return True

    def _reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            _event({"exited": pid, "status": os.waitstatus_to_exitcode(status)})

    def _fork(self, terminal: int, errors: int) -> int:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid:
            os.close(terminal)
            os.close(errors)
            return pid
        code = 1
        try:
            self._become_copy(terminal, errors)
            code = run_session(self.loaded, read_handover(0), self.slots)
        except CrmtuiError as exc:
            print(f"Error: {exc.user_message()}", file=sys.stderr)
            code = exc.exit_code
        except BaseException:  # noqa: BLE001 - a copy must never return into the loop
            traceback.print_exc()
        finally:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            os._exit(code)

    def _become_copy(self, terminal: int, errors: int) -> None:
        """In a fresh copy: drop the standby's loop and take the session's sockets."""
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        self.selector.close()
        self.control.close()
        os.close(self.wake_r)
        os.close(self.wake_w)
        os.dup2(terminal, 0)
        os.dup2(terminal, 1)
        os.dup2(errors, 2)
        os.close(terminal)
        os.close(errors)


def main(argv: list[str] | None = None) -> int:
    """``python -m crmtui.ui.standby FOLDER --control FD``."""
    parser = argparse.ArgumentParser(prog="crmtui.ui.standby")
    parser.add_argument("folder", help="the study's folder")
    parser.add_argument("--control", type=int, required=True, help="the control socket's fd")
    args = parser.parse_args(argv)
    control = socket.socket(fileno=args.control)
    pause_collector(max_s=None)  # no timer thread: this process forks
    try:
        loaded = load(args.folder)
    except CrmtuiError as exc:
        _event({"error": exc.user_message()})
        return 1
    # What is loaded now lives as long as every copy: no copy's collector scans it (nor
    # copies its memory pages by touching it).
    gc.freeze()
    _event({"ready": os.getpid()})
    return Standby(loaded, control).serve()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
