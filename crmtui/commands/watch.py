"""``crmtui watch``: watch an LLM agent solve an instance live, in the play layout."""

from __future__ import annotations

from pathlib import Path

import click

from crmtui.commands.options import NON_NEGATIVE_SECONDS
from crmtui.commands.run import agent_options


@click.command("watch")
@agent_options
@click.option("--idx", type=int, default=None, help="Watch this instance (default: the first).")
@click.option(
    "--recordings",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("recordings"),
    show_default=True,
    help="Where the recording is written.",
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
@click.option("--no-stream", is_flag=True, help="Show each reply when complete, not streamed.")
def watch(
    model: str,
    strategy: str,
    toolset: str,
    tasks: str | None,
    org: str | None,
    task: str | None,
    api_base: str | None,
    max_turns: int,
    time_limit: float,
    timeout: float,
    aided: bool,
    llm_extract: bool,
    extract_model: str | None,
    idx: int | None,
    recordings: Path,
    delay: float,
    paused: bool,
    no_stream: bool,
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
    from crmtui.agent.watch_config import WatchConfig
    from crmtui.factory import build_watch_app

    config = WatchConfig(
        model=model,
        strategy=strategy,
        toolset=toolset,
        tasks=tasks,
        org=org,
        task=task,
        idx=idx,
        recordings=recordings,
        api_base=api_base,
        max_turns=max_turns,
        time_limit_s=time_limit,
        timeout=timeout,
        aided=aided,
        llm_extract=llm_extract,
        extract_model=extract_model,
        delay=delay,
        paused=paused,
        stream=not no_stream,
    )
    config.check()
    config.strategy_object()  # a bad strategy/toolset fails here, before the TUI starts
    from crmtui.config import PlayConfig
    from crmtui.play.workspace import load_workspace

    # Load (and check) the org, tasks and idx here, so that a mistake is one Error: line at
    # the command line rather than a notice inside the TUI.
    workspace = load_workspace(
        PlayConfig(tasks=tasks, org=org, annotator=model, task=task, idx=idx)
    )
    build_watch_app(config, workspace=workspace).run()
