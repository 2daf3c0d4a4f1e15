"""The play screen's layout for a terminal size."""

from __future__ import annotations

import pytest

from crmtui.ui.layout import MIN_SIZE, layout_mode, too_small_notice


@pytest.mark.parametrize(
    ("size", "mode"),
    [
        ((160, 48), "wide"),
        ((120, 36), "narrow"),
        ((149, 40), "narrow"),
        ((80, 24), "compact"),
        ((140, 30), "compact"),
        ((99, 50), "compact"),
        ((69, 30), "too-small"),
        ((100, 19), "too-small"),
        (MIN_SIZE, "compact"),
    ],
)
def test_layout_mode(size: tuple[int, int], mode: str) -> None:
    assert layout_mode(*size) == mode


def test_the_notice_names_both_sizes() -> None:
    text = too_small_notice(60, 18)
    assert "60x18" in text and f"{MIN_SIZE[0]}x{MIN_SIZE[1]}" in text
