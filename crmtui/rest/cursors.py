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
        records: Every record of the result.
        total: The result's ``totalSize``.
        page_size: Records per page for this query.
        text: The query text (for the request log).
        expires: Monotonic time after which the locator is invalid.
    """

    records: list[dict[str, Any]]
    total: int
    page_size: int
    text: str
    expires: float


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
        locator = "01g" + "".join(secrets.choice(_ALPHABET) for _ in range(15))
        cursor = Cursor(records, total, page_size, text, self._clock() + self.lifetime_s)
        with self._lock:
            self._expire()
            self._data[locator] = cursor
            while len(self._data) > self.capacity:
                self._data.popitem(last=False)
        return locator

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
    """A :class:`CursorStore` kept in a folder, so every worker process sees every locator.

    A pre-forked server answers a ``query_more`` on whichever worker accepted the connection;
    the records are written once (JSON, one file per locator, written to a temporary name and
    renamed so a reader never sees half a file) and read back by any worker. Expiry follows the
    file's age; the oldest files beyond the capacity are removed.
    """

    def __init__(
        self, folder: Path, *, capacity: int = MAX_CURSORS, lifetime_s: float = LIFETIME_S
    ) -> None:
        super().__init__(capacity=capacity, lifetime_s=lifetime_s, clock=time.time)
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def open(self, records: list[dict[str, Any]], total: int, page_size: int, text: str) -> str:
        """Write ``records`` to the folder and return a new locator."""
        locator = "01g" + "".join(secrets.choice(_ALPHABET) for _ in range(15))
        body = {"records": records, "total": total, "page_size": page_size, "text": text}
        scratch = self.folder / f".{locator}.{os.getpid()}.tmp"
        scratch.write_text(json.dumps(body, ensure_ascii=False, default=str), encoding="utf-8")
        os.replace(scratch, self.folder / f"{locator}.json")
        self._expire()
        return locator

    def get(self, locator: str) -> Cursor | None:
        """The cursor for ``locator`` (whichever worker opened it), or None."""
        if not locator.isalnum():
            return None
        path = self.folder / f"{locator}.json"
        try:
            expires = path.stat().st_mtime + self.lifetime_s
            if expires <= self._clock():
                return None
            body = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return Cursor(body["records"], body["total"], body["page_size"], body["text"], expires)

    def __len__(self) -> int:
        return len(list(self.folder.glob("*.json")))

    def _expire(self) -> None:
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


def split_locator(identifier: str) -> tuple[str, int] | None:
    """``01gAbc...-4000`` -> (``01gAbc...``, 4000); None when it is not in that shape."""
    locator, sep, offset = identifier.rpartition("-")
    if not sep or not locator or not offset.isdigit():
        return None
    return locator, int(offset)


def page_size_from(header: str | None) -> int:
    """The batch size asked for in a ``Sforce-Query-Options`` header (200..2000)."""
    if not header:
        return PAGE_SIZE
    for part in header.split(","):
        key, _, value = part.partition("=")
        if key.strip().lower() == "batchsize" and value.strip().isdigit():
            return max(MIN_PAGE_SIZE, min(PAGE_SIZE, int(value.strip())))
    return PAGE_SIZE
