"""``crmtui play``: solve instances yourself in the TUI, with every action recorded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from crmtui.commands.dialogue_options import dialogue_options, dialogue_settings
from crmtui.commands.options import POSITIVE_SECONDS


@click.command("play")
@click.option(
    "--tasks",
    "tasks",
    default=None,
    metavar="SRC",
    help="Task source: a JSON/JSONL/Parquet file, hf:Salesforce/CRMArena or 'sample' "
    "(default: the org's own tasks, else the sample's).",
)
@click.option(
    "--org",
    "org",
    default=None,
    metavar="PATH|NAME",
    help="Org database file or the name of a built/imported org (default: the sample org).",
)
@click.option(
    "--annotator",
    default=None,
    help="Your name, recorded as the actor (default: $CRMTUI_ANNOTATOR or login).",
)
@click.option(
    "--task",
    "task",
    default=None,
    metavar="TYPE",
    help="Only instances of this task type (code or abbreviation, e.g. HTU).",
)
@click.option("--idx", type=int, default=None, help="Open this instance directly.")
@click.option(
    "--recordings",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where recordings are written (default: CRMTUI_HOME/recordings, wherever crmtui "
    "is started, so progress and resume follow the annotator).",
)
@click.option("--aided", is_flag=True, help="Show metadata.optional (upstream's aided mode).")
@click.option(
    "--force",
    is_flag=True,
    help="Play tasks on an org that lacks most of the records they mention.",
)
@click.option(
    "--idle",
    "idle",
    type=POSITIVE_SECONDS,
    default=60.0,
    show_default=True,
    help="Seconds without input recorded as idle time.",
)
@click.option(
    "--study",
    "study",
    default=None,
    metavar="NAME",
    help="Annotate in this study (with --annotator): only your assigned instances, in "
    "order, practice first; tasks, org, recordings and blinding come from the study.",
)
@dialogue_options
@click.option(
    "--as-user",
    is_flag=True,
    help="Play the user instead: you see the persona and the hidden instruction (never the "
    "gold) and talk to a model agent (--agent-model); F9 ends the conversation (###STOP###).",
)
@click.option(
    "--agent-model",
    default=None,
    metavar="M",
    help="With --as-user: the agent's litellm model (its key from the provider's variable).",
)
@click.option(
    "--agent-strategy",
    type=click.Choice(["react", "act"]),
    default="react",
    show_default=True,
    help="With --as-user: the agent's strategy.",
)
@click.option(
    "--agent-api-base",
    default=None,
    metavar="URL",
    help="With --as-user: the agent model's OpenAI-compatible server.",
)
@click.option(
    "--channel",
    default=None,
    metavar="NAME",
    help="Talk to a person in another crmtui instead of a model: one runs --interactive "
    "--channel NAME (the agent), the other --as-user --channel NAME (the user), both on the "
    "same instance and recordings folder.",
)
@click.option(
    "--partner-timeout",
    type=POSITIVE_SECONDS,
    default=30.0,
    show_default=True,
    help="With --channel: seconds the other person's crmtui may be gone (closed, crashed) "
    "before the conversation ends as abandoned.",
)
@click.pass_context
def play(
    ctx: click.Context,
    tasks: str | None,
    org: str | None,
    annotator: str | None,
    task: str | None,
    idx: int | None,
    recordings: Path | None,
    aided: bool,
    force: bool,
    idle: float,
    study: str | None,
    as_user: bool,
    agent_model: str | None,
    agent_strategy: str,
    agent_api_base: str | None,
    channel: str | None,
    partner_timeout: float,
    **dialogue: Any,
) -> None:
    """Open the play screen: pick an instance, browse the org, answer; all recorded.

    With --interactive (CRMArena-Pro's multi-turn mode) you play the agent: a simulated user
    (--user-model) asks, in a chat region beside the record browser and console; your
    messages go to it, and your last one before it ends the conversation is scored.

    With --as-user you play the user: a model agent (--agent-model) works the org while you
    type; its steps show live beside the conversation.

    With --channel NAME the other side is a person: two people, each in their own crmtui,
    open the same instance, one with --interactive (the agent), one with --as-user (the
    user); both recordings carry one dialogue id.

    \b
    Examples:
      crmtui play --org sample-b2b --interactive --user-model openai/gpt-4o
      crmtui play --org sample-b2b --as-user --agent-model openai/gpt-4o
      crmtui play --org sample-b2b --interactive --user-model openai/local \\
          --user-api-base http://127.0.0.1:8000/v1
      crmtui play --org sample-b2b --idx 9 --interactive --channel pair1 --annotator ann
      crmtui play --org sample-b2b --idx 9 --as-user --channel pair1 --annotator ben
    """
    from crmtui.startup import pause_collector

    # Until the picker's first frame (the app resumes it): see crmtui.startup.
    pause_collector()
    from crmtui.commands.play_run import play_config, run_play

    conversation = dialogue_settings(dialogue, tasks)
    agent = None
    if channel is not None:
        conversation = _channel_settings(channel, as_user, agent_model, conversation)
    elif as_user:
        agent = _agent_settings(agent_model, agent_strategy, agent_api_base, conversation)
    elif agent_model is not None:
        raise click.UsageError("--agent-model is for --as-user (you play the user)")
    if study is not None:
        if channel is not None:
            raise click.UsageError("--channel is not for --study (a study's seats are its own)")
        _play_study(ctx, study, annotator)
        return

    config = play_config(
        conversation,
        tasks=tasks,
        org=org,
        annotator=annotator,
        task=task,
        idx=idx,
        recordings=recordings,
        aided=aided,
        force=force,
        idle=idle,
        agent=agent,
        channel=channel,
        as_user=as_user,
        partner_timeout=partner_timeout,
    )
    run_play(config, conversation)


def _play_study(ctx: click.Context, study: str, annotator: str | None) -> None:
    """``play --study``: the study decides everything but who is playing."""
    from click.core import ParameterSource

    from crmtui.factory import build_play_app, run_app
    from crmtui.study.launch import open_seat

    if annotator is None:
        raise click.UsageError("--study needs --annotator NAME (one of the study's annotators)")
    clashing = [
        f"--{name.replace('_', '-')}"
        for name in ("tasks", "org", "task", "idx", "recordings", "aided", "idle")
        if ctx.get_parameter_source(name) is not ParameterSource.DEFAULT
    ]
    if clashing:
        raise click.UsageError(f"--study sets {', '.join(clashing)} itself; leave it out")
    seat = open_seat(study, annotator)
    from crmtui.study.launch import check_models

    check_models(seat.study, [annotator])  # a multi-turn study's models: one Error: line
    run_app(build_play_app(seat.config, workspace=seat.workspace, plan=seat.plan))


def _channel_settings(
    channel: str, as_user: bool, agent_model: str | None, conversation: Any
) -> Any:
    """``--channel NAME``: the other side is a person (checked here: one Error: line)."""
    from crmtui.play.channel import ChannelError, check_channel_name

    try:
        check_channel_name(channel)
    except ChannelError as exc:
        raise click.BadParameter(str(exc), param_hint="--channel") from None
    if agent_model is not None:
        raise click.UsageError("--channel and --agent-model both name the agent; choose one")
    if not as_user and not conversation.interactive:
        raise click.UsageError(
            "--channel needs --interactive (you play the agent) or --as-user (you play the user)"
        )
    return conversation.replaced(interactive=True, user_kind="human")


def _agent_settings(
    model: str | None, strategy: str, api_base: str | None, conversation: Any
) -> Any:
    """The model agent of ``--as-user`` (crmtui's preset; the person is its user)."""
    from crmtui.agent.settings import AgentSettings

    if not model:
        raise click.UsageError("--as-user needs --agent-model M (the agent you talk to)")
    settings = AgentSettings(
        model=model,
        strategy=strategy,
        api_base=api_base,
        dialogue=conversation.replaced(interactive=True, user_kind="human"),
    )
    settings.check()
    return settings
