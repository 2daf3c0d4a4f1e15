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
) -> None:
    """Open the play screen: pick an instance, browse the org, answer; all recorded."""
    from crmtui.startup import pause_collector

    # Until the picker's first frame (the app resumes it): see crmtui.startup.
    pause_collector()
    from crmtui.factory import build_play_app, run_app
    from crmtui.paths import recordings_dir

    if study is not None:
        _play_study(ctx, study, annotator)
        return

    config = PlayConfig(
        tasks=tasks,
        org=org,
        annotator=annotator or default_annotator(),
        task=task,
        idx=idx,
        recordings=recordings if recordings is not None else recordings_dir(),
        aided=aided,
        idle_threshold=idle,
        force=force,
    )
    from crmtui.org.sample import sample_ready

    workspace = None
    if force or any(value is not None for value in (tasks, org, task, idx)) or sample_ready():
        from crmtui.play.workspace import load_workspace

        # Explicit choices are checked here, so a mistake (a missing org, an unknown idx) is
        # one Error: line at the command line. So is the built sample (a fraction of a
        # second to open): the picker is then the first screen. Only the first use, which
        # builds the sample, shows the loading screen and its progress bar.
        workspace = load_workspace(config)
    run_app(build_play_app(config, workspace=workspace))


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
    run_app(build_play_app(seat.config, workspace=seat.workspace, plan=seat.plan))
