"""One size cap for every message of a conversation (issue #35).

The property: whoever sends a message (a person, a model agent, a simulated user) and
however long it is, the dialogue core keeps at most ``MAX_MESSAGE_CHARS`` characters of it,
says that it cut it, and still sees a ``###STOP###`` anywhere in the whole text.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from crmtui.limits import MAX_MESSAGE_CHARS, MESSAGE_CUT_NOTE, cap_message
from crmtui.play.dialogue import STOP_TOKEN, Dialogue


@given(size=st.integers(0, 3 * MAX_MESSAGE_CHARS), stop_at=st.none() | st.floats(0, 1))
def test_every_message_is_cut_to_the_one_cap(size: int, stop_at: float | None) -> None:
    text = "x" * size
    if stop_at is not None:
        cut = int(size * stop_at)
        text = text[:cut] + STOP_TOKEN + text[cut:]
    dialogue = Dialogue(max_user_turns=3)
    opening = dialogue.user_says("hello")
    assert opening.text == "hello"
    agent = dialogue.agent_says(text)
    assert len(agent.text) <= MAX_MESSAGE_CHARS
    assert agent.text == text or agent.text.endswith(MESSAGE_CUT_NOTE)
    reply = dialogue.user_says(text)
    assert len(reply.text) <= MAX_MESSAGE_CHARS and reply.stop == (stop_at is not None)


def test_a_twenty_megabyte_reply_is_kept_as_twenty_thousand_characters() -> None:
    huge = "y" * (20 * 1024 * 1024)
    assert len(cap_message(huge)) == MAX_MESSAGE_CHARS
    assert f"{MAX_MESSAGE_CHARS:,}" in MESSAGE_CUT_NOTE
