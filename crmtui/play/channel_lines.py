"""The lines of a person-to-person channel: who may write what, and how a reader tells.

A channel file is shared by two processes and readable and writable by any other process
of the same user, so a reader takes nothing on trust (:mod:`crmtui.play.channel`):

* **Each side's lines are its own.** A side that joins draws a secret seed and publishes
  in its ``join`` line only the end of a hash chain over it (``commit`` = SHA-256 applied
  :data:`CHAIN_LENGTH` times). Each later line of that side carries the next link back
  (``tok``), whose SHA-256 is the link before it. The link a line reveals is secret until
  that line is written, so no other process can write a line that follows the side's last
  one; a copy of a line already read (a repeat) follows nothing and is skipped.
* **The header is checked** (:func:`check_header`): ``dialogue_id`` a short id,
  ``max_user_turns`` a whole number from 1 to :data:`~crmtui.limits.MAX_USER_TURNS_LIMIT`,
  ``idx`` the instance's own; anything else is one :class:`ChannelError` line.
* **Lines are checked in order** (:class:`LineReader`): a line that is torn or not JSON,
  longer than :data:`MAX_LINE_BYTES`, from a side that has not joined or has ended, that
  does not follow its side's chain, of a kind its side may not send, with a message past
  :data:`~crmtui.limits.MAX_MESSAGE_CHARS`, or out of turn (a user reply past the limit, an
  agent message after the user's ``###STOP###``) is skipped and reported as a
  :class:`ChannelProblem`; reading goes on with the next line.

Writers start every line with a newline as well as ending it with one, so a torn line left
by another writer ends where the next line starts and takes nothing with it.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from crmtui.errors import CrmtuiError
from crmtui.limits import MAX_MESSAGE_CHARS, MAX_USER_TURNS_LIMIT

__all__ = [
    "CHAIN_LENGTH",
    "MAX_LINE_BYTES",
    "ChannelError",
    "ChannelEvent",
    "ChannelProblem",
    "LineReader",
    "SideChain",
    "check_header",
]

#: Lines one side may write after its join (far more than any conversation holds).
CHAIN_LENGTH = 4096
#: The longest line a reader takes (a message at the cap, every character escaped, and room
#: for the other fields); a longer one is skipped without being held in memory.
MAX_LINE_BYTES = 6 * MAX_MESSAGE_CHARS + 65_536
#: Characters of a person's name in a ``join`` line.
MAX_NAME_CHARS = 200

_DIALOGUE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
#: What each side may send after its join.
_KINDS = {"user": ("message", "leave"), "agent": ("message", "end", "leave")}
_STOP = "###STOP###"


class ChannelError(CrmtuiError):
    """The channel cannot be used (a bad name or header, a file that cannot be used)."""


@dataclass(frozen=True)
class ChannelEvent:
    """One accepted line of the partner (``join``, ``message``, ``end`` or ``leave``)."""

    kind: str
    role: str
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """A message's text."""
        return str(self.data.get("text", ""))


@dataclass(frozen=True)
class ChannelProblem:
    """A line the reader skipped, and why (shown to the person, never fatal)."""

    line: int
    why: str

    def __str__(self) -> str:
        return f"channel line {self.line} skipped: {self.why}"


