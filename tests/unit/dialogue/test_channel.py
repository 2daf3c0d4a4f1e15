"""The channel between two people in one dialogue (``play --channel``): a pure file protocol.

Properties: both sides share one dialogue id; each side reads exactly the other's messages,
in the order they were written, whatever they say; ``###STOP###`` reaches the agent even
while it is the agent's turn; a side that leaves, or whose heartbeat stops for longer than
the timeout, ends the wait with :class:`PartnerGone` (before the partner joined, no limit);
a finished conversation is never joined again; bad names are one clear error.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crmtui.play.channel import ABANDONED, Channel, ChannelError, PartnerGone
from crmtui.play.channel_sides import ChannelAgent, ChannelUser
from crmtui.play.dialogue import STOP_TOKEN, Side
from crmtui.play.dialogue_sides import DialogueCancelled


def _pair(root: Path, **kwargs: object) -> tuple[Channel, Channel]:
    agent = Channel.open(root, "pair", 9, "agent", "ann", max_user_turns=4, **kwargs)  # type: ignore[arg-type]
    user = Channel.open(root, "pair", 9, "user", "ben", max_user_turns=10, **kwargs)  # type: ignore[arg-type]
    return agent, user


def test_two_sides_meet_with_one_dialogue_id_and_the_first_sides_limit(tmp_path: Path) -> None:
    agent, user = _pair(tmp_path)
    assert agent.path == user.path == tmp_path / "channels" / "pair" / "9-1.channel"
    assert agent.dialogue_id == user.dialogue_id and len(agent.dialogue_id) == 32
    assert user.max_user_turns == 4  # the side that opened the conversation set it
    user.poll()
    assert user.partner_name == "ann"
    agent.poll()
    assert agent.partner_name == "ben"


texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(said=st.lists(texts, min_size=1, max_size=6))
def test_each_side_reads_exactly_the_others_messages_in_order(
    tmp_path_factory: pytest.TempPathFactory, said: list[str]
) -> None:
    root = tmp_path_factory.mktemp("ch")
    agent, user = _pair(root)
    for number, text in enumerate(said):
        (user if number % 2 == 0 else agent).say(text)
    heard_by_agent = [agent.next_event().text for _ in said[0::2]]
    heard_by_user = [user.next_event().text for _ in said[1::2]]
    assert heard_by_agent == said[0::2]
    assert heard_by_user == said[1::2]
    assert all(event.kind == "join" for event in agent.poll() + user.poll())  # nothing else


def test_a_line_read_in_two_pieces_is_taken_once_whole(tmp_path: Path) -> None:
    agent, user = _pair(tmp_path)
    user.say("hi there")
    data = agent.path.read_bytes()
    agent.path.write_bytes(data[:-7])  # the reader sees the line's start, then its end
    assert [e.kind for e in agent.poll()] == ["join"]
    with agent.path.open("ab") as out:
        out.write(data[-7:])
    assert agent.next_event().text == "hi there" and agent.problems == []


def test_stop_reaches_the_agent_while_it_is_typing_and_the_end_reaches_the_user(
    tmp_path: Path,
) -> None:
    a, u = _pair(tmp_path)
    assert a.wait_for_partner() == "ben" and u.wait_for_partner() == "ann"
    user = ChannelUser(a, Side("human", "ben"))
    agent = ChannelAgent(u)
    agent.send("Which agent should get my lead?")
    opening = user.opening()
    assert opening.text == "Which agent should get my lead?"
    agent.stop()  # while it is the agent's turn
    assert user.listen().text == STOP_TOKEN
    user.deliver("too late")  # a message after the end is never read as one
    user.episode_ended({"source": "user", "message": "User stopped"}, None)
    heard: list[str] = []
    done: list[tuple[dict[str, object], object]] = []
    agent.feed(heard.append, lambda reason, reward: done.append((reason, reward)))
    assert heard == []  # out of turn: skipped, and said so
    assert any("after the conversation ended" in p.why for p in u.problems)
    assert done == [({"source": "user", "message": "User stopped"}, None)]


def test_a_side_that_leaves_ends_the_others_wait(tmp_path: Path) -> None:
    a, u = _pair(tmp_path)
    ChannelAgent(u).leave()
    with pytest.raises(PartnerGone, match="the user left"):
        ChannelUser(a, Side("human", "x")).listen()
    a2, u2 = _pair(tmp_path)  # that conversation is over: a new one starts
    assert a2.path.name == "9-2.channel" and a2.dialogue_id != a.dialogue_id
    a2.leave("the agent left")
    done: list[tuple[dict[str, object], object]] = []
    ChannelAgent(u2).feed(lambda _: None, lambda reason, reward: done.append((reason, reward)))
    assert done[0][0]["message"] == ABANDONED and "agent left" in str(done[0][0]["content"])


def test_a_silent_partner_counts_as_gone_after_the_timeout(tmp_path: Path) -> None:
    now = [1000.0]
    a, u = _pair(tmp_path, partner_timeout_s=5.0, now=lambda: now[0])
    a.poll()  # the user's join, read at 1000
    u.beat()  # the user waited once, then its process died
    cancel = threading.Event()
    now[0] += 4.0
    alive = u.path.with_name("9-1.user.alive")
    os.utime(alive, (1000.0, 1000.0))
    cancel.set()
    with pytest.raises(DialogueCancelled):  # within the timeout: still waiting
        a.next_event(cancel)
    now[0] += 2.0
    with pytest.raises(PartnerGone, match="no sign of life for 5 s"):
        a.next_event()


def test_before_the_partner_joins_there_is_no_time_limit(tmp_path: Path) -> None:
    now = [1000.0]
    alone = Channel.open(tmp_path, "p", 3, "agent", "ann", max_user_turns=10,
                         partner_timeout_s=0.01, now=lambda: now[0])  # fmt: skip
    now[0] += 3600
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(DialogueCancelled):
        alone.next_event(cancel)
    with pytest.raises(DialogueCancelled):
        alone.wait_for_partner(cancel)


def test_a_second_person_in_the_same_role_starts_another_conversation(tmp_path: Path) -> None:
    first = Channel.open(tmp_path, "p", 3, "agent", "ann", max_user_turns=10)
    second = Channel.open(tmp_path, "p", 3, "agent", "cat", max_user_turns=10)
    assert first.path != second.path and first.dialogue_id != second.dialogue_id


@pytest.mark.parametrize("name", ["", "../up", "a/b", "-x", "x" * 65, "a b"])
def test_a_bad_channel_name_is_one_clear_error(tmp_path: Path, name: str) -> None:
    with pytest.raises(ChannelError, match="channel name"):
        Channel.open(tmp_path, name, 1, "agent", "ann", max_user_turns=10)


def test_a_channel_that_cannot_be_written_is_a_clear_error(tmp_path: Path) -> None:
    agent, _ = _pair(tmp_path)
    agent.path.unlink()  # a folder cleaned up under a running conversation
    with pytest.raises(ChannelError, match="cannot write to the channel"):
        agent.say("hello")
