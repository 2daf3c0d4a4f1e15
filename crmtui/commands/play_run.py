"""What ``crmtui play`` does once its options are read, and a plain ``crmtui play`` without click.

The click command (:mod:`crmtui.commands.play`) reads every option and calls :func:`run_play`;
so does :func:`crmtui.cli.main` directly for a command line :func:`read_play_args`
understands (``crmtui`` alone, or ``crmtui play`` with the everyday options), before click
and the command's ~25 options are built: CPU of a cold start that a bare Textual app does
not pay (measured in docs/performance.md). Both paths build the same
:class:`~crmtui.config.PlayConfig` (tests/unit/test_play_args.py) and fail the same way.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from crmtui.config import PlayConfig

#: The options :func:`read_play_args` reads with a value, by the parameter each one sets.
_VALUED = {
    "--tasks": "tasks",
    "--org": "org",
    "--annotator": "annotator",
    "--task": "task",
    "--idx": "idx",
    "--recordings": "recordings",
}
#: The flags it reads.
_FLAGS = {"--aided": "aided", "--force": "force"}


def read_play_args(args: list[str]) -> dict[str, Any] | None:
    """The parameters of ``crmtui play ARGS`` when they are plain enough to read without click.

    Only the forms click reads the same way are taken: each option once (``--org X`` or
    ``--org=X``), a value neither empty nor starting with ``-``, an ``--idx`` of digits, a
    ``--recordings`` that is neither a file nor an unreadable folder, no arguments.
    Anything else (``--help``, any other option, a bad value) is None: click reads it and
    reports its own usage errors.
    """
    found: dict[str, Any] = {}
    items = iter(args)
    for arg in items:
        name, eq, value = arg.partition("=")
        if name in _FLAGS and not eq:
            param = _FLAGS[name]
            if param in found:
                return None
            found[param] = True
            continue
        param = _VALUED.get(name)
        if param is None or param in found:
            return None
        if not eq:
            value = next(items, None)
            if value is None:
                return None
        if not value or value.startswith("-"):
            return None
        found[param] = value
    if "idx" in found:
        if not (found["idx"].isascii() and found["idx"].isdigit()):
            return None
        found["idx"] = int(found["idx"])
    if "recordings" in found:
        found["recordings"] = folder = Path(found["recordings"])
        if folder.exists() and not (folder.is_dir() and os.access(folder, os.R_OK)):
            return None  # click's "is a file" or "is not readable" usage error
    return found


def plain_play_config(
    *,
    tasks: str | None = None,
    org: str | None = None,
    annotator: str | None = None,
    task: str | None = None,
    idx: int | None = None,
    recordings: Path | None = None,
    aided: bool = False,
    force: bool = False,
) -> tuple[PlayConfig, Any]:
    """The config (and the dialogue settings) ``crmtui play`` builds from these options,
    every other option at its default: what :func:`read_play_args` read."""
    from crmtui.agent.dialogue_settings import (
        UPSTREAM_USER_MODEL,
        DialogueSettings,
        is_interactive_source,
    )
    from crmtui.limits import DEFAULT_MAX_USER_TURNS

    # The defaults of crmtui.commands.dialogue_options (the test above holds them equal).
    conversation = DialogueSettings(
        interactive=is_interactive_source(tasks),
        user_model=UPSTREAM_USER_MODEL,
        user_api_base=None,
        user_temperature=None,
        max_user_turns=DEFAULT_MAX_USER_TURNS,
        user_brief=None,
    )
    return play_config(
        conversation,
        tasks=tasks,
        org=org,
        annotator=annotator,
        task=task,
        idx=idx,
        recordings=recordings,
        aided=aided,
        force=force,
        idle=60.0,
    ), conversation


def play_config(
    conversation: Any,
    *,
    tasks: str | None,
    org: str | None,
    annotator: str | None,
    task: str | None,
    idx: int | None,
    recordings: Path | None,
    aided: bool,
    force: bool,
    idle: float,
    agent: Any = None,
    channel: str | None = None,
    as_user: bool = False,
    partner_timeout: float = 30.0,
) -> PlayConfig:
    """The :class:`PlayConfig` of ``crmtui play`` with these options (defaults filled in)."""
    from crmtui.config import default_annotator
    from crmtui.paths import recordings_dir

    return PlayConfig(
        tasks=tasks,
        org=org,
        annotator=annotator or default_annotator(),
        task=task,
        idx=idx,
        recordings=recordings if recordings is not None else recordings_dir(),
        aided=aided,
        idle_threshold=idle,
        force=force,
        dialogue=conversation if conversation.interactive and agent is None else None,
        agent=agent,
        channel=channel,
        as_user=as_user and channel is not None,
        partner_timeout_s=partner_timeout,
    )


def run_play(config: PlayConfig, conversation: Any) -> None:
    """Check the models ``config`` talks to, load its workspace, and run the play app.

    Raises:
        CrmtuiError: A missing key or a dead server, a missing org, an unknown idx...: one
            ``Error:`` line at the command line, before the app starts.
    """
    from crmtui.factory import build_play_app, run_app

    conversation.check()
    agent = config.agent
    if agent is not None:
        from crmtui.agent.preflight import check_agent_settings

        # the agent model's key and server: one Error: line, naming play's own flags
        check_agent_settings(agent, flags=("--agent-model", "--agent-api-base"))
    elif conversation.interactive and config.channel is None:
        from crmtui.agent.preflight import check_user_model

        check_user_model(conversation)  # a missing key or a dead server: one Error: line
    from crmtui.org.sample import sample_ready

    workspace = None
    explicit = (config.tasks, config.org, config.task, config.idx)
    if config.force or any(value is not None for value in explicit) or sample_ready():
        from crmtui.play.workspace import load_workspace

        # Explicit choices are checked here, so a mistake (a missing org, an unknown idx) is
        # one Error: line at the command line. So is the built sample (a fraction of a
        # second to open): the picker is then the first screen. Only the first use, which
        # builds the sample, shows the loading screen and its progress bar.
        workspace = load_workspace(config)
    run_app(build_play_app(config, workspace=workspace))


def play_plainly(args: list[str]) -> bool:
    """Run ``crmtui play ARGS`` without click when :func:`read_play_args` reads ``ARGS``.

    Returns:
        False (nothing done) when click has to read them.
    """
    plain = read_play_args(args)
    if plain is None:
        return False
    from crmtui.sanitise import install_rich_guard_on_import
    from crmtui.startup import pause_collector

    install_rich_guard_on_import()  # as the click group does for every command
    # Until the picker's first frame (the app resumes it): see crmtui.startup.
    pause_collector()
    config, conversation = plain_play_config(**plain)
    run_play(config, conversation)
    return True
