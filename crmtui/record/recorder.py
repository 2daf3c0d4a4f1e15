"""The append-only recorder: one JSONL file per session, one hash-chained line per event.

Every event is written with a single ``write`` to a file opened ``O_APPEND`` and (by default)
``fsync``-ed before :meth:`Recorder.emit` returns (or, with ``sync_later``, just after, on a
background thread: :mod:`crmtui.record.syncer`), so a killed process leaves every emitted
event intact and verifiable; at worst a power cut leaves a partial last line, which
:func:`~crmtui.record.verify.verify` reports as truncated and :meth:`Recorder.resume` cuts
off. The file is ``flock``-ed while a recorder holds it, so two processes cannot interleave
events in one session.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from crmtui.flock import try_lock
from crmtui.paths import recordings_dir
from crmtui.record import events as ev
from crmtui.record.errors import RecordingError, RecordingInUse
from crmtui.record.format import (
    build_header,
    canonical_json,
    default_filename,
    format_time,
    parse_time,
    sealed_line,
    slugify,
)
from crmtui.record.syncer import BackgroundSync
from crmtui.record.verify import scan
from crmtui.secrets import scrub, scrub_json

WallClock = Callable[[], dt.datetime]
MonotonicClock = Callable[[], float]


def _utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _field(source: Any, name: str) -> Any:
    if isinstance(source, Mapping):
        return source.get(name)
    return getattr(source, name, None)


def _lock(fd: int, path: Path) -> None:
    # Where there is no flock (Windows) the single-writer guarantee is the caller's job.
    if not try_lock(fd):
        os.close(fd)
        raise RecordingInUse("another crmtui process is recording this session", path=path)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _writable(text: str) -> str:
    """``text`` with secrets scrubbed and lone surrogates replaced by U+FFFD."""
    text = scrub(text)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = _SURROGATE.sub("\ufffd", text)
    return text


def _fsync_dir(directory: Path) -> None:
    # Makes the new file's directory entry durable; not every filesystem allows it.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


class Recorder:
    """Writes one session's events as they happen.

    Build one with :meth:`create` (new session) or :meth:`resume` (continue an unfinished
    one); do not call the constructor directly. A recorder is safe to share between
    threads (a lock serialises :meth:`emit`).
    """

    def __init__(
        self,
        path: Path,
        fd: int,
        header: dict[str, Any],
        *,
        seq: int,
        last_hash: str,
        last_ms: int,
        wall: WallClock,
        monotonic: MonotonicClock,
        fsync: bool,
        sync_later: bool = False,
    ) -> None:
        self.path = path
        self.header = header
        self.fsync = fsync
        self._fd: int | None = fd
        # Interactive sessions sync on a background thread: a keystroke never waits for the disk.
        self._syncer = BackgroundSync(fd) if fsync and sync_later else None
        self._seq = seq
        self._last_hash = last_hash
        self._last_ms = last_ms
        self._wall = wall
        self._monotonic = monotonic
        # ms continues from the last recorded event: time the process was gone is not
        # measured (the wall-clock ``t`` shows it).
        self._ms_base = last_ms
        self._mono_start = monotonic()
        self._lock = threading.Lock()

    # -- construction ----------------------------------------------------------------------
    @classmethod
    def create(
        cls,
        path_or_dir: str | os.PathLike[str] | None = None,
        *,
        actor: Mapping[str, Any],
        instance: Any,
        org: Any,
        tasks_source: str,
        today: dt.date | str | None = None,
        mode: str = "default",
        settings: Mapping[str, Any] | None = None,
        run_id: str | None = None,
        session_id: str | None = None,
        dialogue: Mapping[str, Any] | None = None,
        wall: WallClock | None = None,
        monotonic: MonotonicClock | None = None,
        fsync: bool = True,
        sync_later: bool = False,
    ) -> Recorder:
        """Start a new recording and write its header.

        Args:
            path_or_dir: A ``.jsonl`` file to create, or a folder under which the default
                ``<actor-slug>/<YYYYmmdd-HHMMSS>-idx<idx>-<session[:8]>.jsonl`` is used;
                ``None`` means ``CRMTUI_HOME/recordings``.
            actor: ``{"kind": "human"|"model", "id": ..., "strategy": ... (models)}``.
            instance: A mapping or object with ``idx``, ``task``, ``query`` and
                ``reward_metric``; anything else (the gold answer above all) is dropped.
            org: A mapping or object (e.g. an ``Org``) with ``path``, ``digest``, ``name``.
            tasks_source: Where the instance came from (a dataset name or file path).
            today: The instance's "today", if it has one.
            mode: ``"default"`` or ``"aided"`` (upstream ``--agent_eval_mode``).
            settings: Every setting that shaped the attempt (agents), recorded as is.
            run_id: The batch run the session belongs to (``crmtui run``).
            session_id: Fixed id (tests); a random uuid4 hex otherwise.
            dialogue: Both sides of a multi-turn conversation (the header's ``dialogue``,
                :meth:`crmtui.play.dialogue.DialogueSpec.to_json`).
            wall: Wall clock returning an aware UTC datetime.
            monotonic: Monotonic clock in seconds.
            fsync: ``fsync`` after every event (default; see benchmarks/bench_record.py).
            sync_later: With ``fsync``, sync on a background thread just after each write
                instead of before :meth:`emit` returns (interactive sessions: a killed
                process still loses nothing; a machine crash can lose the last events).

        Raises:
            PayloadError: If a header field is missing or malformed.
            RecordingError: If the file exists already or cannot be created.
        """
        wall = wall or _utc_now
        monotonic = monotonic or time.monotonic
        started = wall()
        org_path = _field(org, "path")
        header = build_header(
            session_id=session_id or uuid.uuid4().hex,
            actor=scrub_json(dict(actor)),
            instance=scrub_json(
                {k: _field(instance, k) for k in ("idx", "task", "query", "reward_metric")}
            ),
            tasks_source=scrub(tasks_source) if isinstance(tasks_source, str) else tasks_source,
            org=scrub_json(
                {
                    "path": None if org_path is None else os.fspath(org_path),
                    "digest": _field(org, "digest"),
                    "name": _field(org, "name"),
                }
            ),
            today=today,
            mode=mode,
            started_at=started,
            settings=settings,
            run_id=run_id,
            dialogue=None if dialogue is None else scrub_json(dict(dialogue)),
        )
        target = Path(path_or_dir) if path_or_dir is not None else recordings_dir()
        if target.suffix != ".jsonl":
            target = (
                target
                / slugify(header["actor"]["id"])
                / default_filename(started, header["instance"]["idx"], header["session_id"])
            )
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
        except FileExistsError as exc:
            raise RecordingError("recording already exists", path=target) from exc
        except OSError as exc:
            raise RecordingError(f"cannot create recording: {exc.strerror}", path=target) from exc
        _lock(fd, target)
        recorder = cls(
            target,
            fd,
            header,
            seq=0,
            last_hash=header["hash"],
            last_ms=0,
            wall=wall,
            monotonic=monotonic,
            fsync=fsync,
            sync_later=sync_later,
        )
        try:
            recorder._write(canonical_json(header) + "\n")
        except RecordingError:
            # A full disk: a recording without its header holds nothing, and an empty file
            # left behind would verify as BAD for ever. It goes, and the error is told.
            recorder._release_quietly()
            with contextlib.suppress(OSError):
                target.unlink()
            raise
        if fsync:
            _fsync_dir(target.parent)
        return recorder

    @classmethod
    def resume(
        cls,
        path: str | os.PathLike[str],
        *,
        wall: WallClock | None = None,
        monotonic: MonotonicClock | None = None,
        fsync: bool = True,
        sync_later: bool = False,
        idle_after: float | None = None,
    ) -> Recorder:
        """Reopen an unfinished recording and append a ``resume`` event continuing the chain.

        A partial last line (the process died mid-write) is cut off first; its size is
        recorded as ``discarded_bytes``. ``idle_after`` (a person's ``--idle``) is recorded
        with the wall-clock gap, so the time fold can credit a killed process's last moments
        (:mod:`crmtui.record.timing`).

        Raises:
            RecordingError: If the file is corrupt (before its last line), already ended,
                or held by another live recorder.
        """
        recorder, gap_ms, discarded = cls._reopen(path, wall, monotonic, fsync, sync_later)
        payload: dict[str, Any] = {"reopened": True, "gap_ms": gap_ms}
        if discarded:
            payload["discarded_bytes"] = discarded
        if idle_after is not None:
            payload["idle_after"] = idle_after
        recorder.emit(ev.RESUME, payload)
        return recorder

    @classmethod
    def _reopen(
        cls,
        path: str | os.PathLike[str],
        wall: WallClock | None,
        monotonic: MonotonicClock | None,
        fsync: bool,
        sync_later: bool = False,
    ) -> tuple[Recorder, int, int]:
        wall = wall or _utc_now
        monotonic = monotonic or time.monotonic
        target = Path(path)
        try:
            fd = os.open(target, os.O_WRONLY | os.O_APPEND)
        except OSError as exc:
            raise RecordingError(f"cannot open recording: {exc.strerror}", path=target) from exc
        _lock(fd, target)  # before reading, so nobody appends between check and write
        try:
            report, header, events = scan(target)
            if header is None or (not report.ok and not report.truncated):
                raise RecordingError(
                    f"cannot resume a corrupt recording: {report.problem}",
                    path=target,
                    line=report.first_bad_line,
                )
            if report.finished:
                raise RecordingError("session already ended; nothing to resume", path=target)
            size = target.stat().st_size
            discarded = size - report.valid_bytes
            if discarded:
                os.ftruncate(fd, report.valid_bytes)
        except BaseException:
            os.close(fd)
            raise
        last = events[-1] if events else None
        last_t = parse_time(last.t) if last else parse_time(header["started_at"])
        gap = wall() - last_t
        recorder = cls(
            target,
            fd,
            header,
            seq=last.seq if last else 0,
            last_hash=last.hash if last else header["hash"],
            last_ms=last.ms if last else 0,
            wall=wall,
            monotonic=monotonic,
            fsync=fsync,
            sync_later=sync_later,
        )
        return recorder, max(0, int(gap.total_seconds() * 1000)), discarded

    # -- state -----------------------------------------------------------------------------
    @property
    def session_id(self) -> str:
        """The session's id (from the header)."""
        return str(self.header["session_id"])

    @property
    def started_monotonic(self) -> float:
        """The monotonic clock's reading when this recorder opened the file, where ``ms``
        stood at 0 (new) or at the last recorded ``ms`` (reopened): a live clock of the
        session starts there."""
        return self._mono_start

    @property
    def actor_id(self) -> str:
        """The header actor's id, used when :meth:`emit` is given no actor."""
        return str(self.header["actor"]["id"])

    @property
    def seq(self) -> int:
        """``seq`` of the last event written (0 before the first)."""
        return self._seq

    @property
    def last_hash(self) -> str:
        """Hash of the last line written (what the next event's ``prev`` will be)."""
        return self._last_hash

    @property
    def closed(self) -> bool:
        """True once :meth:`close` or :meth:`suspend` ran."""
        return self._fd is None

    # -- writing ---------------------------------------------------------------------------
    def _write(self, line: str) -> None:
        if self._fd is None:
            raise RecordingError("recording is closed", path=self.path)
        data = line.encode("utf-8")
        view = memoryview(data)
        try:
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
            if self._syncer is not None:
                self._syncer.request()
            elif self.fsync:
                os.fsync(self._fd)
        except OSError as exc:
            partial = len(data) - len(view)
            if 0 < partial < len(data):
                # Part of the line went out before the disk filled: cut it off again, so the
                # file stays intact (resumable) instead of ending in a truncated line.
                with contextlib.suppress(OSError):
                    os.ftruncate(self._fd, os.fstat(self._fd).st_size - partial)
            raise RecordingError(f"cannot write event: {exc.strerror}", path=self.path) from exc

    def emit(
        self, event_type: str, payload: Mapping[str, Any] | None = None, actor: str | None = None
    ) -> ev.Event:
        """Validate, chain, write and sync one event.

        Args:
            event_type: One of :data:`crmtui.record.events.EVENT_TYPES`.
            payload: The payload object for that type (``None`` means ``{}``).
            actor: Who did it; defaults to the header actor's id.

        Returns:
            The event exactly as written.

        Raises:
            PayloadError: If the payload does not fit the event type.
            RecordingError: If the recorder is closed or the write fails.
        """
        body = dict(payload or {})
        ev.validate_payload(event_type, body)
        # A detached copy (later mutation of the caller's objects cannot alter the event),
        # with secrets scrubbed and lone surrogates made encodable: nothing is refused here
        # that a model or a user could put into a payload.
        body = json.loads(_writable(canonical_json(body)))
        with self._lock:
            if self._fd is None:
                raise RecordingError("recording is closed", path=self.path)
            elapsed = int((self._monotonic() - self._mono_start) * 1000)
            ms = max(self._last_ms, self._ms_base + elapsed)
            event, line = sealed_line(
                {
                    "seq": self._seq + 1,
                    "t": format_time(self._wall()),
                    "ms": ms,
                    "actor": actor if actor is not None else self.actor_id,
                    "type": event_type,
                    "payload": body,
                    "prev": self._last_hash,
                }
            )
            self._write(line)
            self._seq += 1
            self._last_hash = event["hash"]
            self._last_ms = ms
            return ev.Event.from_dict(event)

    def close(self, reason: str = "finished", reward: float | None = None) -> ev.Event:
        """Write the ``end`` event and release the file.

        Raises:
            RecordingError: If already closed.
        """
        payload: dict[str, Any] = {"reason": reason}
        if reward is not None:
            payload["reward"] = reward
        event = self.emit(ev.END, payload)
        self._release()
        return event

    def suspend(self) -> None:
        """Release the file without an ``end`` event, so the session can be resumed later."""
        self._release()

    def _release_quietly(self) -> None:
        """Drop the file without a last sync (it is being given up)."""
        with self._lock:
            syncer, self._syncer = self._syncer, None
            if syncer is not None:
                syncer.abandon()
            if self._fd is not None:
                with contextlib.suppress(OSError):
                    os.close(self._fd)
                self._fd = None

    def _release(self) -> None:
        with self._lock:
            if self._fd is None:
                return
            syncer, self._syncer = self._syncer, None
            try:
                if syncer is not None:
                    syncer.close()  # the last sync, before the flock goes
            except OSError as exc:
                message = f"cannot sync recording: {exc.strerror}"
                raise RecordingError(message, path=self.path) from exc
            finally:
                os.close(self._fd)  # also drops the flock
                self._fd = None

    def __enter__(self) -> Recorder:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if not self.closed:
            self.close("error" if exc_type is not None else "finished")

    def __del__(self) -> None:  # a forgotten recorder must not leak its descriptor
        syncer = getattr(self, "_syncer", None)
        if syncer is not None:
            syncer.abandon()
        fd = getattr(self, "_fd", None)
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)


