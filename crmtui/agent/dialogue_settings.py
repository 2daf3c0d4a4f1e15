"""Settings of the multi-turn mode: the simulated user's model and the limit on user turns.

``crmtui run``, ``watch`` and ``play`` take ``--interactive`` (or a ``*_interactive`` split,
which implies it), ``--user-model`` (default: upstream's user model, ``gpt-4o-2024-08-06``),
``--user-api-base``, ``--user-temperature`` (default: none sent, i.e. the provider's own
sampling, as upstream), ``--max-user-turns`` (default 10, as upstream) and ``--user-brief``:
``upstream`` (upstream HEAD's own user prompt, greeting and request parameters, read from
its harness: :mod:`crmtui.agent.upstream_evaluator`; the default under ``--preset head``) or
``rich`` (crmtui's brief, with the instance's hidden facts: :mod:`crmtui.agent.user_sim`;
the default otherwise). The values are recorded: in a model's settings (header, results
rows, the resume check) under ``dialogue``, and with the simulated user's side in the
recording header.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from crmtui.errors import ConfigError
from crmtui.limits import DEFAULT_MAX_USER_TURNS
from crmtui.value_class import FrozenValue

__all__ = [
    "UPSTREAM_USER_MODEL",
    "USER_BRIEFS",
    "DialogueSettings",
    "default_brief",
    "is_interactive_source",
]

#: The model upstream's interactive environment plays the user with.
UPSTREAM_USER_MODEL = "gpt-4o-2024-08-06"
#: ``--user-brief`` values: crmtui's brief with the hidden facts, or upstream HEAD's own.
USER_BRIEFS = ("rich", "upstream")
#: Presets whose simulated user is upstream HEAD's unless ``--user-brief`` says otherwise.
_UPSTREAM_USER_PRESETS = ("head", "upstream")


def default_brief(preset: str | None) -> str:
    """The user brief a preset implies: ``upstream`` under ``head``, else ``rich``."""
    return "upstream" if (preset or "").strip().lower() in _UPSTREAM_USER_PRESETS else "rich"


def is_interactive_source(tasks: str | None) -> bool:
    """Whether a task source is an interactive split of upstream's (``hf:...:b2b_interactive``)."""
    return bool(tasks) and str(tasks).strip().endswith("_interactive")


