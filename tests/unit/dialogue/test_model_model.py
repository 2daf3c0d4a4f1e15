"""Model agent with a simulated user, over real HTTP: ``crmtui run --interactive``.

Two scripted OpenAI-compatible servers play the two sides: one the agent, one the user. The
user opens (answering the agent's greeting), the agent asks, the user answers, the agent
answers and the user ends with ``###STOP###``; the last answer is scored. The same setup
covers the other endings: the user's replies running out (``--max-user-turns``), an agent
that never sends a message (``--max-turns``) and a user model that fails.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crmtui.cli import main
from crmtui.play.dialogue import GREETING, STOP_TOKEN
from crmtui.record.verify import load, verify
from tests.fakes.openai_server import FakeOpenAI, error, text
from tests.fixtures import pro_org as fx
from tests.waiting import promptly

IDX = 9  # lead_routing; gold U4
ASK = "<thought>I need the region.</thought><respond>Which state is the lead from?</respond>"
LOOK = "<thought>Look.</thought><execute>SELECT UserId FROM UserTerritory2Association</execute>"
ANSWER = f"<thought>Done.</thought><respond>Route it to {fx.U4}.</respond>"
OPENING = "Hi, I have a new lead and need to know who should get it."


@pytest.fixture
def pro(tmp_path: Path) -> Any:
    return fx.build_pro_org(tmp_path)


@pytest.fixture
def sides() -> Any:
    with FakeOpenAI(model_name="agent") as agent, FakeOpenAI(model_name="user") as user:
        yield agent, user


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out + out.err


def _argv(pro: Any, sides: Any, out: Path, *extra: str) -> list[str]:
    agent, user = sides
    return ["run", "--model", "openai/agent", "--api-base", agent.base_url, "--org", pro.name,
            "--idx", str(IDX), "--interactive", "--user-model", "openai/user",
            "--user-api-base", user.base_url, "--timeout", "10", "--out", str(out),
            *extra]  # fmt: skip


def _only(out: Path) -> tuple[dict[str, Any], Any]:
    (row,) = json.loads(next(out.glob("results_*.json")).read_text(encoding="utf-8"))
    (path,) = sorted((out / "recordings").rglob("*.jsonl"))
    assert verify(path).ok
    return row, load(path)


def test_a_dialogue_ends_on_stop_and_scores_the_last_answer(
    pro: Any, sides: Any, tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    agent, user = sides
    agent.push(text(LOOK), text(ASK), text(ANSWER))
    user.push(text(OPENING, prompt_tokens=300, completion_tokens=12),
              text("It's a lead from Ohio."), text(STOP_TOKEN))  # fmt: skip
    out = tmp_path / "out"
    code, said = _run(_argv(pro, sides, out), capsys)
    assert code == 0, said
    row, recording = _only(out)
    assert row["reward"] == 1
    assert row["agent_info"]["num_turns"] == [2, 1]
    assert row["agent_info"]["end_reason"]["message"] == "Submit action"
    assert row["crmtui"]["settings"]["dialogue"]["user_model"] == "openai/user"
    assert row["crmtui"]["settings"]["dialogue"]["max_user_turns"] == 10

    # The agent never saw the query: its first user message is the user's opening.
    first = agent.requests[0]["messages"]
    assert first[1] == {"role": "user", "content": OPENING}
    assert fx.PRO_ROWS[IDX]["query"] not in json.dumps(agent.requests)
    assert "<respond> sends a message to the user" in first[0]["content"]
    # The user model got the persona and the query, and the agent's messages as its user.
    brief = user.requests[0]["messages"]
    assert fx.PRO_ROWS[IDX]["query"] in brief[0]["content"]
    assert fx.PRO_ROWS[IDX]["persona"] in brief[0]["content"]
    assert brief[1] == {"role": "user", "content": GREETING}
    assert user.requests[1]["messages"][-1] == {
        "role": "user", "content": "Which state is the lead from?"}  # fmt: skip
    reply = {"role": "user", "content": "It's a lead from Ohio."}
    assert agent.requests[2]["messages"][-1] == reply

    header = recording.header
    assert header["dialogue"]["role"] == "agent"
    agent_side = {"kind": "model", "id": "openai/agent", "strategy": "react"}
    assert header["dialogue"]["agent"] == agent_side
    assert header["dialogue"]["user"]["id"] == "openai/user"
    assert header["dialogue"]["user"]["settings"]["api_base"] == user.base_url
    said = [(e.type, e.actor, e.payload["text"]) for e in recording.events
            if e.type in ("user_message", "agent_message")]  # fmt: skip
    assert said == [
        ("user_message", "openai/user", OPENING),
        ("agent_message", "openai/agent", "Which state is the lead from?"),
        ("user_message", "openai/user", "It's a lead from Ohio."),
        ("agent_message", "openai/agent", f"Route it to {fx.U4}."),
        ("user_message", "openai/user", STOP_TOKEN),
    ]
    opening = recording.of_type("user_message")[0].payload
    assert (opening["prompt_tokens"], opening["completion_tokens"]) == (300, 12)
    assert opening["model"] == "openai/user" and "cost" in opening
    # The user's calls are not the agent's: model_call events are the agent's three.
    assert len(recording.of_type("model_call")) == 3
    submit = recording.submit
    assert submit is not None and submit.payload["answer"] == f"Route it to {fx.U4}."
    assert submit.payload["reward"] == 1

    # Replay folds the conversation back, message by message, into the transcript too.
    from crmtui.review.replay import replay

    replayed = replay(recording)
    assert [(line.role, line.text) for line in replayed.conversation] == [
        (kind.split("_")[0], text) for kind, _, text in said
    ]
    assert replayed.frames[-1].said == 5 and replayed.is_dialogue
    assert any(line.role == "user" for line in replayed.transcript)


def test_the_users_replies_run_out_without_an_answer(
    pro: Any, sides: Any, tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    agent, user = sides
    agent.push(text(ASK), text(ASK))
    user.push(text(OPENING), text("Not sure."), text("Still not sure."))
    out = tmp_path / "out"
    code, said = _run(_argv(pro, sides, out, "--max-user-turns", "2"), capsys)
    assert code == 0, said
    row, recording = _only(out)
    assert row["reward"] == 0 and row["agent_info"]["num_turns"] == [2, 1]
    assert row["agent_info"]["end_reason"]["message"] == "Max user turns reached"
    assert recording.submit is None
    assert recording.end is not None and recording.end.payload["reward"] == 0
    assert len(recording.of_type("user_message")) == 3


def test_an_agent_that_never_sends_a_message_runs_out_of_turns(
    pro: Any, sides: Any, tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    agent, user = sides
    agent.push(text(LOOK), text(LOOK), text(LOOK))
    user.push(text(OPENING))
    out = tmp_path / "out"
    code, said = _run(_argv(pro, sides, out, "--max-turns", "3"), capsys)
    assert code == 0, said
    row, recording = _only(out)
    assert row["reward"] == 0 and row["agent_info"]["end_reason"]["message"] == "Max turns reached"
    assert row["agent_info"]["num_turns"] == [0, 4]
    assert len(user.requests) == 1  # the user only opened
    assert [e.type for e in recording.events].count("agent_message") == 0


def test_a_failing_user_model_ends_the_episode_as_a_model_error(
    pro: Any, sides: Any, tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    agent, user = sides
    agent.push(text(ASK))
    user.push(text(OPENING), error(400, "the user model refused"))
    out = tmp_path / "out"
    code, said = _run(_argv(pro, sides, out), capsys)
    assert code == 3, said
    row, recording = _only(out)
    assert row["reward"] == 0 and row["agent_info"]["source"] == "api"
    reason = recording.end.payload["end_reason"]  # type: ignore[union-attr]
    assert reason["message"] == "Model error" and reason["role"] == "user"
    assert reason["content"].startswith("user model: ")
    assert [e.type for e in recording.events].count("agent_message") == 1


@pytest.mark.parametrize("last", ["message", "query"])
def test_under_preset_head_the_agent_gets_one_more_action_after_the_limit(
    pro: Any, sides: Any, tmp_path: Path, capsys: Any, monkeypatch: Any, last: str
) -> None:
    """Upstream HEAD's count: after the user's last allowed reply the agent acts once more;
    a message is answered and a STOP there scored, a query ends the conversation."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    agent, user = sides
    agent.push(text(ASK), text(ANSWER if last == "message" else LOOK), text(ASK))
    user.push(text(OPENING), text("Not sure."), text(STOP_TOKEN))
    out = tmp_path / "out"
    extra = ("--max-user-turns", "1", "--preset", "head", "--scoring", "head_rules")
    code, said = _run(_argv(pro, sides, out, *extra), capsys)
    assert code == 0, said
    row, recording = _only(out)
    assert len(agent.requests) == 2  # the last action, then nothing more
    if last == "message":
        assert row["reward"] == 1 and recording.submit is not None
        assert len(recording.of_type("user_message")) == 3
    else:
        assert row["reward"] == 0 and recording.submit is None
        assert row["agent_info"]["end_reason"]["message"] == "Max user turns reached"
        assert len(recording.of_type("user_message")) == 2


