"""Multi-turn studies: roles, the pairing rule, pairs' shared assignments, the seats' settings,
and a definition that keeps the models' names but never a key."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from crmtui.cli import cli
from crmtui.errors import ConfigError
from crmtui.play.channel import check_channel_name
from crmtui.study import StudyRequest, create_study, load_study, study_status
from crmtui.study.launch import play_config
from crmtui.study.roles import Conversation, channel_name, cycle_roles, pair_people
from tests.unit.study.helpers import workspace

CHAT = Conversation(user_model="openai/user", user_api_base="http://127.0.0.1:9/v1",
                    agent_model="openai/agent", max_user_turns=4)  # fmt: skip


@pytest.fixture(autouse=True)
def studies_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CRMTUI_STUDIES", str(tmp_path / "studies"))
    return tmp_path / "studies"


def make(annotators: list[str], roles: list[str] | None, conversation: Conversation = CHAT,
         **kwargs: object) -> object:  # fmt: skip
    made, _ = create_study(
        StudyRequest(name="chat", annotators=annotators, per_type=3, shared=0.0, overlap=1,
                     seed=5, practice=1, conversation=conversation, roles=roles,
                     **kwargs),  # type: ignore[arg-type]
        workspace=workspace(),
    )  # fmt: skip
    return made


def test_roles_cycle_and_the_kth_agent_pairs_with_the_kth_user() -> None:
    names = ["ann", "ben", "cat", "dan", "eve"]
    roles = cycle_roles(names, ["agent", "user"])
    assert roles == {"ann": "agent", "ben": "user", "cat": "agent", "dan": "user", "eve": "agent"}
    pairs = pair_people(roles)
    assert pairs == {"ann": "ben", "ben": "ann", "cat": "dan", "dan": "cat"}
    assert pair_people(roles, "models") == {}
    # Every pair is mutual and in opposite roles, for any list of roles.
    for pattern in (["user"], ["user", "user", "agent"], ["agent", "agent", "user"]):
        roles = cycle_roles(names, pattern)
        pairs = pair_people(roles)
        assert all(pairs[pairs[n]] == n and roles[n] != roles[pairs[n]] for n in pairs)


def test_a_pair_gets_one_assignment_and_both_sides_meet_on_its_channel() -> None:
    study = make(["ann", "ben", "cat"], ["agent", "user"])
    assert study.partners == {"ann": "ben", "ben": "ann"}
    assert study.assignment("ann").order == study.assignment("ben").order
    assert study.partner_of("cat") is None and study.role_of("cat") == "agent"
    ann, ben, cat = (play_config(study, who) for who in ("ann", "ben", "cat"))
    assert ann.channel == ben.channel == channel_name(study.name, "ann", "ben")
    assert not ann.as_user and ben.as_user and ann.agent is None
    assert ann.dialogue.user_kind == ben.dialogue.user_kind == "human"
    assert cat.channel is None and cat.dialogue.simulated
    assert cat.dialogue.user_api_base == "http://127.0.0.1:9/v1"
    assert cat.dialogue.max_user_turns == 4
    assert study.partner_text("ann") == "ben (person)"
    assert study.partner_text("cat") == "simulated user openai/user"
    # A pair is one seat: its instances are not "shared" (no agreement between two sides).
    assert not any(row.shared for row in study_status(study).instances)


def test_the_definition_round_trips_and_holds_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    study = make(
        ["ann", "ben", "cat", "dan"], ["user", "agent"], CHAT.with_changes(partners="models")
    )
    again = load_study(study.folder)
    assert again.conversation == study.conversation
    assert again.roles == study.roles and again.partners == {}
    assert "sk-secret" not in study.definition_path.read_text()
    ann = play_config(again, "ann")
    assert ann.agent is not None and ann.agent.model == "openai/agent" and ann.channel is None
    assert again.partner_text("ann") == "model agent openai/agent"


def test_mistakes_are_one_line_errors() -> None:
    with pytest.raises(ConfigError, match="plays the user with no person"):
        make(["ann", "ben"], ["user"], CHAT.with_changes(agent_model=None))
    with pytest.raises(ConfigError, match="--roles is for multi-turn"):
        make(["ann"], ["agent"], None)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="a pair of people is one seat"):
        create_study(StudyRequest(name="x", annotators=["ann", "ben"], per_type=2, shared=1.0,
                                  overlap=2, conversation=CHAT, roles=["agent", "user"]),
                     workspace=workspace())  # fmt: skip


def test_study_create_cli_interactive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("crmtui.study.create._workspace", lambda tasks, org: workspace())
    result = CliRunner().invoke(cli, [
        "study", "create", "cli", "--annotators", "ann,ben,cat", "--per-type", "2",
        "--shared", "0", "--roles", "agent,user", "--user-model", "openai/u",
        "--user-api-base", "http://127.0.0.1:9/v1", "--max-user-turns", "3",
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "ann plays the agent, talking to ben (person)" in result.output
    assert "cat plays the agent, talking to simulated user openai/u" in result.output
    study = load_study("cli")
    assert study.conversation.max_user_turns == 3 and study.partners["ben"] == "ann"
    bad = CliRunner().invoke(cli, [
        "study", "create", "bad", "--annotators", "ann,ben", "--per-type", "1", "--shared", "0",
        "--roles", "agent,boss",
    ])  # fmt: skip
    assert isinstance(bad.exception, ConfigError)  # main() prints it as one Error: line
    assert "--roles: 'boss' is not a role" in str(bad.exception)


def test_a_newcomer_takes_a_role_and_talks_to_a_model() -> None:
    from crmtui.study import add_annotator
    from crmtui.study.definition import StudyError

    study = make(["ann", "ben"], ["agent", "user"])
    updated, item, _ = add_annotator(str(study.folder), "cat", role="user")
    assert updated.role_of("cat") == "user" and updated.partner_of("cat") is None
    assert load_study(study.folder).role_of("cat") == "user"
    assert play_config(updated, "cat").agent.model == "openai/agent"
    plain, _ = create_study(
        StudyRequest(name="plain", annotators=["ann"], per_type=1, shared=0),
        workspace=workspace(),
    )
    with pytest.raises(ConfigError, match="--role is for multi-turn"):
        add_annotator(str(plain.folder), "dan", role="user")
    # A hand-edited definition whose partners do not pair back is refused, naming the entry.
    text = study.definition_path.read_text().replace('partner = "ann"', 'partner = "cat"')
    study.definition_path.write_text(text)
    with pytest.raises(StudyError, match="annotators.ann.partner 'ben' is not paired back"):
        load_study(study.folder)


def test_pair_channels_never_collide() -> None:
    """Issue #35: dotted names joined with dots made two pairs share one conversation.
    Every distinct (study, agent, user) gets its own channel, whatever the names hold."""
    names = ["ann.lee", "bo", "ann", "lee.bo", "a", "b.c", "a.b", "c", "x\0y", "x", "y"]
    seen: dict[str, tuple[str, str, str]] = {}
    for study in ("s", "s.t", "t"):
        for agent in names:
            for user in names:
                name = channel_name(study, agent, user)
                assert seen.setdefault(name, (study, agent, user)) == (study, agent, user)
                assert check_channel_name(name) == name