class DialogueSettings(FrozenValue):
    """The multi-turn mode's settings.

    Attributes:
        interactive: Play instances as dialogues with a user.
        user_model: The simulated user's litellm model.
        user_api_base: Its OpenAI-compatible server (default: the provider's own).
        user_temperature: Its sampling temperature (None: none sent, as upstream).
        max_user_turns: User replies allowed before the episode ends without an answer.
        user_kind: ``model`` (a simulated user) or ``human`` (a person plays the user:
            ``play --as-user``, or a study's user role); a person needs no user model.
        user_brief: ``rich`` or ``upstream`` (None: the preset's, see :func:`default_brief`).
    """

    FIELDS = (
        "interactive",
        "user_model",
        "user_api_base",
        "user_temperature",
        "max_user_turns",
        "user_kind",
        "user_brief",
    )

    interactive: bool
    user_model: str
    user_api_base: str | None
    user_temperature: float | None
    max_user_turns: int
    user_kind: str
    user_brief: str | None

    def __init__(
        self,
        interactive: bool = False,
        user_model: str = UPSTREAM_USER_MODEL,
        user_api_base: str | None = None,
        user_temperature: float | None = None,
        max_user_turns: int = DEFAULT_MAX_USER_TURNS,
        user_kind: str = "model",
        user_brief: str | None = None,
    ) -> None:
        self._set(
            interactive=interactive,
            user_model=user_model,
            user_api_base=user_api_base,
            user_temperature=user_temperature,
            max_user_turns=max_user_turns,
            user_kind=user_kind,
            user_brief=user_brief,
        )

    @property
    def simulated(self) -> bool:
        """Whether a model plays the user (its key and server are checked and recorded)."""
        return self.interactive and self.user_kind == "model"

    def check(self) -> None:
        """Reject impossible settings with a one-line :class:`ConfigError`."""
        if isinstance(self.max_user_turns, bool) or self.max_user_turns < 1:
            raise ConfigError(f"--max-user-turns must be at least 1, got {self.max_user_turns}")
        if not self.user_model or not self.user_model.strip():
            raise ConfigError("--user-model needs a litellm model name")
        temperature = self.user_temperature
        if temperature is not None and not (math.isfinite(temperature) and 0 <= temperature <= 2):
            raise ConfigError(f"--user-temperature must be between 0 and 2, got {temperature:g}")
        if self.user_brief is not None and self.user_brief not in USER_BRIEFS:
            raise ConfigError(
                f"unknown --user-brief {self.user_brief!r}: choose {' or '.join(USER_BRIEFS)}"
            )

    def brief(self, preset: str | None = None) -> str:
        """The user brief played: the one given, else the preset's."""
        return self.user_brief or default_brief(preset)

    def to_json(
        self, preset: str | None = None, upstream_dir: str | None = None
    ) -> dict[str, Any] | None:
        """The values as recorded in a model's settings (None when not interactive).

        Raises:
            ConfigError: The upstream brief, without upstream's harness to read it from.
        """
        if not self.interactive:
            return None
        if not self.simulated:
            return {"user": "human", "max_user_turns": self.max_user_turns}
        brief = self.brief(preset)
        if brief == "upstream":
            from crmtui.agent.upstream_user_texts import user_texts

            digest = user_texts(upstream_dir).digest()
        else:
            from crmtui.agent.user_sim import user_prompt_digest

            digest = user_prompt_digest()
        values: dict[str, Any] = {
            "user_model": self.user_model.strip(),
            "user_api_base": self.user_api_base,
            "user_temperature": self.user_temperature,
            "max_user_turns": self.max_user_turns,
            "user_prompt": digest,
        }
        if brief != "rich":  # recorded only when not crmtui's (older runs resume as they were)
            values["user_brief"] = brief
        return values

    def user_client(self, timeout: float, options: Mapping[str, Any] | None = None) -> Any:
        """The simulated user's model client (imports litellm: call it off the UI thread)."""
        from crmtui.agent.client import ModelClient

        return ModelClient(
            self.user_model.strip(),
            api_base=self.user_api_base,
            timeout=timeout,
            temperature=self.user_temperature,
            **dict(options or {}),
        )

    def simulated_user(
        self,
        instance: Any,
        org_path: Any,
        client: Any,
        preset: str | None = None,
        upstream_dir: str | None = None,
    ) -> Any:
        """The simulated user of ``instance``: under the ``rich`` brief a
        :class:`~crmtui.agent.user_sim.SimulatedUser` (persona, query and the hidden facts its
        org's solutions file holds for it); under ``upstream`` an
        :class:`~crmtui.agent.upstream_evaluator.UpstreamSimulatedUser` (persona and query in
        upstream's own prompt)."""
        persona = getattr(instance, "persona", None)
        if self.brief(preset) == "upstream":
            from crmtui.agent.upstream_evaluator import UpstreamSimulatedUser
            from crmtui.agent.upstream_user_texts import user_texts

            return UpstreamSimulatedUser(client, user_texts(upstream_dir), persona, instance.query)
        from crmtui.agent.user_sim import SimulatedUser
        from crmtui.play.dialogue_facts import hidden_facts

        facts = hidden_facts(org_path, instance.idx)
        return SimulatedUser(client, persona, instance.query, facts)

    def start(
        self,
        instance: Any,
        org_path: Any,
        agent: Any,
        client: Any,
        preset: str | None = None,
        upstream_dir: str | None = None,
    ) -> tuple[Any, dict[str, Any]]:
        """The simulated user of one episode and the header's ``dialogue`` object.

        Args:
            instance: The instance played.
            org_path: Its org's database file (the solutions file beside it has the facts).
            agent: The agent's :class:`~crmtui.play.dialogue.Side`.
            client: The user model's client (:meth:`user_client`).
            preset: The agent's preset (chooses the brief unless ``user_brief`` is given).
            upstream_dir: Upstream's harness folder (the ``upstream`` brief reads it).
        """
        from crmtui.play.dialogue import DialogueSpec

        user = self.simulated_user(instance, org_path, client, preset, upstream_dir)
        spec = DialogueSpec("agent", agent, user.side, self.max_user_turns)
        return user, spec.to_json()