#: What a stalled user may add to ``--time-limit`` on a quiet machine (thread hand-offs, the
#: recording's end). Measured: 0.02 s. Before the fix the per-call timeout (here 30 s) ended
#: it; the bound grows with the machine's load (tests.waiting.promptly), never near that.
STALL_MARGIN_S = 2.0
#: The per-call ``--timeout`` and the user's stall: far apart from the limit, so a loaded
#: machine's slower start cannot be taken for either.
CALL_TIMEOUT_S, STALL_S = 30.0, 300.0


@pytest.mark.parametrize("stalls", ["opening", "reply"])
def test_a_stalling_user_model_cannot_hold_the_instance_past_its_time_limit(
    pro: Any, sides: Any, tmp_path: Path, capsys: Any, monkeypatch: Any, stalls: str
) -> None:
    """The user model's server holds its reply for 300 s, longer than the instance's limit
    (2 s) and the per-call ``--timeout`` (30 s): the instance ends at its limit, with
    a typed end reason naming the user, and the recording verifies."""
    import time

    from tests.fakes.openai_server import delayed

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    agent, user = sides
    agent.push(text(ASK))
    stall = delayed(STALL_S, text("far too late"))
    user.push(*([stall] if stalls == "opening" else [text(OPENING), stall]))
    out = tmp_path / "out"
    began = time.monotonic()
    argv = _argv(pro, sides, out, "--time-limit", "2", "--timeout", str(CALL_TIMEOUT_S))
    code, said = _run(argv, capsys)
    took = time.monotonic() - began
    assert code == 0, said
    row, recording = _only(out)
    reason = recording.end.payload["end_reason"]  # type: ignore[union-attr]
    assert reason["message"] == "Time limit reached" and reason["role"] == "user"
    assert row["agent_info"]["end_reason"]["message"] == "Time limit reached"
    # The episode's own time (session start to its end) is the limit plus the margin; the
    # whole command also loads the org and writes the results.
    spent = recording.events[-1].ms / 1000
    assert 2.0 <= spent <= 2.0 + promptly(STALL_MARGIN_S, instead=CALL_TIMEOUT_S - 2.0), spent
    # Start-up included (litellm, the org); far below the stall.
    assert took < promptly(30.0, instead=STALL_S), took
    assert len(recording.of_type("user_message")) == (0 if stalls == "opening" else 1)
