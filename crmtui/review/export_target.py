"""Where an export may write: never over what crmtui did not make.

An export writes one file (``--out``). What is at that path already decides:

* nothing: the export is written;
* a regular file that is a previous export of ours, in the same format, recognised by its
  marker (below): refused unless ``force`` (``--force``), then replaced whole;
* anything else (a text file, someone's database, a symlink, a folder, a FIFO, a device
  node such as ``/dev/full``): refused, whatever ``force`` says.

A format written as a folder of files (``inspect``) takes a missing or existing folder and
refuses anything else at the path.

The markers, one per format, are things only our exports hold at their start:

* ``csv``: the header row is exactly :data:`~crmtui.review.export_columns.CSV_COLUMNS`;
* ``jsonl``: the first line is a JSON object with the session row's own keys;
* ``sqlite``: the database header's ``application_id`` is :data:`SQLITE_APPLICATION_ID`
  (``PRAGMA application_id``, bytes 68-71 of the file, read without opening it as SQLite);
* ``hf`` (Parquet): the file starts and ends with ``PAR1`` and its footer names the
  session row's columns.

The file is written beside the target (``NAME.partial``) and renamed over it, after the
target is checked a second time, so a failed export leaves what was there as it was.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import Path

from crmtui.errors import ConfigError
from crmtui.review.export_columns import CSV_COLUMNS
from crmtui.sanitise import printable

__all__ = [
    "SQLITE_APPLICATION_ID",
    "check_target",
    "is_our_export",
    "partial_path",
    "replace_into",
]

#: ``PRAGMA application_id`` of a crmtui SQLite export ("CRMT" in ASCII).
SQLITE_APPLICATION_ID = 0x43524D54
#: Keys the first JSON line of a JSONL export holds (a session row).
_JSONL_KEYS = frozenset({"session_id", "format_version", "crmtui_version", "events", "header"})
#: Column names the footer of a Parquet export names.
_PARQUET_NAMES = (b"session_id", b"crmtui_version", b"format_version")
#: How much of a file the marker checks read at most.
_PEEK = 1 << 20


def _head(path: Path, size: int) -> bytes:
    with path.open("rb") as handle:
        return handle.read(size)


def _is_csv(path: Path) -> bool:
    line = _head(path, 4096).split(b"\n", 1)[0]
    return line == ",".join(CSV_COLUMNS).encode()


def _is_jsonl(path: Path) -> bool:
    data = _head(path, _PEEK)
    line, newline, _ = data.partition(b"\n")
    if not newline:
        return False
    try:
        value = json.loads(line)
    except ValueError:
        return False
    return isinstance(value, dict) and value.keys() >= _JSONL_KEYS


def _is_sqlite(path: Path) -> bool:
    head = _head(path, 100)
    return (
        len(head) == 100
        and head.startswith(b"SQLite format 3\x00")
        and int.from_bytes(head[68:72], "big") == SQLITE_APPLICATION_ID
    )


def _is_parquet(path: Path) -> bool:
    size = path.stat().st_size
    if size < 12:
        return False
    with path.open("rb") as handle:
        if handle.read(4) != b"PAR1":
            return False
        handle.seek(max(0, size - _PEEK))
        tail = handle.read()
    return tail.endswith(b"PAR1") and all(name in tail for name in _PARQUET_NAMES)


_MARKERS = {"csv": _is_csv, "jsonl": _is_jsonl, "sqlite": _is_sqlite, "hf": _is_parquet}


def is_our_export(fmt: str, path: Path) -> bool:
    """Whether the regular file ``path`` is a previous crmtui export in format ``fmt``."""
    marker = _MARKERS.get(fmt)
    if marker is None:
        return False
    try:
        return marker(path)
    except OSError:
        return False


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def check_target(fmt: str, target: Path, *, force: bool) -> None:
    """Refuse to write ``fmt`` at ``target`` unless nothing is there or an export of ours is
    there and ``force`` is set.

    Raises:
        ConfigError: One line naming the path and why.
    """
    shown = printable(str(target))
    try:
        info = target.lstat()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ConfigError(f"cannot write {shown}: {exc.strerror or exc}") from exc
    if fmt not in _MARKERS:  # a format written as a folder of files (inspect)
        if not stat.S_ISDIR(info.st_mode):
            raise ConfigError(
                f"{shown} is {_kind(info.st_mode)}; a {fmt} export writes into a folder "
                "(choose another --out)"
            )
        return
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(
            f"{shown} is {_kind(info.st_mode)}; an export only writes a regular file of its own "
            "(choose another --out)"
        )
    if not is_our_export(fmt, target):
        raise ConfigError(
            f"{shown} already exists and is not a crmtui {fmt} export; it is left as it is "
            "(choose another --out)"
        )
    if not force:
        raise ConfigError(f"{shown} holds an earlier {fmt} export; add --force to replace it")


def partial_path(target: Path) -> Path:
    """Where an export is written before it is renamed over ``target``: a path with nothing
    there (a regular file left by a failed export is removed; anything else is refused).

    Raises:
        ConfigError: Something that is not a regular file holds the path.
    """
    partial = target.with_name(target.name + ".partial")
    try:
        info = partial.lstat()
    except FileNotFoundError:
        return partial
    except OSError as exc:
        raise ConfigError(f"cannot write {printable(str(partial))}: {exc.strerror}") from exc
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(
            f"{printable(str(partial))} is {_kind(info.st_mode)}; the export writes its file "
            "there first (remove it or choose another --out)"
        )
    try:
        partial.unlink()
    except OSError as exc:
        raise ConfigError(f"cannot write {printable(str(partial))}: {exc.strerror}") from exc
    return partial


def replace_into(partial: Path, fmt: str, target: Path, *, force: bool) -> None:
    """Rename the finished ``partial`` over ``target``, checking ``target`` once more (it may
    have changed while the export was written).

    Raises:
        ConfigError: The target is no longer one the export may replace, or the rename failed.
    """
    try:
        check_target(fmt, target, force=force)
        os.replace(partial, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise ConfigError(f"cannot write {printable(str(target))}: {exc.strerror or exc}") from exc
    except ConfigError:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise
