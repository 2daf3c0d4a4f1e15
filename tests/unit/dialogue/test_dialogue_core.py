"""The dialogue core: strict turns, the user opens and ends, the limit, what is scored."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crmtui.play.dialogue import (
    ACCEPTED,
    MAX_USER_TURNS,
    STOP_TOKEN,
    STOPPED_EARLY,
    Dialogue,
    DialogueError,
    DialogueSpec,
    Side,
    message_payload,
)


def test_the_user_opens_and_the_agents_last_message_is_scored_on_stop() -> None:
    talk = Dialogue(max_user_turns=3)
    assert talk.awaiting == "user"
    opening = talk.user_says("I need the best agent.")
    assert (opening.turn, opening.stop) == (0, False)
    talk.agent_says("For which period?")
    talk.user_says("Q1 2024.")
    talk.agent_says("005Ws000001")
    stop = talk.user_says(STOP_TOKEN)
    assert stop.stop and stop.turn == 2
    assert talk.end is not None and talk.end.message == ACCEPTED and talk.end.scored
    assert talk.end.answer == "005Ws000001"
    assert talk.end.end_reason() == {
        "source": "agent",
        "message": ACCEPTED,
        "content": "005Ws000001",
        "parsed_answer": "005Ws000001",
    }
    assert talk.user_turns == 2 and talk.awaiting is None


def test_stop_token_anywhere_in_the_text_ends_as_upstream_matches_it() -> None:
    talk = Dialogue()
    talk.user_says("hi")
    talk.agent_says("answer")
    talk.user_says(f"Thanks! {STOP_TOKEN}")
    assert talk.ended and talk.end is not None and talk.end.scored


def test_the_limit_ends_without_an_answer() -> None:
    talk = Dialogue(max_user_turns=2)
    talk.user_says("hi")
    for text in ("what period?", "which product?"):
        talk.agent_says(text)
        talk.user_says("not sure")
    assert talk.end is not None and talk.end.message == MAX_USER_TURNS
    assert not talk.end.scored and talk.end.source == "user"
    with pytest.raises(DialogueError, match="over"):
        talk.agent_says("late")


def test_messages_out_of_turn_are_refused() -> None:
    talk = Dialogue()
    with pytest.raises(DialogueError, match="user's turn"):
        talk.agent_says("hello")
    talk.user_says("hi")
    with pytest.raises(DialogueError, match="agent's turn"):
        talk.user_says("hi again")


def test_a_person_may_end_while_the_agent_works_and_before_any_answer() -> None:
    talk = Dialogue()
    talk.user_says("hi")
    ended = talk.user_ends()
    assert ended is not None and ended.text == STOP_TOKEN and ended.stop
    assert talk.end is not None and talk.end.message == STOPPED_EARLY and not talk.end.scored
    assert talk.user_ends() is None


@given(
    st.lists(st.sampled_from(["agent", "user", "end"]), max_size=30),
    st.integers(min_value=1, max_value=5),
)
def test_turns_alternate_and_the_end_is_decided_by_the_user(steps: list[str], limit: int) -> None:
    """Whatever the sequence of attempts: messages alternate (user first), user replies never
    exceed the limit, and only a stop after an agent message is scored."""
    talk = Dialogue(max_user_turns=limit)
    for step in steps:
        try:
            if step == "agent":
                talk.agent_says("a")
            elif step == "user":
                talk.user_says("u")
            else:
                talk.user_ends()
        except DialogueError:
            pass
    roles = [m.role for m in talk.messages if not m.stop]
    assert all(a != b for a, b in zip(roles, roles[1:], strict=False))
    assert not roles or roles[0] == "user"
    assert talk.user_turns <= limit
    if talk.end is not None and talk.end.scored:
        assert talk.end.answer == talk.last_response is not None
        assert talk.messages[-1].stop


def test_spec_round_trips_and_names_the_pairing() -> None:
    spec = DialogueSpec(
        "user",
        Side("model", "openai/gpt-4o", "react"),
        Side("human", "alice"),
        max_user_turns=4,
        dialogue_id="d1",
    )
    again = DialogueSpec.from_json(spec.to_json())
    assert again == spec
    assert spec.own.id == "alice" and spec.partner.label == "openai/gpt-4o (react)"
    assert spec.pairing == "model/human"


def test_payloads_keep_a_simulated_users_call_beside_its_message() -> None:
    talk = Dialogue()
    msg = talk.user_says("hi")
    call = {"model": "m", "prompt_tokens": 3, "completion_tokens": 1, "cost": None, "x": 1}
    assert message_payload(msg, call) == {
        "text": "hi",
        "turn": 0,
        "stop": False,
        "model": "m",
        "prompt_tokens": 3,
        "completion_tokens": 1,
        "cost": None,
    }
    assert message_payload(talk.agent_says("a")) == {"text": "a", "turn": 1}


@pytest.mark.parametrize(
    ("strategy", "observations", "named"),
    [("tool_call", "crmtui", "tool_call"), ("react", "naacl", "naacl")],
)
def test_the_multi_turn_mode_refuses_agents_that_cannot_talk_to_a_user(
    strategy: str, observations: str, named: str
) -> None:
    """Only react and act on CRMArena-Pro's harness have a respond that reaches the user; the
    rest is one Error naming the setting, never a run that silently does not converse."""
    from crmtui.agent.strategies import make_strategy
    from crmtui.errors import ConfigError

    with pytest.raises(ConfigError, match=named):
        make_strategy(strategy, interactive=True, observations=observations)
    for name in ("react", "act"):
        played = make_strategy(name, interactive=True)
        assert played.prompt_digest() != make_strategy(name).prompt_digest()  # its own prompt
