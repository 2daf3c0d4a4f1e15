"""Stored dates read back, shared by the CRMArena and the CRMArena-Pro readings (a module of
its own so that pro_rows need not import rows, which loads pro_rows on demand)."""

from __future__ import annotations

from datetime import datetime
from typing import Any


def stamp(value: Any) -> datetime | None:
    """A stored date or datetime as a naive UTC datetime (None when empty)."""
    if not value:
        return None
    text = str(value).strip()
    if len(text) == 10:
        return datetime.fromisoformat(text)
    return datetime.fromisoformat(text[:19])
