"""Query locators: the server side of ``nextRecordsUrl`` paging (``query_more``).

Salesforce returns at most one batch (2,000 records by default) per response; the rest is
fetched through ``/query/<locator>-<offset>``. The engine returns every record at once, so the
store keeps the full list under a random locator and serves slices of it. Locators expire
(15 minutes, like Salesforce's) and the store holds a bounded number, oldest dropped first.
"""

from __future__ import annotations

import secrets
import string
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
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
