"""Reading a local task file safely, before ``datasets`` (and pyarrow under it) sees it.

pyarrow's JSON reader crashes the process on some inputs (a file holding ``null``, rows
nested thousands of levels deep) and Python's ``json`` raises ``RecursionError`` or
``ValueError`` on others. Every local JSON task file is therefore read here first with the
json module and checked: a regular file of sane size, UTF-8 (a byte order mark is allowed),
one JSON list of row objects or JSON lines of them, nesting depth at most
:data:`MAX_DEPTH`, and every ``idx`` an integer from 0 to :data:`crmtui.limits.MAX_IDX`.
Only a file that passes is handed to ``datasets``; every failure is one
:class:`~crmtui.errors.DatasetError` naming the line or row.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from crmtui.errors import DatasetError
from crmtui.limits import idx_range_problem

#: Deepest nesting of lists/objects accepted (a CRMArena row is 3 deep).
MAX_DEPTH = 32
#: Largest task file read (the real CRMArena file is ~5 MB).
MAX_BYTES = 1 << 30


def check_regular_file(path: Path, what: str = "task file") -> int:
    """Return the size of ``path`` if it is a regular file of at most :data:`MAX_BYTES`.

    Device files (``/dev/zero``), FIFOs and sockets are refused: reading them never ends
    or blocks.

    Raises:
        DatasetError: Missing, not a regular file, unreadable or too large.
    """
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise DatasetError(f"{what} not found: {path}") from None
    except OSError as exc:
        raise DatasetError(f"cannot read {path}: {exc.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        raise DatasetError(f"task source is a directory, not a file: {path}")
    if not stat.S_ISREG(info.st_mode):
        raise DatasetError(f"{path} is not a regular file (a device, FIFO or socket)")
    if info.st_size > MAX_BYTES:
        raise DatasetError(f"{path} is too large ({info.st_size:,} bytes; at most {MAX_BYTES:,})")
    return info.st_size


def read_json_rows(path: Path) -> list[Any]:
    """The rows of a JSON (one list, or one row object) or JSON-lines task file, checked.

    Raises:
        DatasetError: Unreadable, not UTF-8, not JSON, not rows, too deep, or an ``idx``
            that is not an integer in range; naming the line or row.
    """
    check_regular_file(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DatasetError(f"cannot read {path}: {exc.strerror}") from None
    try:
        text = data.decode("utf-8-sig")  # a leading byte order mark is dropped
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DatasetError(
            f"{path} is not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line})"
        ) from None
    rows = _parse(path, text)
    check_rows(rows, path)
    return rows


def _loads(text: str) -> Any:
    """json.loads with Python's own limits turned into ValueError."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"nested more than {MAX_DEPTH} levels deep") from None


def _parse(path: Path, text: str) -> list[Any]:
    try:
        data = _loads(text)
    except json.JSONDecodeError as exc:
        if text.lstrip().startswith("["):
            raise DatasetError(f"{path} is not valid JSON: {exc}") from None
        return _json_lines(path, text)
    except ValueError as exc:  # nesting, or an integer of thousands of digits
        raise DatasetError(f"{path} is not usable JSON: {_short(exc)}") from None
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        if "idx" in data:
            return [data]
        raise DatasetError(f"{path} holds one JSON object, not a list of rows")
    if data is None and not text.strip():
        return []
    raise DatasetError(
        f"{path} holds no rows ({_kind(data)}); expected a JSON list of objects or JSON lines"
    )


def _json_lines(path: Path, text: str) -> list[Any]:
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append(_loads(line))
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path} line {number} is not valid JSON: {exc}") from None
        except ValueError as exc:
            raise DatasetError(f"{path} line {number} is not usable JSON: {_short(exc)}") from None
    return rows


def _short(exc: Exception) -> str:
    text = str(exc)
    if "digits" in text:  # Python's "Exceeds the limit (4300 digits) ..." says too much
        return "a number has thousands of digits"
    return text


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return type(value).__name__


def check_rows(rows: list[Any], source: object) -> None:
    """Check what ``datasets`` must never be given: non-object rows, deep nesting, bad idx.

    Raises:
        DatasetError: Naming the row (by position, or by idx once it is known) and the
            problem.
    """
    for position, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            got = "null" if row is None else type(row).__name__
            raise DatasetError(f"{source}: row #{position}: expected an object, got {got}")
        idx = row.get("idx")
        problem = idx_range_problem(idx) if type(idx) is int else None
        if problem is not None:
            raise DatasetError(f"{source}: row #{position}: {problem}")
        if nesting_depth(row) > MAX_DEPTH:
            raise DatasetError(
                f"{source}: row #{position} is nested more than {MAX_DEPTH} levels deep"
            )


def nesting_depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """Nesting depth of lists and dicts in ``value`` (a scalar is 0), counted up to limit+1.

    Iterative, so a value nested deeper than Python's recursion limit is measured too.
    """
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth) for child in children if isinstance(child, dict | list))
    return deepest
