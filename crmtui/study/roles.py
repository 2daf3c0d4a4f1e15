"""Multi-turn studies: who plays which side of each conversation, and with whom.

A study made with ``--interactive`` plays every instance as a dialogue (CRMArena-Pro's
multi-turn mode). Each annotator has a role:

* ``agent``: they answer a user. Their partner is another annotator in the user role (a
  person in another browser tab or terminal), or else the simulated user (``--user-model``).
* ``user``: they play the customer (persona and hidden instruction, never the gold). Their
  partner is another annotator in the agent role, or else a model agent (``--agent-model``).

The pairing rule (:func:`pair_people`), simple on purpose: ``--roles`` is cycled over the
annotators in the order given (``--roles agent,user`` with ann,ben,cat,dan: ann and cat
agents, ben and dan users); with ``--partners people`` (the default) the k-th agent is paired
with the k-th user, and whoever is left over talks to a model; with ``--partners models``
nobody is paired. A pair of people gets one assignment (the same instances in the same
order) and meets on a channel named after the pair (:func:`channel_name`), one per instance,
under the study's recordings; both sides record into the study.

The study stores the models' names and servers, never a key: each session takes the key
from the provider's environment variable, as ``crmtui play`` does.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from crmtui.errors import ConfigError

__all__ = [
    "AGENT",
    "ROLES",
    "USER",
    "Conversation",
    "channel_name",
    "check_roles",
    "cycle_roles",
    "pair_people",
    "parse_roles",
    "partner_label",
]

AGENT = "agent"
USER = "user"
ROLES = (AGENT, USER)
#: ``--partners``: pair people in opposite roles, or give everyone a model partner.
PARTNER_MODES = ("people", "models")


@dataclass(frozen=True)
class Conversation:
    """A multi-turn study's settings (``[dialogue]`` in ``study.toml``).

    Attributes:
        user_model: The simulated user's litellm model (for agents without a person partner).
        user_api_base: Its server (None: the provider's own).
        user_temperature: Its temperature (None: none sent, as upstream).
        max_user_turns: User replies before a conversation ends without an answer.
        agent_model: The model agent of users without a person partner (None: none).
        agent_api_base: Its server (None: the provider's own).
        agent_strategy: Its strategy (``react`` or ``act``).
        partners: ``people`` or ``models`` (see the module docs).
    """

    user_model: str
    user_api_base: str | None = None
    user_temperature: float | None = None
    max_user_turns: int = 10
    agent_model: str | None = None
    agent_api_base: str | None = None
    agent_strategy: str = "react"
    partners: str = "people"

    def dialogue(self, *, person_user: bool) -> Any:
        """The :class:`~crmtui.agent.dialogue_settings.DialogueSettings` of a session
        (``person_user``: a person plays the user, so no user model is called)."""
        from crmtui.agent.dialogue_settings import DialogueSettings

        return DialogueSettings(
            interactive=True,
            user_model=self.user_model,
            user_api_base=self.user_api_base,
            user_temperature=self.user_temperature,
            max_user_turns=self.max_user_turns,
            user_kind="human" if person_user else "model",
        )

    def agent(self) -> Any:
        """The model agent a person in the user role talks to (its
        :class:`~crmtui.agent.settings.AgentSettings`).

        Raises:
            ConfigError: The study names no agent model.
        """
        from crmtui.agent.settings import AgentSettings

        if not self.agent_model:
            raise ConfigError("this study names no agent model (--agent-model) for its users")
        return AgentSettings(
            model=self.agent_model,
            strategy=self.agent_strategy,
            api_base=self.agent_api_base,
            dialogue=self.dialogue(person_user=True),
        )

    def check(self) -> None:
        """Refuse impossible settings with a one-line :class:`ConfigError`."""
        self.dialogue(person_user=False).check()
        if self.partners not in PARTNER_MODES:
            raise ConfigError(f"--partners must be people or models, not {self.partners!r}")
        if self.agent_strategy not in ("react", "act"):
            raise ConfigError(f"--agent-strategy must be react or act, not {self.agent_strategy!r}")

    def to_document(self) -> dict[str, Any]:
        """The ``[dialogue]`` table (None values are left out of the TOML)."""
        return {
            "user_model": self.user_model,
            "user_api_base": self.user_api_base,
            "user_temperature": self.user_temperature,
            "max_user_turns": self.max_user_turns,
            "agent_model": self.agent_model,
            "agent_api_base": self.agent_api_base,
            "agent_strategy": self.agent_strategy,
            "partners": self.partners,
        }

    @classmethod
    def from_document(cls, table: Mapping[str, Any]) -> Conversation:
        """Read the ``[dialogue]`` table back."""
        temperature = table.get("user_temperature")
        made = cls(
            user_model=str(table["user_model"]),
            user_api_base=table.get("user_api_base"),
            user_temperature=None if temperature is None else float(temperature),
            max_user_turns=int(table.get("max_user_turns", 10)),
            agent_model=table.get("agent_model"),
            agent_api_base=table.get("agent_api_base"),
            agent_strategy=str(table.get("agent_strategy", "react")),
            partners=str(table.get("partners", "people")),
        )
        try:
            made.check()
        except ConfigError as exc:
            raise ValueError(str(exc)) from None
        return made

    def with_changes(self, **changes: Any) -> Conversation:
        """A copy with some values changed."""
        return replace(self, **changes)


def parse_roles(text: str | None) -> list[str]:
    """``agent,user`` -> ``["agent", "user"]``.

    Raises:
        ConfigError: An unknown role, or none.
    """
    roles = [part.strip().lower() for part in (text or "").split(",") if part.strip()]
    if not roles:
        raise ConfigError("--roles needs agent, user or both (e.g. agent,user)")
    for role in roles:
        if role not in ROLES:
            raise ConfigError(f"--roles: {role!r} is not a role (agent or user)")
    return roles


def cycle_roles(annotators: Sequence[str], roles: Sequence[str]) -> dict[str, str]:
    """Each annotator's role: ``roles`` cycled over the annotators in their order."""
    return {name: roles[n % len(roles)] for n, name in enumerate(annotators)}


def pair_people(roles: Mapping[str, str], partners: str = "people") -> dict[str, str]:
    """Each paired annotator's partner (both directions); the unpaired are left out.

    The k-th annotator in the agent role (in the annotators' order) is paired with the k-th
    in the user role; with ``partners == "models"`` nobody is.
    """
    if partners == "models":
        return {}
    agents = [name for name, role in roles.items() if role == AGENT]
    users = [name for name, role in roles.items() if role == USER]
    found: dict[str, str] = {}
    for agent, user in zip(agents, users, strict=False):
        found[agent], found[user] = user, agent
    return found


def channel_name(study: str, agent: str, user: str) -> str:
    """The channel a pair of people meets on (one conversation per instance under it).

    A digest of the study's and both people's names, each a separate component: names
    joined with dots would collide (``ann.lee`` + ``bo`` and ``ann`` + ``lee.bo`` both made
    ``pair.ann.lee.bo``, so two pairs shared one conversation).
    """
    digest = hashlib.sha256(json.dumps([study, agent, user]).encode()).hexdigest()[:32]
    return f"pair-{digest}"


def partner_label(role: str, partner: str | None, conversation: Conversation) -> str:
    """Who the other side is, in words (the picker's title, ``study status``)."""
    if partner is not None:
        return f"{partner} (person)"
    if role == AGENT:
        return f"simulated user {conversation.user_model}"
    return f"model agent {conversation.agent_model or '(none set)'}"


def check_roles(
    roles: Mapping[str, str], pairs: Mapping[str, str], conversation: Conversation
) -> None:
    """Refuse a study whose users would have nobody to talk to.

    Raises:
        ConfigError: A user without a person partner and no ``--agent-model``.
    """
    alone = [name for name, role in roles.items() if role == USER and name not in pairs]
    if alone and not conversation.agent_model:
        raise ConfigError(
            f"annotator {alone[0]!r} plays the user with no person in the agent role to "
            "pair with: give --agent-model M (the model agent they talk to)"
        )
