"""Wrapping and find-in-text for the value viewer."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from crmtui.play.textview import find_all, normalize, row_of, wrap


def _shown(text: str, width: int) -> list[str]:
    return [text[a:b] for a, b in wrap(text, width)]


def test_wrap_breaks_at_spaces_keeps_line_breaks_and_cuts_long_words() -> None:
    text = "hello world this is long\n\nabc defghijklmnopqrstuvwxyz"
    assert _shown(text, 10) == [
        "hello",
        "world this",
        "is long",
        "",
        "abc",
        "defghijklm",
        "nopqrstuvw",
        "xyz",
    ]
    assert _shown("", 5) == [""]
    assert _shown("exactly10!", 10) == ["exactly10!"]


def test_normalize_turns_carriage_returns_and_tabs_into_what_the_screen_shows() -> None:
    assert normalize("a\r\nb\rc\td") == "a\nb\nc    d"


@settings(max_examples=80, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("ab cd\n"), max_size=200),
    st.integers(min_value=1, max_value=30),
)
def test_wrapped_rows_fit_and_lose_only_the_breaking_characters(text: str, width: int) -> None:
    rows = wrap(text, width)
    assert all(0 <= end - start <= width for start, end in rows)
    assert all(a[1] <= b[0] for a, b in zip(rows, rows[1:], strict=False))
    # Between two rows only the line break or the one space the row broke at is dropped.
    covered = "".join(text[a:b] for a, b in rows)
    assert covered.replace(" ", "") == text.replace(" ", "").replace("\n", "")
    for (_, end), (start, _) in zip(rows, rows[1:], strict=False):
        assert start - end in (0, 1)
        assert text[end:start] in ("", " ", "\n")


def test_find_all_is_case_insensitive_and_does_not_overlap() -> None:
    assert find_all("Refund refund REFUND", "refund") == [0, 7, 14]
    assert find_all("aaaa", "aa") == [0, 2]
    assert find_all("abc", "") == []
    assert find_all("Abc abc", "abc", case_sensitive=True) == [4]


def test_row_of_finds_the_row_showing_an_offset() -> None:
    text = "one two three four five"
    rows = wrap(text, 8)
    starts = [a for a, _ in rows]
    for offset in find_all(text, "four") + find_all(text, "one") + find_all(text, "five"):
        row = row_of(starts, offset)
        start, end = rows[row]
        assert start <= offset < end