def close_unfinished(
    path: str | os.PathLike[str],
    reason: str = "abandoned",
    *,
    wall: WallClock | None = None,
    monotonic: MonotonicClock | None = None,
    idle_after: float | None = None,
) -> ev.Event:
    """Append an ``end`` event (no ``resume``) to an unfinished recording.

    With ``idle_after`` (a person's ``--idle``) the ``end`` also records the wall-clock gap
    since the last event, as :meth:`Recorder.resume` does.

    Raises:
        RecordingError: As :meth:`Recorder.resume`.
    """
    recorder, gap_ms, _ = Recorder._reopen(path, wall, monotonic, True)
    if idle_after is None:
        return recorder.close(reason)
    event = recorder.emit(ev.END, {"reason": reason, "gap_ms": gap_ms, "idle_after": idle_after})
    recorder.suspend()  # the end is written: only the file is left to let go
    return event


def repair(path: str | os.PathLike[str]) -> int:
    """Cut a partial final line (a write cut short) off a recording; return the bytes cut.

    Only that damage is repaired: a file with any other problem is left unchanged and
    reported, since every other fault means the content itself cannot be trusted. The file
    is locked like a recorder locks it, so a live session is never cut.

    Raises:
        RecordingError: The file is not a recording, is damaged elsewhere, or is in use.
    """
    target = Path(path)
    try:
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise RecordingError(f"cannot open recording: {exc.strerror}", path=target) from exc
    _lock(fd, target)  # closes fd itself when another process holds the file
    try:
        report, header, _ = scan(target)
        if header is None or (not report.ok and not report.truncated):
            raise RecordingError(
                f"cannot repair: {report.problem}", path=target, line=report.first_bad_line
            )
        cut = target.stat().st_size - report.valid_bytes
        if cut:
            os.ftruncate(fd, report.valid_bytes)
            os.fsync(fd)
        return cut
    finally:
        os.close(fd)


def resume(
    path: str | os.PathLike[str],
    *,
    wall: WallClock | None = None,
    monotonic: MonotonicClock | None = None,
    fsync: bool = True,
) -> Recorder:
    """Module-level shorthand for :meth:`Recorder.resume`."""
    return Recorder.resume(path, wall=wall, monotonic=monotonic, fsync=fsync)
