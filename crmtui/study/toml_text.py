"""Writing the small TOML subset a study definition uses (Python reads TOML, never writes it).

Values are strings, ints, floats, bools, lists of those, and tables (one level of dotted
sub-tables). ``None`` values are left out, since TOML has no null.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")  # used with fullmatch: "$" matches before a final newline
_WRAP = 96


def key_text(key: str) -> str:
    """A key as TOML writes it: bare when it can be, else a quoted string."""
    return key if _BARE_KEY.fullmatch(key) else value_text(key)


def value_text(value: Any) -> str:
    """One TOML value.

    Raises:
        TypeError: For values outside the subset (None, nested mappings, NaN).
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TypeError(f"no TOML for {value!r} here")
        return repr(value)
    if isinstance(value, str):
        # A JSON string is a valid TOML basic string for everything JSON escapes.
        # DEL is the one control character JSON leaves raw and TOML does not allow.
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, Sequence):
        items = [value_text(item) for item in value]
        one_line = "[" + ", ".join(items) + "]"
        if len(one_line) <= _WRAP:
            return one_line
        lines, line = [], ""
        for item in items:
            if line and len(line) + len(item) + 2 > _WRAP:
                lines.append(line)
                line = ""
            line += item + ", "
        lines.append(line)
        return "[\n" + "\n".join("  " + text.rstrip() for text in lines) + "\n]"
    raise TypeError(f"no TOML for {type(value).__name__} here")


def dumps(document: Mapping[str, Any], comment: str = "") -> str:
    """TOML text for ``document``: plain keys first, then each table (and its sub-tables).

    Args:
        document: Keys to values; a mapping value becomes a table, a mapping inside it a
            sub-table (``[outer.inner]``).
        comment: Lines written at the top as ``#`` comments.
    """
    out = [f"# {line}".rstrip() for line in comment.splitlines()]
    if out:
        out.append("")
    out += _pairs(document)
    for name, table in document.items():
        if isinstance(table, Mapping):
            out += _table([name], table)
    return "\n".join(out).rstrip() + "\n"


def _pairs(table: Mapping[str, Any]) -> list[str]:
    return [
        f"{key_text(key)} = {value_text(value)}"
        for key, value in table.items()
        if value is not None and not isinstance(value, Mapping)
    ]


def _table(path: list[str], table: Mapping[str, Any]) -> list[str]:
    pairs = _pairs(table)
    out: list[str] = []
    if pairs or not any(isinstance(sub, Mapping) for sub in table.values()):
        # A table holding only sub-tables needs no header of its own.
        out = ["", "[" + ".".join(key_text(part) for part in path) + "]", *pairs]
    for name, sub in table.items():
        if isinstance(sub, Mapping):
            out += _table([*path, name], sub)
    return out