def _hash(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


class SideChain:
    """This side's secret hash chain: the commitment for its ``join``, then one link a line."""

    def __init__(self, length: int = CHAIN_LENGTH) -> None:
        links = [secrets.token_bytes(32)]
        for _ in range(length):
            links.append(_hash(links[-1]))
        self.commit = links.pop().hex()
        self._links = links  # popped from the end: the link whose hash is the last published

    def next(self) -> str:
        """The link for this side's next line.

        Raises:
            ChannelError: The side wrote :data:`CHAIN_LENGTH` lines already.
        """
        if not self._links:
            raise ChannelError("this side has written as many lines as a channel allows")
        return self._links.pop().hex()


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_header(value: Any, idx: int | None = None) -> tuple[str, int]:
    """``(dialogue_id, max_user_turns)`` of a channel's ``open`` line.

    Raises:
        ChannelError: The header is not one crmtui writes (one line naming the field).
    """
    if not isinstance(value, dict) or value.get("kind") != "open":
        raise ChannelError("its first line is not a channel header")
    dialogue_id = value.get("dialogue_id")
    if not isinstance(dialogue_id, str) or not _DIALOGUE_ID.match(dialogue_id):
        raise ChannelError(
            f"its dialogue_id must be 1-64 letters or digits, not {dialogue_id!r:.40}"
        )
    turns = value.get("max_user_turns")
    if not _whole(turns) or not 1 <= turns <= MAX_USER_TURNS_LIMIT:
        raise ChannelError(
            f"its max_user_turns must be a whole number from 1 to {MAX_USER_TURNS_LIMIT}, "
            f"not {turns!r:.40}"
        )
    if idx is not None and value.get("idx") != idx:
        raise ChannelError(f"its idx is {value.get('idx')!r:.40}, not {idx}")
    return dialogue_id, turns


def _fields_problem(kind: str, value: Mapping[str, Any]) -> str | None:
    """What is wrong with the fields of an accepted side's line (None: nothing)."""
    if kind == "message":
        text = value.get("text")
        if not isinstance(text, str):
            return "a message without text"
        if len(text) > MAX_MESSAGE_CHARS:
            return f"a message of {len(text):,} characters (at most {MAX_MESSAGE_CHARS:,})"
    elif kind == "end":
        reason, reward = value.get("end_reason"), value.get("reward")
        if reason is not None and not isinstance(reason, dict):
            return "an end whose end_reason is not an object"
        if reward is not None and (
            isinstance(reward, bool)
            or not isinstance(reward, int | float)
            or not math.isfinite(reward)
        ):
            return "an end whose reward is not a number"
    elif kind == "leave" and not isinstance(value.get("why", ""), str):
        return "a leave whose reason is not text"
    return None


@dataclass
class _Side:
    """What the reader knows of one side: its chain's last link and whether it is over."""

    commit: str
    last: bytes
    name: str
    seen: set[str] = field(default_factory=set)
    over: bool = False


class LineReader:
    """Checks a channel's lines in order; keeps the conversation's state to judge turns.

    Attributes:
        header: The ``open`` line, once read.
        sides: The sides that joined, by role.
    """

    def __init__(self) -> None:
        self.header: dict[str, Any] | None = None
        self.sides: dict[str, _Side] = {}
        self._awaiting = "user"  # the user opens
        self._user_turns = 0
        self._ended = False  # the user's STOP or the limit: no more messages
        self._agent_spoke = False
        self._own: dict[str, dict[str, Any]] = {}  # this side's lines not read back yet

    def read(self, raw: bytes, line: int) -> tuple[ChannelEvent | None, ChannelProblem | None]:
        """Judge one complete line (without its newline): an event, a problem, or neither
        (a blank line, or a repeat of a line already taken)."""
        if not raw.strip():
            return None, None
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            return None, ChannelProblem(line, "torn or not JSON")
        if not isinstance(value, dict) or not isinstance(value.get("kind"), str):
            return None, ChannelProblem(line, "not a channel line")
        kind, role = value["kind"], value.get("role")
        if kind == "open":
            if self.header is None:
                self.header = value
                return None, None
            if value == self.header:
                return None, None  # read again after the file was cut
            return None, ChannelProblem(line, "a second header")
        if self.header is None:
            return None, ChannelProblem(line, "a line before the header")
        if role not in _KINDS:
            return None, ChannelProblem(line, f"an unknown role {str(role)!r:.20}")
        if kind == "join":
            return self._join(value, role, line)
        side = self.sides.get(role)
        if side is None:
            return None, ChannelProblem(line, f"the {role} has not joined")
        token = value.get("tok")
        if isinstance(token, str) and token in side.seen:
            return None, None  # a repeat of a line already taken
        if not self._follows(side, token):
            return None, ChannelProblem(line, f"not written by the {role} (forged?)")
        self._own.pop(token, None)
        event, problem = self._take(value)
        return event, None if problem is None else ChannelProblem(line, problem)

    def take_own(self, value: Mapping[str, Any]) -> None:
        """Note a line this side just wrote. It counts when it is read back, in its place
        in the file; if the file is cut before that (:meth:`cut`), it counts then, so the
        partner's next line is not judged out of turn for a line that vanished."""
        if value.get("kind") == "join":
            role, commit = str(value.get("role")), str(value["commit"])
            self.sides[role] = _Side(commit, bytes.fromhex(commit), str(value.get("name")))
        elif isinstance(value.get("tok"), str):
            self._own[value["tok"]] = dict(value)

    def cut(self) -> None:
        """The file was cut: this side's lines not read back yet count now, in order."""
        pending, self._own = self._own, {}
        for token, value in pending.items():
            side = self.sides[value["role"]]
            side.last = bytes.fromhex(token)
            side.seen.add(token)
            self._take(value)

    def _take(self, value: Mapping[str, Any]) -> tuple[ChannelEvent | None, str | None]:
        """Apply an accepted side's tokened line: (its event, or the problem with it)."""
        kind, role = value["kind"], value["role"]
        side = self.sides[role]
        if side.over:
            return None, f"the {role} had already ended"
        if kind not in _KINDS[role]:
            return None, f"the {role} may not send {kind!r:.20}"
        problem = _fields_problem(kind, value)
        if problem is None and kind == "message":
            problem = self._turn(role, value["text"])
        if problem is not None:
            return None, problem
        if kind in ("end", "leave"):
            side.over = True
        data = {k: v for k, v in value.items() if k not in ("kind", "role", "tok")}
        return ChannelEvent(kind, role, data), None

    def _join(
        self, value: Mapping[str, Any], role: str, line: int
    ) -> tuple[ChannelEvent | None, ChannelProblem | None]:
        commit, name = value.get("commit"), value.get("name")
        known = self.sides.get(role)
        if known is not None:
            if commit == known.commit:
                return None, None  # read again after the file was cut
            return None, ChannelProblem(line, f"a second join for the {role} (forged?)")
        if not isinstance(commit, str) or not _HEX64.match(commit):
            return None, ChannelProblem(line, "a join without its commitment")
        if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME_CHARS:
            return None, ChannelProblem(line, "a join without a name")
        self.sides[role] = _Side(commit, bytes.fromhex(commit), name)
        return ChannelEvent("join", role, {"name": name}), None

    @staticmethod
    def _follows(side: _Side, token: Any) -> bool:
        if not isinstance(token, str) or not _HEX64.match(token):
            return False
        link = bytes.fromhex(token)
        if _hash(link) != side.last:
            return False
        side.last = link
        side.seen.add(token)
        return True

    def _turn(self, role: str, text: str) -> str | None:
        """Whether ``role`` may say ``text`` now (a user's STOP may come at any moment)."""
        assert self.header is not None
        if self._ended:
            return f"a {role} message after the conversation ended"
        stop = role == "user" and _STOP in text
        if role != self._awaiting and not stop:
            return f"a {role} message out of turn (the {self._awaiting}'s turn)"
        if role == "user":
            if stop:
                self._ended = True
                return None
            if self._agent_spoke:  # the opening message is not a reply
                self._user_turns += 1
            if self._user_turns >= int(self.header["max_user_turns"]):
                self._ended = True
            self._awaiting = "agent"
        else:
            self._agent_spoke = True
            self._awaiting = "user"
        return None

    @property
    def over(self) -> bool:
        """Whether a side ended or left (the conversation takes nobody new)."""
        return any(side.over for side in self.sides.values())
