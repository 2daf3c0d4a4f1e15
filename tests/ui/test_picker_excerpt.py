"""The picker's one-line query excerpt."""

from __future__ import annotations


def test_picker_excerpt_shows_the_case_subject_for_routing() -> None:
    from crmtui.ui.screens.picker import _excerpt

    query = (
        "Use the case routing policy to pick an agent.\n## Given Case\n"
        "- Case Subject: Zipper broke on the Trail Jacket\n- Case Description: It broke."
    )
    assert _excerpt(query) == "Route: Zipper broke on the Trail Jacket"
    assert _excerpt("a  b\nc", width=4) == "a b…"
