"""Under ``--preset naacl|head`` every text of the agent's messages comes from the harness folder.

These run against the placeholder harness (tests/fakes), whatever ../shared holds: what is
sent must follow the folder's texts (edit them and the messages change), be assembled the
way upstream's agents assemble them, and crmtui's own preset must keep crmtui's words.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmtui.agent.presets import resolve
from crmtui.agent.replies import ModelReply, parse_tool_call
from crmtui.agent.settings import AgentSettings
from crmtui.agent.strategies import make_strategy
from crmtui.agent.upstream_prompts import SYSTEM_NAME, read_prompts, upstream_prompts
from crmtui.agent.upstream_texts import ENV_VAR
from crmtui.data.schema import builtin_schema
from crmtui.errors import ConfigError
from tests.fakes.upstream_harness import write_fake_harness
from tests.unit.agent.agent_helpers import Inst, Meta

STRATEGIES = ("react", "act", "tool_call", "tool_call_flex")


def _reply(content: str | None = "", *calls: tuple[str, str]) -> ModelReply:
    tool_calls = [parse_tool_call(f" c{i} ", name, args) for i, (name, args) in enumerate(calls)]
    return ModelReply(
        content or "", tool_calls, 1, 1, None, 1.0, "stop", content_null=content is None
    )


def _harness(tmp_path: Path, version: str, mark: str = "") -> Path:
    """A placeholder harness whose every prompt text carries ``mark``."""
    folder = write_fake_harness(tmp_path / f"{version}{mark}", version)
    prompts = folder / "crm_sandbox" / "agents" / "prompts.py"
    prompts.write_text(prompts.read_text().replace("Placeholder", f"Placeholder{mark}"))
    return folder


def _strategy(name: str, version: str, folder: Path, **kwargs: object):  # type: ignore[no-untyped-def]
    toolset = "upstream" if name.startswith("tool_call") else "query"
    return make_strategy(
        name, toolset=toolset, observations=version, upstream_dir=str(folder), **kwargs
    )


def _texts(messages: list[dict]) -> str:
    return json.dumps(messages)


@pytest.mark.parametrize("version", ["naacl", "head"])
@pytest.mark.parametrize("name", STRATEGIES)
def test_every_text_sent_follows_the_harness_folder(
    tmp_path: Path, version: str, name: str
) -> None:
    """System prompt, schema section, task context, reminder, observation prefix and the
    invalid tool call message all come from the folder, never from crmtui's prompts."""
    folder = _harness(tmp_path, version, "X1")
    played = _strategy(name, version, folder)
    prompts = read_prompts(folder, version)
    schema = played.schema_text(builtin_schema())
    inst = Inst(metadata=Meta(required="- ctx line", optional="- opt line"))
    first = played.initial_messages(inst, schema, aided=True)
    system = first[0]["content"]
    assert system.startswith("PlaceholderX1 prompt") and SYSTEM_NAME in system
    assert "Task context (placeholder" in system and "- ctx line" in system
    assert system.endswith("- opt line")
    assert first[1] == {"role": "user", "content": inst.query.strip()}
    assert ("Objects (placeholder)" in system) == (name != "tool_call")
    invalid = played.parse(_reply("no action here"))
    assert played.invalid_messages(invalid) == [{"role": "user", "content": prompts.reminder(name)}]
    assert "PlaceholderX1 reminder" in prompts.reminder(name)
    if name.startswith("tool_call"):
        bad = _reply("", ("get_issues", '{"x": '))
        action = played.parse(bad)
        assert played.invalid_messages(action) == [
            {"role": "tool", "tool_call_id": "c0", "name": "get_issues",
             "content": prompts.invalid_tool_call}
        ]  # fmt: skip
        # The assistant message keeps the provider's text as it came: "" stays "".
        assert played.assistant_message(bad, action)["content"] == ""
        assert played.assistant_message(_reply(None, ("x", "{}")), action)["content"] is None
    else:
        action = played.parse(_reply("<execute>SELECT Id FROM Case</execute>"))
        assert played.result_messages(action, "[]") == [
            {"role": "user", "content": prompts.observation_prefix + "[]"}
        ]
    # crmtui's own preset keeps crmtui's words.
    ours = make_strategy(name, toolset="upstream") if name != "tool_call_flex" else None
    if ours is not None:
        text = _texts(
            ours.initial_messages(inst, builtin_schema().render_prompt_text(), aided=True)
        )
        assert "Placeholder" not in text and "Objects (placeholder)" not in text


def test_a_changed_folder_changes_the_messages_and_the_settings_digest(tmp_path: Path) -> None:
    one, two = _harness(tmp_path, "head", "A"), _harness(tmp_path, "head", "B")
    digests = []
    for folder, mark in ((one, "A"), (two, "B")):
        played = _strategy("react", "head", folder)
        sent = _texts(
            played.initial_messages(Inst(), played.schema_text(builtin_schema()), aided=False)
        )
        assert f"Placeholder{mark} prompt" in sent
        digests.append(
            resolve(
                AgentSettings(model="openai/x", preset="head", upstream_dir=str(folder))
            ).prompts
        )
    assert digests[0] != digests[1]


