"""What a browser may send the study server: sizes within the caps, messages that cannot
hurt, refused requests logged in one line."""

from __future__ import annotations

import json
import logging

from hypothesis import given
from hypothesis import strategies as st

from crmtui.serve import wire

_SIZES = st.one_of(
    st.integers(min_value=-(10**12), max_value=10**12),
    st.text(max_size=12),
    st.none(),
    st.floats(allow_nan=True),
    st.booleans(),
)


@given(_SIZES, _SIZES)
def test_every_size_a_session_gets_is_within_the_caps(width: object, height: object) -> None:
    for size in (wire.terminal_size(width, height), wire.first_size(width, height)):
        if size is not None:
            w, h = size
            assert 1 <= w <= wire.MAX_WIDTH and 1 <= h <= wire.MAX_HEIGHT


def test_sizes_are_capped_not_refused() -> None:
    assert wire.first_size("10000", "4000") == (wire.MAX_WIDTH, wire.MAX_HEIGHT)
    assert wire.first_size("120", "30") == (120, 30)
    assert wire.first_size(None, "30") == wire.DEFAULT_SIZE
    assert wire.first_size("0", "30") == wire.DEFAULT_SIZE
    assert wire.first_size("9" * 5000, "30") == wire.DEFAULT_SIZE  # no 5000-digit int()
    assert wire.terminal_size(2000, 40) == (wire.MAX_WIDTH, 40)
    assert wire.terminal_size(-3, 40) is None
    assert wire.font_size("9" * 400) == 16 and wire.font_size("20") == 20


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=12,
)


@given(st.one_of(st.text(max_size=200), _JSON.map(json.dumps)))
def test_no_message_makes_the_parser_raise(text: str) -> None:
    parsed = wire.parse_envelope(text)
    assert parsed is None or parsed[0] in wire.KINDS


def test_deep_and_huge_messages_are_ignored() -> None:
    assert wire.parse_envelope("[" * 100_000 + "]" * 100_000) is None
    assert wire.parse_envelope('["stdin", "' + "x" * wire.MAX_MESSAGE_BYTES + '"]') is None
    assert wire.parse_envelope('["stdin", "abc"]') == ("stdin", "abc")
    assert wire.parse_envelope('["focus"]') == ("focus", None)
    assert wire.parse_envelope('["shell", "rm"]') is None
    assert wire.parse_envelope('{"stdin": 1}') is None


def test_a_request_aiohttp_cannot_parse_is_one_line_in_the_log() -> None:
    from aiohttp.http_exceptions import LineTooLong

    try:
        raise LineTooLong("/?x=" + "a" * 9000, "8190")
    except LineTooLong as exc:
        record = logging.LogRecord(
            "aiohttp.server",
            logging.ERROR,
            __file__,
            1,
            "Error handling request from %s",
            ("10.0.0.7",),
            (type(exc), exc, exc.__traceback__),
        )
    assert wire.QuietRefusals().filter(record)
    text = logging.Formatter().format(record)
    assert "\n" not in text and "Traceback" not in text
    assert text.startswith("refused a request from 10.0.0.7: ") and "(400)" in text
    assert record.levelname == "WARNING" and len(text) < 200
