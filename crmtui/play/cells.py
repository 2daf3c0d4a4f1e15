"""Values on screen and where they come from: what the viewer opens and a copy records.

A :class:`ValueRef` names the origin of a value (a table cell, a record's field, a console
result cell, a computed row ...) so the recording can say which record and field an answer
was copied from. :func:`value_text` is the one text form of a value that the viewer shows,
the clipboard receives and the recorder stores.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from crmtui.record.events import VALUE_SOURCES

#: Where a value can be opened or copied from.
SOURCES = VALUE_SOURCES


@dataclass(frozen=True)
class ValueRef:
    """The origin of a value on screen.

    Attributes:
        source: One of :data:`SOURCES`.
        field: The column or field name (None for a whole row).
        object: The sObject the value belongs to, when known.
        record: The record's Id, when known.
    """

    source: str
    field: str | None = None
    object: str | None = None
    record: str | None = None

    @property
    def label(self) -> str:
        """``Case.Description · 500...`` for titles and status lines."""
        where = ".".join(p for p in (self.object, self.field) if p) or self.source
        return f"{where} · {self.record}" if self.record else where


def value_text(value: Any) -> str:
    """The text of a value as the viewer shows it and the clipboard receives it.

    Empty values are empty text, checkboxes ``true``/``false``, child-record lists JSON;
    everything else its ``str``, line breaks kept.
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False, indent=2)
    return str(value)


def row_text(values: Sequence[Any]) -> str:
    """A whole row as one line of tab-separated values (spreadsheets paste it as cells)."""
    return "\t".join(" ".join(value_text(v).split()) for v in values)


def row_view_text(columns: Sequence[str], values: Sequence[Any]) -> str:
    """A whole row for the viewer: one ``column: value`` block per column, values whole."""
    blocks = []
    for name, value in zip(columns, values, strict=False):
        text = value_text(value)
        blocks.append(f"{name}:\n{text}" if "\n" in text else f"{name}: {text}")
    return "\n".join(blocks)
