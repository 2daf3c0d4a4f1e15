"""The one sanitiser (crmtui/sanitise.py): properties over any text, lone surrogates included."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from crmtui.sanitise import (
    UNSAFE,
    encodable,
    on_screen,
    printable,
    printable_json,
    printable_text,
)

# Any code point (surrogates too), weighted towards the ones that act on a terminal.
HOSTILE = st.text(
    st.one_of(
        st.characters(codec=None, exclude_categories=()),
        st.sampled_from(["\x1b", "\x07", "\x00", "\x9b", "\x85", "\u202e", "\u2066", "\ud800"]),
    ),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(HOSTILE)
def test_printable_output_is_printable_and_stable(text: str) -> None:
    shown = printable(text)
    assert shown.isprintable() and UNSAFE.search(shown) is None
    assert printable(shown) == shown  # idempotent: sanitising twice changes nothing
    shown.encode("utf-8")  # always writable


@settings(max_examples=300, deadline=None)
@given(HOSTILE)
def test_printable_text_keeps_only_line_breaks_and_tabs(text: str) -> None:
    shown = printable_text(text)
    assert all(c.isprintable() or c in "\n\t" for c in shown)
    assert shown.count("\n") == text.count("\n")


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        HOSTILE | st.integers() | st.none(),
        lambda kids: st.lists(kids, max_size=4) | st.dictionaries(HOSTILE, kids, max_size=4),
        max_leaves=12,
    )
)
def test_printable_json_is_lossless_and_safe(value: object) -> None:
    text = printable_json(json.dumps(value, indent=2, ensure_ascii=False))
    assert UNSAFE.search(text) is None
    assert json.loads(text) == value


@settings(max_examples=300, deadline=None)
@given(HOSTILE)
def test_the_screen_form_keeps_length_and_removes_every_unsafe_character(text: str) -> None:
    shown = on_screen(text)
    assert UNSAFE.search(shown) is None
    removed = sum(text.count(c) for c in "\x07\x08\x0b\x0c\r")
    assert len(shown) == len(text) - removed
    shown.encode("utf-8")


@settings(max_examples=300, deadline=None)
@given(HOSTILE)
def test_encodable_replaces_only_lone_surrogates(text: str) -> None:
    fixed = encodable(text)
    fixed.encode("utf-8")
    assert len(fixed) == len(text)
    assert all(
        a == b or (0xD800 <= ord(a) <= 0xDFFF and b == "\ufffd")
        for a, b in zip(text, fixed, strict=True)
    )


def test_examples() -> None:
    assert printable("a\x1b[2Jb\u202ec") == "a\\x1b[2Jb\\u202ec"
    assert printable_text("a\nb\x00") == "a\nb\\x00"
    assert printable_json('"\x9b\u202e"') == '"\\u009b\\u202e"'
    assert on_screen("\x1b]0;t\x07") == "␛]0;t"
