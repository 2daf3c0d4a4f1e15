"""Query locators: the server side of ``nextRecordsUrl`` paging (``query_more``).

Salesforce returns at most one batch (2,000 records by default) per response; the rest is
fetched through ``/query/<locator>-<offset>``. The engine returns every record at once, so the
store keeps the full list under a random locator and serves slices of it. Locators expire
(15 minutes, like Salesforce's) and the store holds a bounded number, oldest dropped first.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import string
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Salesforce's default and maximum batch size.
PAGE_SIZE = 2000
#: Smallest batch size a client may ask for with ``Sforce-Query-Options: batchSize=N``.
MIN_PAGE_SIZE = 200
LIFETIME_S = 15 * 60
MAX_CURSORS = 64

_ALPHABET = string.ascii_letters + string.digits


@dataclass
class Cursor:
    """The records of one query still being paged.

    Attributes:
        records: Every record of the result; None when this process does not hold them (a
            :class:`SharedCursorStore` locator opened by another worker): the API then runs
            ``text`` again, which gives the same records in the same order on a read-only org.
        total: The result's ``totalSize``.
        page_size: Records per page for this query.
        text: The query text (for the request log, and to run it again).
        expires: Monotonic time after which the locator is invalid.
    """

    records: list[dict[str, Any]] | None
    total: int
    page_size: int
    text: str
    expires: float


def new_locator() -> str:
    """A random query locator in Salesforce's shape (``01g`` + 15 characters)."""
    return "01g" + "".join(secrets.choice(_ALPHABET) for _ in range(15))


class CursorStore:
    """Thread-safe, bounded, expiring map from locator to :class:`Cursor`."""

    def __init__(
        self,
        *,
        capacity: int = MAX_CURSORS,
        lifetime_s: float = LIFETIME_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.capacity = capacity
        self.lifetime_s = lifetime_s
        self._clock = clock
        self._data: OrderedDict[str, Cursor] = OrderedDict()
        self._lock = threading.Lock()

    def open(self, records: list[dict[str, Any]], total: int, page_size: int, text: str) -> str:
        """Keep ``records`` for paging and return a new locator (``01g`` + 15 characters)."""
        locator = new_locator()
        self.keep(locator, Cursor(records, total, page_size, text, 0.0))
        return locator

    def keep(self, locator: str, cursor: Cursor) -> None:
        """Hold ``cursor`` under ``locator`` in this process, expiring a lifetime from now."""
        cursor.expires = self._clock() + self.lifetime_s
        with self._lock:
            self._expire()
            self._data[locator] = cursor
            while len(self._data) > self.capacity:
                self._data.popitem(last=False)

    def get(self, locator: str) -> Cursor | None:
        """The cursor for ``locator``, or None when unknown or expired."""
        with self._lock:
            self._expire()
            return self._data.get(locator)

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)

    def _expire(self) -> None:
        now = self._clock()
        for key in [k for k, c in self._data.items() if c.expires <= now]:
            del self._data[key]


class SharedCursorStore(CursorStore):
    """A :class:`CursorStore` whose locators every worker process of a pre-forked server knows.

    The worker that runs a query keeps its records in memory, as :class:`CursorStore` does,
    and writes a small note (query text, total, page size; no records) to the shared folder,
    written to a temporary name and renamed so a reader never sees half a file. A
    ``query_more`` nearly always reaches the same worker (clients keep their connection
    alive); one that reaches another worker finds the note, and the API runs the query again
    there (then that worker keeps the records too). Writing the records themselves cost more
    than the query did: 71,000 order items took longer to serialise than to fetch, on every
    query bigger than a page. Expiry follows the note's age; the oldest notes beyond the
    capacity are removed.
    """

    def __init__(
        self, folder: Path, *, capacity: int = MAX_CURSORS, lifetime_s: float = LIFETIME_S
    ) -> None:
        super().__init__(capacity=capacity, lifetime_s=lifetime_s, clock=time.time)
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def open(self, records: list[dict[str, Any]], total: int, page_size: int, text: str) -> str:
        """Keep ``records`` here, note the locator in the folder and return it."""
        locator = new_locator()
        body = {"total": total, "page_size": page_size, "text": text}
        scratch = self.folder / f".{locator}.{os.getpid()}.tmp"
        scratch.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
        os.replace(scratch, self.folder / f"{locator}.json")
        self._expire_notes()
        self.keep(locator, Cursor(records, total, page_size, text, 0.0))
        return locator

    def get(self, locator: str) -> Cursor | None:
        """The cursor for ``locator``: with its records when this worker holds them, else
        without (``records`` None) when another worker opened it; None when unknown."""
        if not locator.isalnum():
            return None
        path = self.folder / f"{locator}.json"
        try:
            expires = path.stat().st_mtime + self.lifetime_s
        except OSError:
            return None  # never opened, expired, or pushed out by newer ones
        if expires <= self._clock():
            return None
        held = super().get(locator)
        if held is not None:
            return held
        try:
            body = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return Cursor(None, body["total"], body["page_size"], body["text"], expires)

    def __len__(self) -> int:
        return len(list(self.folder.glob("*.json")))

    def _expire_notes(self) -> None:
        now = self._clock()
        files = []
        for path in self.folder.glob("*.json"):
            try:
                files.append((path.stat().st_mtime, path))
            except OSError:
                continue  # another worker removed it
        files.sort()
        stale = [p for t, p in files if t + self.lifetime_s <= now]
        stale += [p for _, p in files[: max(0, len(files) - self.capacity)]]
        for path in stale:
            with contextlib.suppress(OSError):
                path.unlink()


#: Most digits a locator's offset may have (a 5,000-digit one hit Python's int limit).
MAX_OFFSET_DIGITS = 15


def split_locator(identifier: str) -> tuple[str, int] | None:
    """``01gAbc...-4000`` -> (``01gAbc...``, 4000); None when it is not in that shape.

    The offset is ASCII digits, at most :data:`MAX_OFFSET_DIGITS` of them: anything else is
    not a locator this server made (``INVALID_QUERY_LOCATOR``).
    """
    locator, sep, offset = identifier.rpartition("-")
    if not sep or not locator or not _is_count(offset, MAX_OFFSET_DIGITS):
        return None
    return locator, int(offset)


def _is_count(text: str, digits: int) -> bool:
    return 0 < len(text) <= digits and text.isascii() and text.isdigit()


def page_size_from(header: str | None) -> int:
    """The batch size asked for in a ``Sforce-Query-Options`` header (200..2000)."""
    if not header:
        return PAGE_SIZE
    for part in header.split(","):
        key, _, value = part.partition("=")
        if key.strip().lower() == "batchsize" and _is_count(value.strip(), 9):
            return max(MIN_PAGE_SIZE, min(PAGE_SIZE, int(value.strip())))
    return PAGE_SIZE
