"""Two people in one dialogue, each in their own process: the channel between them.

``crmtui play --interactive --channel NAME`` (a person as the agent) and
``crmtui play --as-user --channel NAME`` (a person as the user) meet in a channel: an
append-only file of JSON lines under the recordings folder,
``channels/<NAME>/<idx>-<n>.channel`` (one file per conversation on instance ``idx``; ``n``
counts the conversations held there; not ``.jsonl``, the name every scan of the folder
takes for a recording). The first side to open the instance creates it with
a fresh dialogue id (its first line, ``open``); the other side joins it and takes that id, so
both recordings carry it. Each side appends its own events and reads the other's:

* ``join`` (``role``, ``name``, ``commit``): a side arrived, with the end of its hash chain;
* ``message`` (``role``, ``text``): something said; a user's ``###STOP###`` ends the
  conversation, at any moment;
* ``end`` (the agent's ``end_reason`` and ``reward``): the agent's episode is over;
* ``leave`` (``role``, ``why``): a side left before the end (Esc, quit).

Every line after a side's ``join`` carries the next link of that side's hash chain
(``tok``), so no third process can speak for either side; the reader checks every line
(:mod:`crmtui.play.channel_lines`) and skips, and reports in :attr:`Channel.problems`, a
line that is torn, forged, out of turn or too long, then keeps listening. A file cut or
rewritten under a reader is noticed (the bytes before its offset changed), reported and
read again from its start. A header crmtui did not write is one :class:`ChannelError`.

A side that dies writes no ``leave``: while a side waits it touches its heartbeat file
(``<idx>-<n>.<role>.alive``) every second, and a partner with neither a heartbeat nor a line
for ``partner_timeout_s`` (:data:`PARTNER_TIMEOUT_S`) counts as gone (a missing heartbeat
file counts from its last line); the waiting side then ends the conversation as abandoned.
Before the partner has joined there is no time limit.

Each line is written with one ``write`` on a file opened for appending (atomic for lines
this short on a local disk), so the two writers never interleave. Nothing here imports
textual; the waits block and belong in worker threads.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from crmtui.errors import CrmtuiError
from crmtui.limits import MAX_MESSAGE_CHARS
from crmtui.play.channel_lines import (
    MAX_LINE_BYTES,
    ChannelError,
    ChannelEvent,
    ChannelProblem,
    LineReader,
    SideChain,
    check_header,
)
from crmtui.play.dialogue_sides import DialogueCancelled

__all__ = [
    "ABANDONED",
    "PARTNER_TIMEOUT_S",
    "Channel",
    "ChannelError",
    "ChannelEvent",
    "ChannelProblem",
    "PartnerGone",
    "check_channel_name",
]

#: Seconds a joined partner may be silent (no heartbeat) before it counts as gone.
PARTNER_TIMEOUT_S = 30.0
#: How often a waiting side looks at the file (seconds).
POLL_S = 0.05
#: How often a waiting side touches its heartbeat (seconds).
BEAT_S = 1.0
#: The end message of a conversation a side left (or whose process died).
ABANDONED = "abandoned"
#: Bytes one poll reads at most (a huge line is skipped in pieces, never held whole).
READ_BYTES = 1 << 20
#: Bytes before the read offset compared on every poll: a file cut or rewritten under the
#: reader is noticed even when it has grown past the offset again.
_TAIL = 64

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class PartnerGone(CrmtuiError):
    """The other side left, or stopped answering for longer than the timeout."""


def check_channel_name(name: str) -> str:
    """``name`` if it can name a channel folder (letters, digits, ``.``, ``_``, ``-``).

    Raises:
        ChannelError: It cannot.
    """
    if not _NAME.match(name):
        raise ChannelError(
            f"channel name {name!r} must be 1-64 letters, digits, '.', '_' or '-' "
            "(starting with a letter or digit)"
        )
    return name


class Channel:
    """One side's end of a conversation's channel file.

    Use :meth:`open` to create or join; then :meth:`post` and :meth:`next_event`.

    Attributes:
        path: The channel file.
        role: ``agent`` or ``user``: this side.
        name: This side's person.
        dialogue_id: The id both recordings carry.
        max_user_turns: The limit the side that created the channel set.
        partner_timeout_s: Silence after which a joined partner counts as gone.
    """

    def __init__(
        self,
        path: Path,
        role: str,
        name: str,
        header: dict[str, Any],
        *,
        partner_timeout_s: float = PARTNER_TIMEOUT_S,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.path = path
        self.role = role
        self.name = name
        self.dialogue_id, self.max_user_turns = check_header(header)
        self.partner_timeout_s = partner_timeout_s
        self._now = now
        self._chain = SideChain()
        self._reader = LineReader()
        self._reader.header = dict(header)
        self._offset = 0
        self._tail = b""
        self._partial = b""
        self._skipping = False  # inside a line longer than MAX_LINE_BYTES
        self._line = 0
        self._events: list[ChannelEvent] = []
        self._last_beat = 0.0
        self._partner_seen: float | None = None
        self.partner_name: str | None = None
        self.closed = False
        #: Lines skipped so far (torn, forged, out of turn, too long), and the file cut.
        self.problems: list[ChannelProblem] = []
        #: Called with each problem as it is found (the screen shows it); from a worker.
        self.on_problem: Callable[[ChannelProblem], None] | None = None

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        root: Path,
        channel: str,
        idx: int,
        role: str,
        name: str,
        *,
        max_user_turns: int,
        partner_timeout_s: float = PARTNER_TIMEOUT_S,
        now: Callable[[], float] = time.time,
    ) -> Channel:
        """Join the conversation on ``idx`` still waiting for ``role``, or start one.

        Args:
            root: The recordings folder (both sides must use the same).
            channel: The channel's name (``--channel``).
            idx: The instance.
            role: ``agent`` or ``user``.
            name: This side's person (recorded by the other side).
            max_user_turns: The limit, when this side starts the conversation.

        Raises:
            ChannelError: A bad name or role, a header crmtui did not write (one line naming
                the field), or a file that cannot be read or written.
        """
        if role not in ("agent", "user"):
            raise ChannelError(f"a channel side is 'agent' or 'user', not {role!r}")
        folder = Path(root) / "channels" / check_channel_name(channel)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for _ in range(100):  # another process may create the same file meanwhile
                path, header = cls._find_open(folder, idx, role)
                if path is None and header:  # a header being written: look again
                    time.sleep(POLL_S)
                    continue
                if path is None:
                    header = {
                        "kind": "open",
                        "dialogue_id": uuid.uuid4().hex,
                        "idx": idx,
                        "max_user_turns": max_user_turns,
                    }
                    check_header(header)
                    path = folder / f"{idx}-{cls._next_number(folder, idx)}.channel"
                    try:
                        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                    except FileExistsError:
                        continue
                    with os.fdopen(fd, "wb") as out:
                        out.write(_line(header))
                side = cls(path, role, name, header, partner_timeout_s=partner_timeout_s,
                           now=now)  # fmt: skip
                side.post("join", name=name, commit=side._chain.commit)
                return side
        except OSError as exc:
            raise ChannelError(f"cannot use channel {channel!r}: {exc}") from exc
        raise ChannelError(
            f"cannot open channel {channel!r}: its newest conversation on idx {idx} has no "
            "complete header, or too many conversations started at once"
        )

    @staticmethod
    def _numbered(folder: Path, idx: int) -> list[tuple[int, Path]]:
        found = []
        for path in folder.glob(f"{idx}-*.channel"):
            tail = path.stem.split("-", 1)[1]
            if tail.isdigit():
                found.append((int(tail), path))
        return sorted(found)

    @classmethod
    def _next_number(cls, folder: Path, idx: int) -> int:
        numbered = cls._numbered(folder, idx)
        return numbered[-1][0] + 1 if numbered else 1

    @classmethod
    def _find_open(cls, folder: Path, idx: int, role: str) -> tuple[Path | None, dict[str, Any]]:
        """The newest conversation on ``idx`` that is not over and lacks ``role``.

        ``(None, {"pending": True})`` while its header is still being written.

        Raises:
            ChannelError: Its header is not one crmtui writes.
        """
        numbered = cls._numbered(folder, idx)
        if not numbered:
            return None, {}
        path = numbered[-1][1]
        with path.open("rb") as handle:
            data = handle.read(READ_BYTES)
        first, newline, _ = data.partition(b"\n")
        if not newline and len(first) < MAX_LINE_BYTES:
            return None, {"pending": True}
        try:
            header = json.loads(first)
        except (ValueError, RecursionError):
            header = None
        try:
            check_header(header, idx)
        except ChannelError as exc:
            raise ChannelError(f"channel file {path.name} has a bad header: {exc}") from None
        # Only lines each side really wrote decide whether the conversation is open.
        reader = LineReader()
        for number, raw in enumerate(data.split(b"\n")[:-1], 1):
            reader.read(raw, number)
        if reader.over or role in reader.sides:
            return None, {}
        return path, header

    # -- writing ---------------------------------------------------------------------------

    def post(self, kind: str, **data: Any) -> None:
        """Append this side's event (one ``write``); ``end`` and ``leave`` close the channel.

        Every line but the ``join`` carries this side's next link (``tok``).

        Raises:
            ChannelError: The file cannot be written, or a message is past the cap.
        """
        if self.closed:
            return
        text = data.get("text")
        if kind == "message" and isinstance(text, str) and len(text) > MAX_MESSAGE_CHARS:
            raise ChannelError(f"a message holds at most {MAX_MESSAGE_CHARS:,} characters")
        value = {"kind": kind, "role": self.role, **data}
        if kind != "join":
            value["tok"] = self._chain.next()
        # A leading newline too: a torn line another writer left ends here, not inside ours.
        line = b"\n" + _line(value)
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
        except OSError as exc:
            raise ChannelError(f"cannot write to the channel: {exc}") from exc
        self._reader.take_own(value)
        if kind in ("end", "leave"):
            self.closed = True

    def say(self, text: str) -> None:
        """This side's message."""
        self.post("message", text=text)

    def leave(self, why: str) -> None:
        """This side leaves before the end (a no-op once the conversation is over)."""
        with contextlib.suppress(ChannelError):  # leaving anyway; the partner's timeout ends it
            self.post("leave", why=why)
        self.closed = True

    def beat(self) -> None:
        """Touch this side's heartbeat file (at most once per :data:`BEAT_S`)."""
        now = self._now()
        if now - self._last_beat < BEAT_S:
            return
        self._last_beat = now
        alive = self._alive_path(self.role)
        try:
            alive.touch()
            os.utime(alive, (now, now))
        except OSError:
            pass  # a missed beat only shortens the partner's patience

    def _alive_path(self, role: str) -> Path:
        return self.path.with_name(f"{self.path.stem}.{role}.alive")

    # -- reading ---------------------------------------------------------------------------

    def poll(self) -> list[ChannelEvent]:
        """Read the partner's lines appended since the last call into the queue
        :meth:`next_event` takes from; return the events taken.

        Lines that are torn, forged, out of turn or too long are skipped and reported
        (:attr:`problems`, :attr:`on_problem`); a file cut or rewritten under the reader is
        reported and read again from its start (lines already taken are not taken twice).

        Raises:
            ChannelError: The file cannot be read (it is gone).
        """
        try:
            with self.path.open("rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                if self._tail:
                    handle.seek(self._offset - len(self._tail))
                    if size < self._offset or handle.read(len(self._tail)) != self._tail:
                        self._report(
                            ChannelProblem(self._line, f"the channel file was cut or rewritten "
                                           f"(read {self._offset:,} bytes, {size:,} now)")
                        )  # fmt: skip
                        self._reader.cut()
                        self._offset, self._tail, self._partial = 0, b"", b""
                        self._skipping, self._line = False, 0
                handle.seek(self._offset)
                chunk = handle.read(READ_BYTES)
        except OSError as exc:
            raise ChannelError(f"cannot read the channel: {exc}") from exc
        if not chunk:
            return []
        self._offset += len(chunk)
        self._tail = (self._tail + chunk)[-_TAIL:]
        new = []
        for raw in self._complete_lines(chunk):
            self._line += 1
            event, problem = self._reader.read(raw, self._line)
            if problem is not None:
                self._report(problem)
                continue
            if event is None or event.role == self.role:
                continue
            self._partner_seen = self._now()
            if event.kind == "join":
                self.partner_name = str(event.data.get("name") or "") or None
            new.append(event)
        self._events.extend(new)
        return new

    def _complete_lines(self, chunk: bytes) -> list[bytes]:
        """The lines ``chunk`` completes; a line past :data:`MAX_LINE_BYTES` is reported and
        dropped as it is read."""
        data = self._partial + chunk
        *lines, self._partial = data.split(b"\n")
        kept = []
        for raw in lines:
            if self._skipping:  # the end of a line too long to keep
                self._skipping = False
                continue
            if len(raw) > MAX_LINE_BYTES:
                self._line += 1
                self._report(ChannelProblem(self._line, f"longer than {MAX_LINE_BYTES:,} bytes"))
                continue
            kept.append(raw)
        if len(self._partial) > MAX_LINE_BYTES:
            if not self._skipping:
                self._line += 1
                self._report(ChannelProblem(self._line, f"longer than {MAX_LINE_BYTES:,} bytes"))
            self._partial, self._skipping = b"", True
        return kept

    def _report(self, problem: ChannelProblem) -> None:
        self.problems.append(problem)
        if self.on_problem is not None:
            self.on_problem(problem)

    def wait_for_partner(self, cancel: threading.Event | None = None) -> str:
        """Wait until the other side has joined; return its person's name.

        Both recordings name both people in their headers, so neither starts before the
        other has arrived. There is no time limit (the person waiting cancels).

        Raises:
            DialogueCancelled: ``cancel`` was set.
        """
        while True:
            self.beat()
            self.poll()
            if self.partner_name is not None:
                return self.partner_name
            if cancel is not None and cancel.is_set():
                raise DialogueCancelled("stopped waiting for the other person")
            time.sleep(POLL_S)

    def next_event(self, cancel: threading.Event | None = None) -> ChannelEvent:
        """Wait for the partner's next ``message`` or ``end`` (joins are taken in passing).

        Raises:
            DialogueCancelled: ``cancel`` was set.
            PartnerGone: The partner left, or shows no sign of life (no heartbeat and no
                line) for longer than the timeout.
            ChannelError: The channel file cannot be read any more.
        """
        while True:
            while self._events:
                event = self._events.pop(0)
                if event.kind == "end":
                    self.closed = True
                if event.kind in ("message", "end"):
                    return event
                if event.kind == "leave":
                    self.closed = True
                    raise PartnerGone(f"the {event.role} left the conversation")
            self.beat()
            if self.poll():
                continue
            if cancel is not None and cancel.is_set():
                raise DialogueCancelled("the conversation was stopped")
            if self.partner_name is not None and self._partner_silent():
                self.closed = True
                raise PartnerGone(
                    f"the {_other(self.role)} stopped answering "
                    f"(no sign of life for {self.partner_timeout_s:g} s)"
                )
            time.sleep(POLL_S)

    def _partner_silent(self) -> bool:
        """No heartbeat and no line from the partner for longer than the timeout.

        Two signs, so neither one file can keep a dead partner alive for ever: the heartbeat
        file's time, and when this side last read a line of the partner (its join at
        least). A heartbeat file that is missing counts from that line.
        """
        seen = self._partner_seen
        if seen is None:
            seen = self._now()
            self._partner_seen = seen
        with contextlib.suppress(OSError):  # no heartbeat file: the lines alone decide
            seen = max(seen, self._alive_path(_other(self.role)).stat().st_mtime)
        return self._now() - seen > self.partner_timeout_s


def _other(role: str) -> str:
    return "user" if role == "agent" else "agent"


def _line(value: dict[str, Any]) -> bytes:
    return (json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
