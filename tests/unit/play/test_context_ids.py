"""The Ids a task context names, found for ``y`` on the task context."""

from __future__ import annotations

from crmtui.play.cells import context_ids


def test_ids_of_15_and_18_characters_in_order_each_once() -> None:
    text = (
        "- Case Id to be considered is: 500Ws000006uaLGIAY\n"
        "- Contact Id: 003Ws000004aLil, and again 500Ws000006uaLGIAY."
    )
    assert context_ids(text) == ["500Ws000006uaLGIAY", "003Ws000004aLil"]


def test_words_dates_and_longer_tokens_are_not_ids() -> None:
    text = (
        "Today's date: 2022-09-13T00:00:00Z; implementations (15 letters) characteristics "
        "500Ws000006uaLGIAYX 500Ws000006uaLGIA (17)"
    )
    assert context_ids(text) == []
    assert context_ids("") == []
