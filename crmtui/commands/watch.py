"""``crmtui watch``: watch an LLM agent solve an instance live, in the play layout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from crmtui.commands.agent_options import agent_options, settings_kwargs
from crmtui.commands.options import NON_NEGATIVE_SECONDS


@click.command("watch")
@agent_options
@click.option("--idx", type=int, default=None, help="Watch this instance (default: the first).")
@click.option(
    "--recordings",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the recording is written (default: CRMTUI_HOME/recordings).",
)
@click.option(
    "--delay",
    type=NON_NEGATIVE_SECONDS,
    default=0.0,
    show_default=True,
    metavar="S",
    help="Seconds between steps (F10/F11 change it while watching).",
)
@click.option("--paused", is_flag=True, help="Start paused: F8 (s) steps, F7 (space) runs.")
@click.option(
    "--no-stream",
    is_flag=True,
    help="Show each reply when complete, not streamed (streaming also turns itself off when "
    "a server answers a streamed request with nothing).",
)
def watch(
    idx: int | None,
    recordings: Path | None,
    delay: float,
    paused: bool,
    no_stream: bool,
    **options: Any,
) -> None:
    """Watch an LLM agent solve an instance in the play layout, recorded like a batch run.

    The transcript streams the model's thoughts and actions, each query's rows appear in the
    console table, the answer fills the answer box and the reward shows at the end.
    Controls: F7/space pause after the current step or resume, F8/s single step, F9/x stop
    (F9/n: next instance once ended), F10/F11 slower/faster, Ctrl+Q quit.

    \b
    Examples:
      OPENAI_API_KEY=... crmtui watch --model openai/gpt-4o --task BRI
      crmtui watch --model openai/local --api-base http://127.0.0.1:8000/v1 --idx 3 --paused
    """
    from crmtui.agent.preflight import (
        check_agent_settings,
        check_scoring_models,
        check_toolset_fits,
    )
    from crmtui.agent.selection import select_types
    from crmtui.agent.watch_config import WatchConfig
    from crmtui.factory import build_watch_app, run_app
    from crmtui.org.task_match import load_sources
    from crmtui.paths import recordings_dir
    from crmtui.play.workspace import Workspace

    config = WatchConfig(
        **settings_kwargs(options),
        idx=idx,
        recordings=recordings if recordings is not None else recordings_dir(),
        delay=delay,
        paused=paused,
        stream=not no_stream,
    )
    config.check()
    config.strategy_object()  # a bad strategy/toolset fails here, before the TUI starts
    check_agent_settings(config)  # a missing key or a dead --api-base: one Error: line
    # Load (and check) the org, tasks and idx here, so that a mistake is one Error: line at
    # the command line rather than a notice inside the TUI.
    sources = load_sources(config.org, config.tasks, force=config.force)
    chosen = select_types(sources.tasks, config.task_types)
    if idx is not None:
        chosen.get(idx)  # raises TaskNotFound naming the idx
    watched = [chosen.get(idx)] if idx is not None else list(chosen)
    check_scoring_models(config, watched)
    check_toolset_fits(config, watched)
    workspace = Workspace(org=sources.org, tasks=sources.tasks, tasks_label=sources.tasks_label)
    run_app(build_watch_app(config, workspace=workspace))
