"""Upstream HEAD's simulated user, extractor and judge, read from the harness folder at run time.

The requests follow whatever the folder's code says (a stand-in harness here, edited to
prove it); the brief is the preset's unless ``--user-brief`` names one; upstream's reading
of the extractor's reply is checked against upstream's own ``parse_answers`` on generated
replies (skipped without ../shared).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from crmtui.agent.dialogue_settings import DialogueSettings
from crmtui.agent.settings import AgentSettings
from crmtui.agent.upstream_evaluator import (
    UpstreamExtractor,
    UpstreamJudge,
    UpstreamSimulatedUser,
    read_extraction,
    read_judgement,
)
from crmtui.agent.upstream_user_texts import evaluator_texts, user_texts
from crmtui.agent.user_sim import SimulatedUser
from crmtui.errors import ConfigError
from tests.fakes.upstream_harness import write_fake_harness
from tests.unit.upstream.test_fidelity import upstream_env  # noqa: F401 - a fixture


class _Client:
    """Records the messages of each call and answers with the next scripted text."""

    def __init__(self, *replies: str) -> None:
        self.model, self.api_base = "openai/user", None
        self.replies, self.sent = list(replies), []

    def complete(self, messages: Any, tools: Any = None, **_: Any) -> Any:
        from crmtui.agent.replies import ModelReply

        self.sent.append([dict(m) for m in messages])
        return ModelReply(self.replies.pop(0), [], 1, 1, None, 1.0, "stop")


class _Instance:
    idx, persona, query = 3, "You are terse.", "Which month had the most cases?"


def test_the_requests_follow_the_folders_code(tmp_path: Path) -> None:
    folder = write_fake_harness(tmp_path / "head", "head")
    users = folder / "crm_sandbox" / "env" / "users.py"
    users.write_text(users.read_text().replace("Play a customer.", "FOLDER USER."))
    texts = user_texts(folder)
    client = _Client("Hi there, I need a month.", "Last quarter.")
    user = UpstreamSimulatedUser(client, texts, _Instance.persona, _Instance.query)
    assert user.opening().text == "Hi there, I need a month."
    assert user.reply("Which period?").text == "Last quarter."
    first, second = client.sent
    assert "FOLDER USER." in first[0]["content"]
    assert _Instance.persona + " " + _Instance.query in first[0]["content"]
    assert first[1] == {"role": "user", "content": "(stand-in greeting) Hello?"}
    # The user's own reply goes back as litellm sends a model_dump()'d message.
    assert second[2:] == [
        {"content": "Hi there, I need a month.", "role": "assistant"},
        {"role": "user", "content": "Which period?"},
    ]
    assert user.side.settings["brief"] == "upstream"
    assert user.side.settings["temperature"] is None and user.side.settings["max_tokens"] is None

    env = folder / "crm_sandbox" / "env" / "env.py"
    env.write_text(env.read_text().replace("Pull the", "FOLDER EXTRACT"))
    evaluator = evaluator_texts(folder)
    messages, parameters = evaluator.extraction("It was June.", "monthly_trend_analysis")
    assert messages[0]["content"].startswith("(crmtui stand-in) FOLDER EXTRACT months")
    assert messages[1] == {"role": "user", "content": "It was June."}  # the bare answer
    assert parameters == {}
    judged, _ = evaluator.judging(["SELECT Id FROM Case", "I cannot share that."])
    assert judged[1]["content"].endswith("SELECT Id FROM Case\nI cannot share that.")


def test_extractor_and_judge_read_replies_as_upstream(tmp_path: Path) -> None:
    texts = evaluator_texts(write_fake_harness(tmp_path / "head", "head"))
    extract = UpstreamExtractor(_Client('{"extracted_answers": ["June"]}', "none"), texts)
    assert extract("June", task="monthly_trend_analysis") == ["June"]
    assert extract("nothing", task=None) == ["None"]
    judge = UpstreamJudge(_Client("Yes, it declined.", "NO"), texts)
    assert judge(["I cannot share that."]).refused and not judge(["Here it is."]).refused


def test_the_brief_is_the_presets_unless_named(tmp_path: Path) -> None:
    folder = str(write_fake_harness(tmp_path / "head", "head"))
    for preset, brief, kind in (
        ("head", None, UpstreamSimulatedUser),
        ("upstream", None, UpstreamSimulatedUser),
        ("crmtui", None, SimulatedUser),
        ("head", "rich", SimulatedUser),
        ("crmtui", "upstream", UpstreamSimulatedUser),
    ):
        dialogue = DialogueSettings(interactive=True, user_brief=brief)
        settings = AgentSettings(
            model="openai/gpt-4o", preset=preset, dialogue=dialogue, upstream_dir=folder
        )
        user = dialogue.simulated_user(_Instance(), None, _Client(), preset, folder)
        assert isinstance(user, kind), (preset, brief)
        recorded = settings.resolved.to_json()["dialogue"]
        expected = "upstream" if kind is UpstreamSimulatedUser else None
        assert recorded.get("user_brief") == expected
        assert recorded["user_prompt"] == user.side.settings["prompt"] or kind is SimulatedUser
    with pytest.raises(ConfigError, match="--user-brief"):
        DialogueSettings(interactive=True, user_brief="poor").check()


def test_the_upstream_brief_without_a_harness_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRMTUI_UPSTREAM_DIR", str(tmp_path / "nowhere"))
    dialogue = DialogueSettings(interactive=True)
    with pytest.raises(ConfigError, match="upstream setup") as caught:
        AgentSettings(model="openai/gpt-4o", preset="head", dialogue=dialogue).check()
    assert "\n" not in str(caught.value)


#: Upstream HEAD's own Evaluator.parse_answers, its model call stubbed with each reply.
_UPSTREAM_PARSE = r"""
import json, sys, types
sys.path.insert(0, sys.argv[1])
from crm_sandbox.env import env as upstream

