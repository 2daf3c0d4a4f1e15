"""Two people in one dialogue, each in their own process: the channel between them.

``crmtui play --interactive --channel NAME`` (a person as the agent) and
``crmtui play --as-user --channel NAME`` (a person as the user) meet in a channel: an
append-only file of JSON lines under the recordings folder,
``channels/<NAME>/<idx>-<n>.channel`` (one file per conversation on instance ``idx``; ``n``
counts the conversations held there; not ``.jsonl``, the name every scan of the folder
takes for a recording). The first side to open the instance creates it with
a fresh dialogue id (its first line, ``open``); the other side joins it and takes that id, so
both recordings carry it. Each side appends its own events and reads the other's:

* ``join`` (``role``, ``name``): a side arrived;
* ``message`` (``role``, ``text``): something said; a user's ``###STOP###`` ends the
  conversation, at any moment;
* ``end`` (the agent's ``end_reason`` and ``reward``): the agent's episode is over;
* ``leave`` (``role``, ``why``): a side left before the end (Esc, quit).

A side that dies writes no ``leave``: while a side waits it touches its heartbeat file
(``<idx>-<n>.<role>.alive``) every second, and a partner whose heartbeat is older than
``partner_timeout_s`` (:data:`PARTNER_TIMEOUT_S`) counts as gone; the waiting side then ends
the conversation as abandoned. Before the partner has joined there is no time limit.

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crmtui.errors import CrmtuiError
from crmtui.play.dialogue_sides import DialogueCancelled

__all__ = [
    "ABANDONED",
    "PARTNER_TIMEOUT_S",
    "Channel",
    "ChannelError",
    "ChannelEvent",
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

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class ChannelError(CrmtuiError):
    """The channel cannot be used (a bad name, the role already taken, a broken file)."""


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


@dataclass(frozen=True)
class ChannelEvent:
    """One line of the channel (see the module docstring for the kinds)."""

    kind: str
    role: str
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """A message's text."""
        return str(self.data.get("text", ""))


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
        self.dialogue_id = str(header["dialogue_id"])
        self.max_user_turns = int(header["max_user_turns"])
        self.partner_timeout_s = partner_timeout_s
        self._now = now
        self._offset = 0
        self._partial = b""
        self._events: list[ChannelEvent] = []
        self._last_beat = 0.0
        self.partner_name: str | None = None
        self.closed = False

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
            ChannelError: A bad name or role, or a file that cannot be read or written.
        """
        if role not in ("agent", "user"):
            raise ChannelError(f"a channel side is 'agent' or 'user', not {role!r}")
        folder = Path(root) / "channels" / check_channel_name(channel)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for _ in range(100):  # another process may create the same file meanwhile
                path, header = cls._find_open(folder, idx, role)
                if path is None:
                    header = {
                        "kind": "open",
                        "dialogue_id": uuid.uuid4().hex,
                        "idx": idx,
                        "max_user_turns": max_user_turns,
                    }
                    path = folder / f"{idx}-{cls._next_number(folder, idx)}.channel"
                    try:
                        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                    except FileExistsError:
                        continue
                    with os.fdopen(fd, "wb") as out:
                        out.write(_line(header))
                side = cls(path, role, name, header, partner_timeout_s=partner_timeout_s,
                           now=now)  # fmt: skip
                side.post("join", name=name)
                return side
        except OSError as exc:
            raise ChannelError(f"cannot use channel {channel!r}: {exc}") from exc
        raise ChannelError(f"cannot open channel {channel!r}: too many conversations at once")

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
        """The newest conversation on ``idx`` that is not over and lacks ``role``."""
        numbered = cls._numbered(folder, idx)
        if not numbered:
            return None, {}
        path = numbered[-1][1]
        lines = _read_lines(path.read_bytes())
        if not lines or lines[0].get("kind") != "open":
            return None, {}
        kinds = {(line.get("kind"), line.get("role")) for line in lines[1:]}
        over = any(kind in ("end", "leave") for kind, _ in kinds)
        if over or ("join", role) in kinds:
            return None, {}
        return path, lines[0]

    # -- writing ---------------------------------------------------------------------------

    def post(self, kind: str, **data: Any) -> None:
        """Append this side's event (one ``write``); ``end`` and ``leave`` close the channel.

        Raises:
            ChannelError: The file cannot be written.
        """
        if self.closed:
            return
        line = _line({"kind": kind, "role": self.role, **data})
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
        except OSError as exc:
            raise ChannelError(f"cannot write to the channel: {exc}") from exc
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
        """Read the partner's events appended since the last call (this side's are
        skipped) into the queue :meth:`next_event` takes from; return them."""
        try:
            with self.path.open("rb") as handle:
                handle.seek(self._offset)
                chunk = handle.read()
        except OSError as exc:
            raise ChannelError(f"cannot read the channel: {exc}") from exc
        self._offset += len(chunk)
        data = self._partial + chunk
        complete, _, self._partial = data.rpartition(b"\n")
        new = []
        for value in _read_lines(complete + b"\n" if complete else b""):
            if value.get("kind") == "open" or value.get("role") == self.role:
                continue
            event = ChannelEvent(
                str(value.get("kind")),
                str(value.get("role")),
                {k: v for k, v in value.items() if k not in ("kind", "role")},
            )
            if event.kind == "join":
                self.partner_name = str(event.data.get("name") or "") or None
            new.append(event)
        self._events.extend(new)
        return new

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
            PartnerGone: The partner left, or its heartbeat is older than the timeout.
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
        try:
            seen = self._alive_path(_other(self.role)).stat().st_mtime
        except OSError:
            return False  # joined but not waiting yet: its first beat is on the way
        return self._now() - seen > self.partner_timeout_s


def _other(role: str) -> str:
    return "user" if role == "agent" else "agent"


def _line(value: dict[str, Any]) -> bytes:
    return (json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def _read_lines(data: bytes) -> list[dict[str, Any]]:
    """The JSON objects of complete lines (a torn or foreign line is skipped)."""
    values = []
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except ValueError:
            continue
        if isinstance(value, dict):
            values.append(value)
    return values
