"""Finding sessions left unfinished (crashed or quit mid-way) so they can be resumed or closed,
and clearing away recordings whose header was never written whole (a full disk).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from crmtui.flock import try_lock
from crmtui.record import events as ev
from crmtui.record.errors import RecordingError
from crmtui.record.format import FORMAT_NAME
from crmtui.record.verify import open_regular, scan

_BLOCK = 65536
#: A recording's first bytes: canonical JSON sorts the header's keys, and "actor" comes first.
HEADER_START = b'{"actor":'
#: A first line longer than this without a newline is not a header cut short.
_MAX_HEADER = 1024 * 1024


def _first_line(path: Path) -> bytes:
    with path.open("rb") as handle:
        return handle.readline()


def _last_line(path: Path) -> bytes | None:
    """The last line of ``path`` if it ends with a newline; None for a partial last line."""
    with path.open("rb") as handle:
        handle.seek(0, os.SEEK_END)
        end = handle.tell()
        if end == 0:
            return None
        handle.seek(end - 1)
        if handle.read(1) != b"\n":
            return None
        # Read backwards block by block until the newline before the last line shows up.
        tail = b""
        pos = end - 1  # tail always covers [pos, end - 1): the last line, sans newline
        while pos > 0:
            step = min(_BLOCK, pos)
            pos -= step
            handle.seek(pos)
            tail = handle.read(step) + tail
            cut = tail.rfind(b"\n")
            if cut >= 0:
                return tail[cut + 1 :]
        return tail


def _parse(raw: bytes) -> dict[str, Any] | None:
    try:
        obj = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return obj if isinstance(obj, dict) else None


def find_unfinished(directory: str | os.PathLike[str], actor_id: str | None = None) -> list[Path]:
    """Recordings under ``directory`` (recursively) that have no ``end`` event.

    This is a quick check of each file's first and last line, meant for the "resume or
    close?" prompt; :meth:`Recorder.resume` verifies the whole chain before appending.
    Files that are not crmtui recordings are ignored, and so are sessions a live process is
    still recording (it holds the file's lock: another terminal, another ``crmtui run``):
    they are not unfinished, only elsewhere.

    Args:
        directory: Folder to search (missing folder -> empty list).
        actor_id: Only sessions whose header actor has this id.

    Returns:
        Paths sorted by name (the default names start with the start time, so oldest first).
    """
    root = Path(directory)
    if not root.is_dir():
        return []
    candidates = []
    for path in sorted(root.rglob("*.jsonl")):
        try:
            header = _parse(_first_line(path))
        except OSError:
            continue
        if header is None or header.get("format") != FORMAT_NAME:
            continue
        actor = header.get("actor")
        if actor_id is not None and (not isinstance(actor, dict) or actor.get("id") != actor_id):
            continue
        candidates.append(path)
    return find_unfinished_among(candidates)


def unfinished_of(
    directory: str | os.PathLike[str], actor_id: str, tasks_source: str, idx: int
) -> list[Path]:
    """``actor_id``'s unfinished sessions on instance ``idx`` of ``tasks_source`` (oldest
    first), not held by a live process: opening the instance continues the latest.

    Only that instance's files are read (their names carry ``-idx<N>-``).
    """
    root = Path(directory)
    if not root.is_dir():
        return []
    found = []
    for path in sorted(root.rglob(f"*-idx{idx}-*.jsonl")):
        try:
            header = _parse(_first_line(path))
        except OSError:
            continue
        if (
            header is None
            or header.get("format") != FORMAT_NAME
            or not isinstance(header.get("actor"), dict)
            or header["actor"].get("id") != actor_id
            or header.get("tasks_source") != tasks_source
            or not isinstance(header.get("instance"), dict)
            or header["instance"].get("idx") != idx
        ):
            continue
        found.append(path)
    unfinished = set(find_unfinished_among(found))
    return [path for path in found if path in unfinished]


def find_unfinished_among(paths: list[Path]) -> list[Path]:
    """Those of ``paths`` (recordings) without an ``end`` event and not held elsewhere.

    Only the unfinished are checked for a live owner (an open and a lock each): the
    finished, most of a folder, are not.
    """
    found = []
    for path in paths:
        try:
            last = _last_line(path)
        except OSError:
            continue
        if last is None:
            try:
                if not scan(path)[0].finished:
                    found.append(path)
            except RecordingError:
                continue
            continue
        last_obj = _parse(last)
        if last_obj is None or last_obj.get("type") != ev.END or last_obj.get("kind") == "header":
            found.append(path)
    return [path for path in found if not held_elsewhere(path)]


def held_elsewhere(path: Path) -> bool:
    """Whether a live recorder holds ``path`` (the exclusive lock of crmtui.record.recorder)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        return not try_lock(fd, shared=True)  # never held where there is no flock
    finally:
        os.close(fd)  # also lets go of the shared lock, if it was taken


def is_unwritten(path: Path) -> bool:
    """Whether ``path`` is a recording whose header never got written whole.

    An empty file, or one holding only the start of a header line (no newline yet): what a
    session leaves when the disk fills as it starts. Nothing was recorded, so nothing is lost
    by removing it; left alone it verified as BAD for ever. Anything else (a file that is not
    a recording at all) is not "unwritten".
    """
    try:
        with open_regular(Path(path)) as handle:
            head = handle.read(_MAX_HEADER + 1)
    except RecordingError:
        return False
    if b"\n" in head or len(head) > _MAX_HEADER:
        return False
    return HEADER_START.startswith(head) or head.startswith(HEADER_START)


def discard_unwritten(path: Path) -> bool:
    """Remove ``path`` if it is :func:`is_unwritten` and no live recorder holds it."""
    path = Path(path)
    if not is_unwritten(path) or held_elsewhere(path):
        return False
    try:
        path.unlink()
    except OSError:
        return False
    return True


def discard_unwritten_in(directory: str | os.PathLike[str]) -> list[Path]:
    """:func:`discard_unwritten` every ``*.jsonl`` under ``directory``; the paths removed."""
    root = Path(directory)
    if not root.is_dir():
        return []
    return [path for path in sorted(root.rglob("*.jsonl")) if discard_unwritten(path)]