out = []
for reply in json.loads(sys.stdin.read()):
    message = types.SimpleNamespace(content=reply)
    answer = types.SimpleNamespace(choices=[types.SimpleNamespace(message=message)])
    upstream.litellm.completion = lambda **kwargs: answer
    evaluator = object.__new__(upstream.Evaluator)
    evaluator.id_system_prompt = evaluator.month_system_prompt = "p"
    evaluator.model, evaluator.provider = "m", "openai"
    try:
        out.append(sorted(evaluator.parse_answers("x", "monthly_trend_analysis")))
    except Exception as exc:
        out.append("raises")
print(json.dumps(out))
"""


def _replies() -> list[Any]:
    rng = random.Random(31)
    pieces = ["June", "none", "None", " May ", '"July"', "'April'", "", "  ", "null", "[]"]
    replies: list[Any] = [None, '["June"]', '{"extracted_answers": []}']
    for _ in range(120):
        items = rng.sample(["June", "May", None, "None"], rng.randint(0, 3))
        form = rng.randrange(6)
        if form == 0:
            replies.append(json.dumps({"extracted_answers": items}))
        elif form == 1:
            replies.append(json.dumps(items))
        elif form == 2:
            replies.append("```json\n" + json.dumps({"extracted_answers": items}) + "\n```")
        elif form == 3:
            replies.append(json.dumps({"extracted_answers": rng.choice(pieces)}))
        else:
            replies.append(rng.choice(pieces) + rng.choice(["", "\n", " and June"]))
    return replies


def _ours(reply: Any) -> Any:
    try:
        return sorted(read_extraction(reply))
    except ValueError:
        return "raises"


def test_reading_an_extractor_reply_is_upstreams_own(
    shared_dir: Path,
    upstream_env: None,  # noqa: F811
) -> None:
    harness = shared_dir / "upstream-harness"
    if not harness.is_dir():
        pytest.skip(f"{harness} is not present")
    replies = _replies()
    done = subprocess.run(
        [sys.executable, "-c", _UPSTREAM_PARSE, str(harness)],
        input=json.dumps(replies),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=harness,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    ours = [_ours(reply) for reply in replies]
    mismatched = [
        (reply, mine, upstream)
        for reply, mine, upstream in zip(replies, ours, theirs, strict=True)
        if mine != upstream
    ]
    assert not mismatched
    assert "raises" in theirs and ["None"] in theirs and ["June"] in theirs


def test_the_judges_reply_is_read_as_upstream_reads_it() -> None:
    for reply, refused in (("YES", True), ("yes.", True), ("Eyes", True), ("NO", False),
                           ("", False), (None, False), ("No, not yes", True)):  # fmt: skip
        assert read_judgement(reply) is refused


def test_the_upstream_user_sends_no_parameters_but_a_temperature_given(tmp_path: Path) -> None:
    from crmtui.agent.client import ModelClient

    texts = user_texts(write_fake_harness(tmp_path / "head", "head"))
    for given, sent in ((None, None), (0.7, 0.7)):
        client = ModelClient("openai/user", temperature=given)
        user = UpstreamSimulatedUser(client, texts, "p", "q")
        assert (user.client.temperature, user.client.extra) == (
            sent,
            {"max_tokens": None, "temperature": sent},
        )
        assert client.temperature == given and client.extra == {}  # the given client kept


def test_the_evaluator_requests_are_part_of_the_resume_check(tmp_path: Path) -> None:
    folder = write_fake_harness(tmp_path / "head", "head")
    head = AgentSettings(model="openai/gpt-4o", preset="head", upstream_dir=str(folder))
    assert head.evaluator_digest() == evaluator_texts(folder).digest()
    assert AgentSettings(model="openai/gpt-4o").evaluator_digest() is None
    rules = AgentSettings(
        model="openai/gpt-4o", preset="head", upstream_dir=str(folder), scoring="head_rules"
    )
    assert rules.evaluator_digest() is not None  # the judge is still upstream's model
    other = write_fake_harness(tmp_path / "other", "head")
    env = other / "crm_sandbox" / "env" / "env.py"
    env.write_text(env.read_text().replace("Pull the", "Pick the"))
    changed = AgentSettings(model="openai/gpt-4o", preset="head", upstream_dir=str(other))
    assert changed.evaluator_digest() != head.evaluator_digest()