def test_which_prompt_upstream_picks(tmp_path: Path) -> None:
    """HEAD: customer-facing task types get the external prompt (CRMArena's too), the
    privacy-aware one with --privacy-aware-prompt, the interactive ones in the multi-turn
    mode; the paper's code has one react prompt; act and the tool strategies one each."""
    head = read_prompts(_harness(tmp_path, "head"), "head")
    naacl = read_prompts(_harness(tmp_path, "naacl"), "naacl")
    pick = head.template
    assert pick("react", external=False, privacy_aware=True, interactive=False) == (
        "REACT_INTERNAL_PROMPT"
    )
    assert pick("react", external=True, privacy_aware=False, interactive=False) == (
        "REACT_EXTERNAL_PROMPT"
    )
    assert pick("react", external=True, privacy_aware=True, interactive=True) == (
        "REACT_PRIVACY_AWARE_EXTERNAL_INTERACTIVE_PROMPT"
    )
    assert pick("act", external=True, privacy_aware=True, interactive=True) == (
        "ACT_INTERACTIVE_PROMPT"
    )
    assert naacl.template("react", external=True, privacy_aware=True, interactive=False) == (
        "REACT_PROMPT"
    )
    for prompts in (head, naacl):
        assert prompts.template("tool_call", external=True, privacy_aware=False,
                                interactive=False) == "NATIVE_FC_PROMPT"  # fmt: skip
        assert prompts.template("tool_call_flex", external=False, privacy_aware=False,
                                interactive=False) == "FC_FLEX_PROMPT"  # fmt: skip
    folder = _harness(tmp_path, "head", "P")
    played = _strategy("react", "head", folder, privacy_aware=True)
    kqa = played.system_prompt(Inst(task="knowledge_qa"), "S", aided=False)
    routing = played.system_prompt(Inst(task="case_routing"), "S", aided=False)
    assert "REACT_PRIVACY_AWARE_EXTERNAL_PROMPT" in kqa and "REACT_INTERNAL_PROMPT" in routing


def test_one_user_message_layout_is_upstreams_unstripped(tmp_path: Path) -> None:
    folder = _harness(tmp_path, "naacl")
    played = _strategy("react", "naacl", folder, single_user_message=True)
    inst = Inst(metadata=Meta(required="", optional=""))
    (only,) = played.initial_messages(inst, "S", aided=False)
    raw = read_prompts(folder, "naacl").system_prompt(
        "REACT_PROMPT", schema_text="S", required="", optional="", aided=False
    )
    # upstream: sys_prompt + "\n\n" + query, neither stripped
    assert only == {"role": "user", "content": raw + "\n\n" + inst.query}
    assert raw.endswith("\n") and inst.query != inst.query.strip()


def test_module_texts_are_read_as_python_reads_them(tmp_path: Path) -> None:
    """A later assignment replaces an earlier one (HEAD assigns SYSTEM_METADATA twice); the
    schema lists each object's fields in the order ``datasets`` gives upstream's rows (the
    union of every object's field names), not alphabetically."""
    folder = _harness(tmp_path, "head")
    prompts_py = folder / "crm_sandbox" / "agents" / "prompts.py"
    prompts_py.write_text(
        'SYSTEM_METADATA = "first {system_metadata}"\n'
        + prompts_py.read_text()
        + 'SYSTEM_METADATA = "last: {system_metadata}"\n'
    )
    assert read_prompts(folder, "head").texts["SYSTEM_METADATA"] == "last: {system_metadata}"
    played = _strategy("tool_call_flex", "head", folder)

    class Field:
        def __init__(self, name: str) -> None:
            self.name, self.description = name, f"about {name}"

    class Obj:
        def __init__(self, name: str, fields: list[str]) -> None:
            self.name, self.listed_fields = name, [Field(f) for f in fields]

    text = played.schema_text(
        [Obj("Account", ["Name", "Phone"]), Obj("Case", ["AccountId", "Phone", "Subject"])]
    )
    case = text.rsplit("\nCase\n", 1)[1].splitlines()
    assert case[:3] == ["  - Phone: about Phone", "  - AccountId: about AccountId",
                        "  - Subject: about Subject"]  # fmt: skip


def test_missing_or_unreadable_prompts_are_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from crmtui.cli import main

    monkeypatch.setenv(ENV_VAR, str(tmp_path / "nowhere"))
    with pytest.raises(ConfigError, match="upstream's own prompts") as caught:
        upstream_prompts("head")
    assert "\n" not in str(caught.value) and "crmtui upstream setup" in str(caught.value)
    args = ["run", "--model", "openai/x", "--preset", "head", "--strategy", "react"]
    with pytest.raises(SystemExit) as exited:
        main([*args, "--out", str(tmp_path / "out")])
    assert exited.value.code != 0
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and said[0].startswith("Error: ") and "prompts" in said[0]
    broken = write_fake_harness(tmp_path / "broken", "head")
    (broken / "crm_sandbox" / "agents" / "chat_agent.py").unlink()
    with pytest.raises(ConfigError, match="cannot read upstream's prompts") as caught:
        read_prompts(broken, "head")
    assert "\n" not in str(caught.value)
    gutted = write_fake_harness(tmp_path / "gutted", "head")
    (gutted / "crm_sandbox" / "agents" / "prompts.py").write_text("X = 'y'\n")
    with pytest.raises(ConfigError, match="has no SCHEMA_STRING"):
        read_prompts(gutted, "head")
