"""Reading and verifying recordings: every line, the chain, and the first thing wrong.

:func:`verify` never raises for a bad recording; it reports the first bad line (1-based)
and what is wrong with it. :func:`load` returns the parsed recording and raises
:class:`~crmtui.record.errors.RecordingError` naming the line instead.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from crmtui.limits import MAX_INT64
from crmtui.record import events as ev
from crmtui.record.dialogue_check import ConversationRules, check_dialogue_event
from crmtui.record.errors import PayloadError, RecordingError
from crmtui.record.format import (
    EVENT_KEYS,
    hash_text,
    is_time,
    object_hash,
    validate_header,
)

# In a canonical event line the keys sort as actor, hash, ms, ...: the top-level hash is the
# first `,"hash":"` in the text (a quote inside a string value is always escaped).
_HASH_MARK = ',"hash":"'
_HASH_SEGMENT = len(_HASH_MARK) + 64 + 1


@dataclass(frozen=True)
class VerifyReport:
    """The outcome of :func:`verify`.

    Attributes:
        path: The file checked.
        ok: True when every line is intact and chained.
        events: Number of intact events (before the first bad line, if any).
        first_bad_line: 1-based number of the first bad line, or None.
        problem: What is wrong with that line, or None.
        truncated: True when the only problem is a partial final line (a write cut short).
        finished: True when the last intact event is ``end``.
        valid_bytes: Length of the intact prefix of the file, in bytes.
    """

    path: Path
    ok: bool
    events: int
    first_bad_line: int | None = None
    problem: str | None = None
    truncated: bool = False
    finished: bool = False
    valid_bytes: int = 0

    def describe(self) -> str:
        """One line for humans: ``OK (...)`` or ``line N: problem``."""
        if self.ok:
            state = "finished" if self.finished else "unfinished"
            return f"OK ({self.events} events, {state})"
        if self.truncated and self.first_bad_line is not None:
            # A writer killed mid-line: everything before the partial line is intact.
            return (
                f"line {self.first_bad_line}: {self.problem} "
                f"(lines 1-{self.first_bad_line - 1} are intact)"
            )
        return f"line {self.first_bad_line}: {self.problem}"


@dataclass(frozen=True)
class Recording:
    """A verified recording: its header and events in order."""

    path: Path
    header: dict[str, Any]
    events: list[ev.Event]

    @property
    def actor(self) -> dict[str, Any]:
        """The header's actor object (``kind``, ``id`` and, for models, ``strategy``)."""
        return dict(self.header["actor"])

    @property
    def instance(self) -> dict[str, Any]:
        """The header's instance object (``idx``, ``task``, ``query``, ``reward_metric``)."""
        return dict(self.header["instance"])

    @property
    def end(self) -> ev.Event | None:
        """The ``end`` event, or None for an unfinished session."""
        if self.events and self.events[-1].type == ev.END:
            return self.events[-1]
        return None

    @property
    def finished(self) -> bool:
        """True when the session has an ``end`` event."""
        return self.end is not None

    @property
    def submit(self) -> ev.Event | None:
        """The first ``submit`` event, if any: a session submits once, and the clock stops
        there (a forged second one is not the answer that counts)."""
        for event in self.events:
            if event.type == ev.SUBMIT:
                return event
        return None

    def of_type(self, *types: str) -> list[ev.Event]:
        """Events whose type is one of ``types``, in order."""
        wanted = set(types)
        return [event for event in self.events if event.type in wanted]


_CHANGED = "hash mismatch (the line was changed after it was written)"
_HEADER_CHANGED = "header hash mismatch (the header was changed after it was written)"


def _hash_problem(text: str, obj: dict[str, Any]) -> str | None:
    """What is wrong with a line's hash or its text, or None when it is as written.

    The recorder writes every line in one canonical form, and a line is intact only in that
    form: the hash of its text minus its hash member is its hash. A line whose content still
    hashes right but whose text differs was rewritten (CRLF line endings, trailing spaces,
    re-serialised JSON): that is named too, not taken as intact.
    """
    recorded = obj.get("hash")
    if not isinstance(recorded, str) or len(recorded) != 64:
        return _CHANGED
    at = text.find(_HASH_MARK)
    if at >= 0 and hash_text(text[:at] + text[at + _HASH_SEGMENT :]) == recorded:
        return None
    try:
        same_content = object_hash(obj) == recorded
    except PayloadError:
        same_content = False
    if not same_content:
        return _CHANGED
    if text.endswith("\r"):
        return "CRLF line ending (the file was rewritten after it was written)"
    if text != text.rstrip():
        return "trailing whitespace (the line was changed after it was written)"
    if text != text.lstrip():
        return "leading whitespace (the line was changed after it was written)"
    return "not in the recorder's canonical JSON (the line was rewritten after it was written)"


def _check_event(
    text: str, obj: dict[str, Any], line: int, prev_hash: str, last_ms: int
) -> str | None:
    if obj.get("kind") == "header":
        return "a second header"
    missing = sorted(EVENT_KEYS - set(obj))
    if missing:
        return f"missing field {missing[0]!r}"
    unknown = sorted(set(obj) - EVENT_KEYS)
    if unknown:
        return f"unknown field {unknown[0]!r}"
    problem = _hash_problem(text, obj)
    if problem is not None:
        return problem
    seq = obj["seq"]
    if type(seq) is not int or seq != line - 1:
        return f"seq is {seq!r}, expected {line - 1} (a line was deleted, inserted or reordered)"
    if obj["prev"] != prev_hash:
        return (
            f"prev does not match the hash of line {line - 1} "
            "(a line was deleted, inserted or reordered)"
        )
    if not is_time(obj["t"]):
        return f"'t' is not an ISO UTC time with ms and Z: {obj['t']!r}"
    ms = obj["ms"]
    if type(ms) is not int or not 0 <= ms <= MAX_INT64:
        return f"'ms' must be an integer from 0 to {MAX_INT64}, not {ms!r}"
    if ms < last_ms:
        return f"'ms' went backwards ({ms} < {last_ms})"
    if not isinstance(obj["actor"], str) or not obj["actor"]:
        return "'actor' must be a non-empty string"
    try:
        ev.validate_payload(obj["type"], obj["payload"])
    except PayloadError as exc:
        return exc.problem
    return None


