"""The multi-turn mode's options (``run``, ``watch``, ``play``): a simulated user to talk to.

``--interactive`` plays CRMArena-Pro rows as upstream's interactive splits do: a user model
opens the conversation with the instance's persona and query as its hidden instruction, and
the agent's every ``respond`` goes to it. A task source that is one of upstream's
``*_interactive`` splits implies ``--interactive``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from crmtui.limits import DEFAULT_MAX_USER_TURNS

F = TypeVar("F", bound=Callable[..., Any])

#: Keyword arguments of the options, popped by :func:`dialogue_settings`.
DIALOGUE_OPTION_NAMES = (
    "interactive",
    "user_model",
    "user_api_base",
    "user_temperature",
    "max_user_turns",
    "user_brief",
)


def dialogue_options(func: F) -> F:
    """Decorate a command with the multi-turn mode's options."""
    from crmtui.agent.dialogue_settings import UPSTREAM_USER_MODEL, USER_BRIEFS

    options = [
        click.option(
            "--interactive",
            is_flag=True,
            help="Multi-turn: a simulated user (--user-model) opens each instance with its "
            "persona and query as a hidden instruction; every respond goes to it and its "
            "last accepted one is scored (implied by an hf:...:*_interactive split).",
        ),
        click.option(
            "--user-model",
            default=UPSTREAM_USER_MODEL,
            show_default=True,
            metavar="M",
            help="The simulated user's litellm model (upstream's default).",
        ),
        click.option(
            "--user-api-base",
            default=None,
            metavar="URL",
            help="Server of --user-model (default: its provider's own).",
        ),
        click.option(
            "--user-temperature",
            type=float,
            default=None,
            metavar="T",
            help="The simulated user's temperature (default: none sent, the provider's own "
            "sampling, as upstream).",
        ),
        click.option(
            "--max-user-turns",
            type=click.IntRange(min=1),
            default=DEFAULT_MAX_USER_TURNS,
            show_default=True,
            help="User replies before the conversation ends without an answer (reward 0).",
        ),
        click.option(
            "--user-brief",
            type=click.Choice(USER_BRIEFS),
            default=None,
            help="What the simulated user is told: upstream (upstream HEAD's own prompt, "
            "greeting and request parameters, read from its harness; the default under "
            "--preset head) or rich (crmtui's brief plus the instance's hidden facts such as "
            "the date, period and record Ids; the default otherwise).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def dialogue_settings(values: dict[str, Any], tasks: str | None) -> Any:
    """Pop the options from ``values`` into a :class:`DialogueSettings`."""
    from crmtui.agent.dialogue_settings import DialogueSettings, is_interactive_source

    popped = {name: values.pop(name) for name in DIALOGUE_OPTION_NAMES}
    return DialogueSettings(
        interactive=bool(popped["interactive"]) or is_interactive_source(tasks),
        user_model=popped["user_model"],
        user_api_base=popped["user_api_base"],
        user_temperature=popped["user_temperature"],
        max_user_turns=popped["max_user_turns"],
        user_brief=popped["user_brief"],
    )
