"""``crmtui run``: an LLM agent over many instances, headless, resumable."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

import click

from crmtui.commands.agent_options import agent_options, settings_kwargs
from crmtui.commands.dialogue_options import dialogue_options, dialogue_settings


@click.command("run")
@agent_options
@dialogue_options
@click.option("--idx", "idxs", type=int, multiple=True, help="Only this idx (repeatable).")
@click.option(
    "--limit",
    type=click.IntRange(min=0),
    default=None,
    help="At most N instances, spread over the task types (the idx taken are printed).",
)
@click.option(
    "--concurrency",
    "-k",
    type=int,
    default=1,
    show_default=True,
    help="Instances in flight at once.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("runs"),
    show_default=True,
    help="Output folder: recordings/, results_*.json and settings_*.json (one run at a time).",
)
@click.option(
    "--fresh",
    is_flag=True,
    help="Start a new results file even if OUT holds one made with other settings (the old "
    "one is kept as *.replaced-<time>).",
)
@click.option(
    "--max-initial-errors",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    metavar="K",
    help="Stop when the first K instances all end in model errors (0: never).",
)
def run(
    idxs: tuple[int, ...],
    limit: int | None,
    concurrency: int,
    out: Path,
    fresh: bool,
    max_initial_errors: int,
    **options: Any,
) -> None:
    """Run an LLM agent over many instances, headless, with every attempt recorded.

    Before the first instance the model's credentials, --api-base and the tasks (against
    the org) are checked; a mistake is one Error: line and exit status 2. Writes one
    recording per instance under OUT/recordings and upstream's results file
    OUT/results_<model>_<strategy>_<task>.json (merged after every instance) with every
    setting in OUT/settings_*.json. Run the same command again to resume: finished
    instances are skipped; other settings are refused unless --fresh. Ctrl-C stops at once
    (exit status 130): calls in flight are abandoned, every file stays consistent.

    \b
    Exit status: 0 all rows are real outcomes; 2 configuration error; 3 some rows are model
    or harness errors; 130 interrupted.

    \b
    Examples:
      OPENAI_API_KEY=... crmtui run --model openai/gpt-4o-mini --task HTU -k 4
      crmtui run --model openai/local --api-base http://127.0.0.1:8000/v1 --limit 9
      crmtui run --model openai/gpt-4o-2024-08-06 --preset head --strategy tool_call
    """
    from crmtui import exit_codes
    from crmtui.agent.batch import BatchConfig, run_batch
    from crmtui.commands.run_display import BatchDisplay, print_summary

    dialogue = dialogue_settings(options, options["tasks"])
    config = BatchConfig(
        **settings_kwargs(options),
        dialogue=dialogue,
        idxs=idxs,
        limit=limit,
        concurrency=concurrency,
        out=out,
        fresh=fresh,
        max_initial_errors=max_initial_errors,
    )
    stop = threading.Event()
    with BatchDisplay(stop, config) as display:
        report = run_batch(config, stop=stop, on_start=display.start, on_outcome=display.advance)
    print_summary(report)
    # SystemExit rather than click's Exit: it leaves the same way however crmtui was started
    # (the console script, ``python -m crmtui.cli``, or main() in tests).
    if report.stopped:
        # Stopped by Ctrl-C: the conventional exit status, so scripts can tell.
        sys.exit(exit_codes.INTERRUPTED)
    if report.errors:
        sys.exit(exit_codes.INSTANCE_ERRORS)