#: Longest line read (a line longer than this is reported, not loaded into memory).
MAX_LINE_BYTES = 64 * 1024 * 1024


def open_regular(path: Path) -> BinaryIO:
    """Open ``path`` for reading if it is a regular file.

    Opened non-blocking first, so a FIFO is refused at once instead of waiting for a writer;
    devices such as ``/dev/zero`` (endless) are refused too.

    Raises:
        RecordingError: Missing, unreadable, or not a regular file.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise RecordingError(f"cannot read recording: {exc.strerror}", path=path) from exc
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise RecordingError("not a regular file (a device, FIFO or socket)", path=path)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _lines(handle: BinaryIO) -> Iterator[tuple[int, bytes, bool]]:
    """Yield (line number, raw bytes without the newline, complete?) one line at a time.

    A line longer than :data:`MAX_LINE_BYTES` is yielded as its first
    ``MAX_LINE_BYTES + 1`` bytes, incomplete, and ends the iteration.
    """
    number = 0
    while True:
        raw = handle.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if raw.endswith(b"\n"):
            yield number, raw[:-1], True
        else:
            yield number, raw, False
            return


def scan(
    path: str | os.PathLike[str],
) -> tuple[VerifyReport, dict[str, Any] | None, list[ev.Event]]:
    """Verify a recording and return what is intact: report, header, events.

    The file is read line by line (memory stays bounded by the longest line, itself at most
    :data:`MAX_LINE_BYTES`).

    Raises:
        RecordingError: Only if the file cannot be read at all or is not a regular file.
    """
    target = Path(path)
    header: dict[str, Any] | None = None
    events: list[ev.Event] = []
    prev_hash = ""
    last_ms = 0
    valid = 0

    def bad(line: int, problem: str, truncated: bool = False) -> tuple[VerifyReport, Any, Any]:
        finished = bool(events) and events[-1].type == ev.END
        report = VerifyReport(target, False, len(events), line, problem, truncated, finished, valid)
        return report, header, events

    with open_regular(target) as handle:
        try:
            for number, raw, complete in _lines(handle):
                if len(raw) > MAX_LINE_BYTES:
                    return bad(number, f"line longer than {MAX_LINE_BYTES:,} bytes")
                if not complete:
                    if number == 1:  # nothing intact before it: not a recording at all
                        return bad(1, "not a recording (no complete header line)")
                    return bad(number, "truncated final line (partial write)", truncated=True)
                if events and events[-1].type == ev.END:
                    return bad(number, "event after the end event")
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    return bad(number, "not valid UTF-8")
                if not text.strip():
                    return bad(number, "empty line")
                try:
                    obj = json.loads(text)
                except json.JSONDecodeError as exc:
                    return bad(number, f"not valid JSON ({exc.msg} at column {exc.colno})")
                except (RecursionError, ValueError):
                    return bad(number, "not usable JSON (nested too deeply or a huge number)")
                if not isinstance(obj, dict):
                    return bad(number, "not a JSON object")
                if number == 1:
                    try:
                        validate_header(obj)
                    except PayloadError as exc:
                        return bad(1, exc.problem)
                    problem = _hash_problem(text, obj)
                    if problem is not None:
                        return bad(
                            1, _HEADER_CHANGED if problem == _CHANGED else f"header: {problem}"
                        )
                    header = obj
                    rules = ConversationRules(obj)
                else:
                    problem = _check_event(text, obj, number, prev_hash, last_ms)
                    if problem is None and header is not None:
                        problem = check_dialogue_event(header, obj) or rules.check(obj)
                    if problem:
                        return bad(number, problem)
                    events.append(ev.Event.from_dict(obj))
                    last_ms = obj["ms"]
                prev_hash = obj["hash"]
                valid += len(raw) + 1
        except OSError as exc:
            raise RecordingError(f"cannot read recording: {exc.strerror}", path=target) from exc
    if header is None:
        return bad(1, "empty file (no header)")
    finished = bool(events) and events[-1].type == ev.END
    return (
        VerifyReport(target, True, len(events), None, None, False, finished, valid),
        header,
        events,
    )


def verify(path: str | os.PathLike[str]) -> VerifyReport:
    """Check a recording line by line and report the first bad line, if any.

    Raises:
        RecordingError: Only if the file cannot be read at all.
    """
    return scan(path)[0]


def load(path: str | os.PathLike[str]) -> Recording:
    """Read and verify a recording.

    A partial final line makes the file bad here as everywhere (verify, replay, compare,
    report, export); :func:`crmtui.record.recorder.repair` cuts it off.

    Raises:
        RecordingError: Naming the first bad line and its problem.
    """
    report, header, events = scan(path)
    if header is None or not report.ok:
        raise RecordingError(str(report.problem), path=report.path, line=report.first_bad_line)
    return Recording(report.path, header, events)
