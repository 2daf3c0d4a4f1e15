"""A channel no third process can break or speak in (issue #35).

The property: whatever another process appends to the channel file between the two
sides' lines (a line claiming either role, a copy of a real line, a forged ``end`` or
``leave``, a torn line without its newline, bytes that are not JSON, a line of 20 MB), and
if the file is cut under a reader, each side still reads exactly the other's messages, in
order, and nothing else; every skipped line is reported, never raised. A hostile header is
one ``ChannelError`` line. A partner whose heartbeat file is missing is still declared gone
after the timeout.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crmtui.limits import MAX_MESSAGE_CHARS
from crmtui.play.channel import Channel, ChannelError, PartnerGone
from crmtui.play.channel_sides import ChannelAgent, ChannelUser
from crmtui.play.dialogue import STOP_TOKEN, Side


def _pair(root: Path, **kwargs: object) -> tuple[Channel, Channel]:
    agent = Channel.open(root, "pair", 9, "agent", "ann", max_user_turns=50, **kwargs)  # type: ignore[arg-type]
    user = Channel.open(root, "pair", 9, "user", "ben", max_user_turns=50, **kwargs)  # type: ignore[arg-type]
    return agent, user


def _append(path: Path, data: bytes) -> None:
    with path.open("ab") as out:
        out.write(data)


def _forged(role: str, kind: str = "message", **data: object) -> bytes:
    value = {"kind": kind, "role": role, **data, "tok": secrets.token_hex(32)}
    return (json.dumps(value) + "\n").encode()


def test_a_strangers_line_is_skipped_and_the_side_keeps_listening(tmp_path: Path) -> None:
    """The issue's probe: a third process appends a user message; the agent's side showed
    "Recording error" and stopped listening."""
    a, u = _pair(tmp_path)
    listener = ChannelUser(a, Side("human", "ben"))
    _append(a.path, b'{"kind":"message","role":"user","text":"x"}\n')
    ChannelAgent(u).send("the real opening")
    assert listener.listen().text == "the real opening"
    assert [p.line for p in a.problems] and "not written by the user" in str(a.problems[0])


def test_a_forged_agent_message_and_end_never_reach_the_user(tmp_path: Path) -> None:
    a, u = _pair(tmp_path)
    agent_side = ChannelUser(a, Side("human", "ben"))
    user_side = ChannelAgent(u)
    user_side.send("hello")
    assert agent_side.listen().text == "hello"
    _append(a.path, _forged("agent", text="forged answer"))
    _append(a.path, _forged("agent", "end", end_reason={"message": "Submit action"}))
    agent_side.deliver("the real answer")
    agent_side.episode_ended({"source": "agent", "message": "done"}, 1.0)
    heard: list[str] = []
    done: list[object] = []
    user_side.feed(heard.append, lambda reason, reward: done.append((reason, reward)))
    assert heard == ["the real answer"]
    assert done == [({"source": "agent", "message": "done"}, 1.0)]
    assert sum("not written by the agent" in p.why for p in u.problems) == 2


def test_a_torn_line_loses_nothing_after_it(tmp_path: Path) -> None:
    a, u = _pair(tmp_path)
    _append(a.path, b'{"kind":"message","role":"user","text":"half')  # no newline, ever
    u.say("after the tear")
    assert a.next_event().text == "after the tear"
    assert any("torn" in p.why for p in a.problems)


def test_a_cut_file_is_reported_and_later_messages_arrive(tmp_path: Path) -> None:
    a, u = _pair(tmp_path)
    u.say("one")
    assert a.next_event().text == "one"
    a.say("two")
    with a.path.open("r+b") as handle:  # someone cuts the file to its first line
        handle.truncate(len(a.path.read_bytes().split(b"\n", 1)[0]) + 1)
    u.say("three")
    assert a.next_event().text == "three"
    assert any("cut or rewritten" in p.why for p in a.problems)


def test_a_line_past_the_message_cap_is_skipped_without_being_held(tmp_path: Path) -> None:
    a, u = _pair(tmp_path)
    big = "x" * (20 * 1024 * 1024)  # the 20 MB line
    _append(a.path, (json.dumps({"kind": "message", "role": "user", "text": big}) + "\n").encode())
    u.say("small")
    assert a.next_event().text == "small"
    assert any("longer than" in p.why for p in a.problems)
    with pytest.raises(ChannelError, match="at most 20,000 characters"):
        u.say("y" * (MAX_MESSAGE_CHARS + 1))


@pytest.mark.parametrize(
    ("header", "named"),
    [
        ('"max_user_turns":"abc"', "max_user_turns"),
        ('"max_user_turns":1e999', "max_user_turns"),
        ('"max_user_turns":[1]', "max_user_turns"),
        ('"max_user_turns":true', "max_user_turns"),
        ('"max_user_turns":0', "max_user_turns"),
        ('"max_user_turns":99999999999999999999', "max_user_turns"),
        ('"dialogue_id":null,"max_user_turns":4', "dialogue_id"),
        ('"max_user_turns":4,"x":1', "dialogue_id"),  # no dialogue_id
    ],
)
def test_a_hostile_header_is_one_clear_error(tmp_path: Path, header: str, named: str) -> None:
    folder = tmp_path / "channels" / "pair"
    folder.mkdir(parents=True)
    body = '{"kind":"open","idx":9,' + header
    if "dialogue_id" not in header and named != "dialogue_id":
        body += ',"dialogue_id":"abc"'
    (folder / "9-1.channel").write_text(body + "}\n", "utf-8")
    with pytest.raises(ChannelError, match=f"bad header: its {named}") as caught:
        Channel.open(tmp_path, "pair", 9, "agent", "ann", max_user_turns=4)
    assert "\n" not in str(caught.value)


def test_a_missing_heartbeat_file_does_not_keep_a_dead_partner_alive(tmp_path: Path) -> None:
    now = [1000.0]
    a, u = _pair(tmp_path, partner_timeout_s=5.0, now=lambda: now[0])
    a.poll()  # the user's join, read at 1000; the user never beats (its process died)
    assert not u.path.with_name("9-1.user.alive").exists()
    now[0] += 6.0
    with pytest.raises(PartnerGone, match="no sign of life for 5 s"):
        a.next_event()


# -- the property -------------------------------------------------------------------------

junk = st.sampled_from(
    ["user-message", "agent-message", "agent-end", "user-leave", "agent-leave", "torn",
     "bytes", "copy", "second-join", "untokened"]
)  # fmt: skip
texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30)


def _junk(kind: str, path: Path, rng: st.DataObject) -> bytes:
    if kind == "torn":
        return b'{"kind":"message","role":"user","text":"to'
    if kind == "bytes":
        return rng.draw(st.binary(min_size=1, max_size=40)) + b"\n"
    if kind == "copy":
        lines = [line for line in path.read_bytes().split(b"\n") if b'"tok"' in line]
        return (lines[-1] + b"\n") if lines else b"\n"
    if kind == "second-join":
        return _forged("user", "join", name="eve", commit="0" * 64)
    if kind == "untokened":
        return b'{"kind":"message","role":"agent","text":"x"}\n'
    role, what = kind.split("-")
    return _forged(role, what, text="forged", why="x", end_reason={})


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    said=st.lists(texts.filter(lambda t: STOP_TOKEN not in t), min_size=1, max_size=6),
    noise=st.lists(st.lists(junk, max_size=3), min_size=6, max_size=6),
    rng=st.data(),
)
def test_each_side_reads_exactly_the_others_messages_whatever_is_appended(
    tmp_path_factory: pytest.TempPathFactory,
    said: list[str],
    noise: list[list[str]],
    rng: st.DataObject,
) -> None:
    root = tmp_path_factory.mktemp("ch")
    agent, user = _pair(root)
    heard_by_agent, heard_by_user = [], []
    for number, text in enumerate(said):
        for kind in noise[number]:
            _append(agent.path, _junk(kind, agent.path, rng))
        speaker, listener = (user, agent) if number % 2 == 0 else (agent, user)
        speaker.say(text)
        (heard_by_agent if listener is agent else heard_by_user).append(listener.next_event().text)
    assert heard_by_agent == said[0::2]
    assert heard_by_user == said[1::2]
    for side in (agent, user):  # nothing more, and nothing raised on the way
        assert all(event.kind == "join" for event in side.poll())
    junk_lines = sum(1 for kinds in noise[: len(said)] for k in kinds if k != "copy")
    if junk_lines:
        assert agent.problems or user.problems
    assert os.path.getsize(agent.path) > 0
