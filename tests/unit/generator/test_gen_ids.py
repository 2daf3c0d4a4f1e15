"""Salesforce Id format: case-safe checksum, base62 counter, factories."""

from __future__ import annotations

import random

import pytest

from crmtui.errors import ConfigError
from crmtui.org.generator.ids import BASE62, IdFactory, base62, checksum, is_valid_id, to18

# Real 18-character Ids from upstream's task data (the Hugging Face dataset Salesforce/CRMArena).
KNOWN = [
    "005Ws000001xSR9IAM",
    "a1MWs0000012u0jMAA",
    "a1MWs0000012u7BMAQ",
    "a1MWs0000012u2LMAQ",
    "a1MWs0000012u3xMAA",
    "ka0Ws000000QriDIAS",
    "01tWs000002wQXGIA2",
    "500Ws000007rRKgIAM",
    "003Ws000004Fo3qIAC",
    "005Ws000001xadBIAQ",
]


@pytest.mark.parametrize("full", KNOWN)
def test_checksum_matches_real_salesforce_ids(full: str) -> None:
    assert to18(full[:15]) == full
    assert is_valid_id(full)


def test_checksum_rejects_wrong_length() -> None:
    with pytest.raises(ConfigError, match="15-character"):
        checksum("005Ws")


def test_is_valid_id_checks_suffix_and_prefix() -> None:
    assert not is_valid_id("005Ws000001xSR9IAA")
    assert not is_valid_id("005Ws000001xSR9IAM", prefix="500")
    assert is_valid_id("005Ws000001xSR9IAM", prefix="005")
    assert not is_valid_id("005Ws000001xSR9")


def test_base62_orders_digits_upper_lower() -> None:
    assert base62(0) == "0000000000"
    assert base62(10) == "000000000A"
    assert base62(36) == "000000000a"
    assert base62(62) == "0000000010"
    with pytest.raises(ConfigError):
        base62(62**3, width=3)


def test_factory_ids_increase_and_look_like_upstream() -> None:
    factory = IdFactory("005", random.Random(1))
    made = factory.take(500)
    assert len(set(made)) == 500
    # Counters increase in Salesforce's base62 order (digits, upper, lower).
    assert made == sorted(made, key=lambda i: [BASE62.index(c) for c in i[5:15]])
    for value in made:
        assert value.startswith("005Ws00000")
        assert is_valid_id(value, prefix="005")


def test_factory_rejects_bad_prefix() -> None:
    with pytest.raises(ConfigError, match="key prefix"):
        IdFactory("05", random.Random(1))
