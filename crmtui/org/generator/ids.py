"""Salesforce-style record Ids: key prefix, pod, base62 counter and the case-safe suffix.

A Salesforce Id is 15 case-sensitive characters; the 18-character form appends three
characters that encode, for each 5-character chunk, which characters are upper-case
letters. That suffix makes the Id unique even when compared case-insensitively, and it is
what upstream's data shows (``005Ws000001xSR9IAM``).
"""

from __future__ import annotations

import random
import string

from crmtui.errors import ConfigError

BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
SUFFIX_ALPHABET = string.ascii_uppercase + "012345"

# Upstream's Ids all carry the same two-character pod/instance part after the key prefix.
POD = "Ws"
COUNTER_WIDTH = 10


def checksum(id15: str) -> str:
    """The 3-character case-safe suffix of a 15-character Salesforce Id.

    Args:
        id15: A 15-character Id.

    Returns:
        Three characters from ``A-Z0-5``.

    Raises:
        ConfigError: When ``id15`` is not 15 characters long.
    """
    if len(id15) != 15:
        raise ConfigError(f"a 15-character Salesforce Id is needed, got {id15!r}")
    suffix = []
    for start in range(0, 15, 5):
        bits = 0
        for offset, char in enumerate(id15[start : start + 5]):
            if "A" <= char <= "Z":
                bits |= 1 << offset
        suffix.append(SUFFIX_ALPHABET[bits])
    return "".join(suffix)


def to18(id15: str) -> str:
    """Extend a 15-character Id with its case-safe suffix."""
    return id15 + checksum(id15)


def is_valid_id(value: str, prefix: str | None = None) -> bool:
    """Whether ``value`` is an 18-character Id with a correct suffix (and ``prefix``)."""
    if len(value) != 18 or not all(c in BASE62 for c in value[:15]):
        return False
    if prefix is not None and not value.startswith(prefix):
        return False
    return value[15:] == checksum(value[:15])


def base62(number: int, width: int = COUNTER_WIDTH) -> str:
    """``number`` in Salesforce's base62 digits (0-9, A-Z, a-z), zero padded to ``width``."""
    digits = []
    while number:
        number, rest = divmod(number, 62)
        digits.append(BASE62[rest])
    text = "".join(reversed(digits)) or "0"
    if len(text) > width:
        raise ConfigError(f"Id counter {number} does not fit in {width} base62 digits")
    return text.rjust(width, "0")


# The last two counter digits, precomputed with their upper-case bits (positions 3 and 4 of
# the third checksum chunk): the hot path of Id generation is then two lookups.
_PAIRS = [a + b for a in BASE62 for b in BASE62]
_PAIR_BITS = [
    (8 if a.isupper() else 0) | (16 if b.isupper() else 0) for a in BASE62 for b in BASE62
]


def _upper_bits(chunk: str) -> int:
    return sum(1 << i for i, char in enumerate(chunk) if "A" <= char <= "Z")


class IdFactory:
    """Hands out increasing Ids for one object, with small gaps like a real org's.

    The starting counter and the gaps come from ``rng``, so a seeded generator yields the
    same Ids every run. Generation is the generator's hot loop at large scales (a million
    Ids for ``stress``), so the checksum is assembled from cached parts instead of being
    recomputed from scratch.
    """

    def __init__(self, prefix: str, rng: random.Random, *, max_gap: int = 4) -> None:
        if len(prefix) != 3:
            raise ConfigError(f"key prefix must be 3 characters, got {prefix!r}")
        self.prefix = prefix
        self._head = prefix + POD
        self._first = SUFFIX_ALPHABET[_upper_bits(self._head)]
        self._random = rng.random
        self._max_gap = max_gap
        # Five significant base62 digits after five zeros, as upstream's "000001xSR9"; a
        # million Ids (the stress scale) still fit in five digits.
        self._counter = rng.randrange(62**4, 8 * 62**4)
        self._high = -1
        self._high_text = ""
        self._second = ""
        self._third_bits = 0

    def next(self) -> str:
        """The next Id (18 characters)."""
        self._counter += int(self._random() * self._max_gap) + 1
        high, low = divmod(self._counter, 62 * 62)
        if high != self._high:
            self._high = high
            self._high_text = base62(high, COUNTER_WIDTH - 2)
            self._second = SUFFIX_ALPHABET[_upper_bits(self._high_text[:5])]
            self._third_bits = _upper_bits(self._high_text[5:])
        return (
            self._head
            + self._high_text
            + _PAIRS[low]
            + self._first
            + self._second
            + SUFFIX_ALPHABET[self._third_bits | _PAIR_BITS[low]]
        )

    def take(self, count: int) -> list[str]:
        """``count`` fresh Ids in increasing order."""
        return [self.next() for _ in range(count)]
