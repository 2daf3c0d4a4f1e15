"""The picker's one-line query excerpt."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st


def test_picker_excerpt_shows_the_case_subject_for_routing() -> None:
    from crmtui.ui.screens.picker import _excerpt

    query = (
        "Use the case routing policy to pick an agent.\n## Given Case\n"
        "- Case Subject: Zipper broke on the Trail Jacket\n- Case Description: It broke."
    )
    assert _excerpt(query) == "Route: Zipper broke on the Trail Jacket"
    assert _excerpt("a  b\nc", width=4) == "a b…"


# Letters, controls, wide, zero-width and combining characters, "…", and the two characters
# that make rich measure a text whole (a zero-width joiner, a variation selector).
_CHARS = list("ab ~…日é\x1b\x7f\t") + ["\u200b", "\u0301", "\u200d", "\ufe0f", "👨", "\u00ad"]


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from(_CHARS), max_size=40))
def test_the_pickers_column_widths_measure_as_rich_measures(text: str) -> None:
    """The picker measures its cells without rich where it can: always rich's number."""
    from rich.cells import cell_len

    from crmtui.ui.screens.picker import cell_width

    assert cell_width(text) == cell_len(text)
