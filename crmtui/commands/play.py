"""``crmtui play``: solve instances yourself in the TUI, with every action recorded."""

from __future__ import annotations

from pathlib import Path

import click

from crmtui.commands.options import POSITIVE_SECONDS
from crmtui.config import PlayConfig, default_annotator


@click.command("play")
@click.option(
    "--tasks",
    "tasks",
    default=None,
    metavar="SRC",
    help="Task source: 'sample' (default), a JSON/JSONL/Parquet file, or hf:Salesforce/CRMArena.",
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
    default=Path("recordings"),
    show_default=True,
    help="Where recordings are written.",
)
@click.option("--aided", is_flag=True, help="Show metadata.optional (upstream's aided mode).")
@click.option(
    "--idle",
    "idle",
    type=POSITIVE_SECONDS,
    default=60.0,
    show_default=True,
    help="Seconds without input recorded as idle time.",
)
def play(
    tasks: str | None,
    org: str | None,
    annotator: str | None,
    task: str | None,
    idx: int | None,
    recordings: Path,
    aided: bool,
    idle: float,
) -> None:
    """Open the play screen: pick an instance, browse the org, answer; all recorded."""
    from crmtui.factory import build_play_app

    config = PlayConfig(
        tasks=tasks,
        org=org,
        annotator=annotator or default_annotator(),
        task=task,
        idx=idx,
        recordings=recordings,
        aided=aided,
        idle_threshold=idle,
    )
    workspace = None
    if any(value is not None for value in (tasks, org, task, idx)):
        from crmtui.play.workspace import load_workspace

        # Explicit choices are checked here, so a mistake (a missing org, an unknown idx) is
        # one Error: line at the command line; the bare command shows the loading screen,
        # which builds the sample on first use with a progress bar.
        workspace = load_workspace(config)
    build_play_app(config, workspace=workspace).run()
