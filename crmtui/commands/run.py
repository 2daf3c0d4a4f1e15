"""``crmtui run``: an LLM agent over many instances, headless, resumable."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from crmtui.commands.options import POSITIVE_SECONDS

F = TypeVar("F", bound=Callable[..., Any])


def agent_options(func: F) -> F:
    """Options shared by ``run`` and ``watch``: model, strategy, sources, limits."""
    options = [
        click.option(
            "--model",
            required=True,
            metavar="M",
            help="Any litellm model name, e.g. openai/gpt-4o or openai/local with --api-base. "
            "API keys come from the provider's environment variable (OPENAI_API_KEY, ...).",
        ),
        click.option(
            "--strategy",
            type=click.Choice(["react", "act", "tool_call"]),
            default="react",
            show_default=True,
            help="react: thought + <execute>/<respond>; act: no thoughts; tool_call: native "
            "function calling.",
        ),
        click.option(
            "--toolset",
            type=click.Choice(["query", "upstream"]),
            default="query",
            show_default=True,
            help="For tool_call: free SOQL/SOSL tools, or upstream's helper tools.",
        ),
        click.option(
            "--tasks",
            default=None,
            metavar="SRC",
            help="Task source: 'sample' (default), a JSON/JSONL/Parquet file, or "
            "hf:Salesforce/CRMArena.",
        ),
        click.option(
            "--org",
            default=None,
            metavar="PATH|NAME",
            help="Org database file or built/imported org name (default: the sample org).",
        ),
        click.option(
            "--task",
            default=None,
            metavar="TYPE",
            help="Only instances of this task type (code or abbreviation, e.g. HTU).",
        ),
        click.option(
            "--api-base",
            default=None,
            metavar="URL",
            help="Base URL of an OpenAI-compatible server (e.g. http://127.0.0.1:8000/v1).",
        ),
        click.option(
            "--max-turns",
            type=int,
            default=20,
            show_default=True,
            help="Model calls per instance (invalid replies count).",
        ),
        click.option(
            "--time-limit",
            type=POSITIVE_SECONDS,
            default=600.0,
            show_default=True,
            metavar="S",
            help="Wall-clock limit per instance, in seconds.",
        ),
        click.option(
            "--timeout",
            type=POSITIVE_SECONDS,
            default=60.0,
            show_default=True,
            metavar="S",
            help="Seconds per model call attempt (calls are retried on 429/5xx/timeouts).",
        ),
        click.option(
            "--aided", is_flag=True, help="Add metadata.optional (upstream's aided mode)."
        ),
        click.option(
            "--llm-extract",
            is_flag=True,
            help="Score like upstream's current evaluator: an LLM extracts the answers.",
        ),
        click.option(
            "--extract-model",
            default=None,
            metavar="M",
            help="Model for --llm-extract (default: --model).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


@click.command("run")
@agent_options
@click.option("--idx", "idxs", type=int, multiple=True, help="Only this idx (repeatable).")
@click.option("--limit", type=int, default=None, help="At most N of the selected instances.")
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
    help="Output folder: recordings/ and the results_*.json file.",
)
def run(
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
    idxs: tuple[int, ...],
    limit: int | None,
    concurrency: int,
    out: Path,
) -> None:
    """Run an LLM agent over many instances, headless, with every attempt recorded.

    Writes one recording per instance under OUT/recordings and upstream's results file
    OUT/results_<model>_<strategy>_<task>.json (rewritten after every instance). Run the
    same command again to resume: instances with a finished recording are skipped. Ctrl-C
    stops cleanly (exit status 130): no new instance starts and the running ones end after
    their current step; a second Ctrl-C skips the summary (recordings still end cleanly).

    \b
    Examples:
      OPENAI_API_KEY=... crmtui run --model openai/gpt-4o-mini --task HTU -k 4
      crmtui run --model openai/local --api-base http://127.0.0.1:8000/v1 --limit 5
    """
    from crmtui.agent.batch import BatchConfig, run_batch
    from crmtui.commands.run_display import BatchDisplay, print_summary

    config = BatchConfig(
        model=model,
        strategy=strategy,
        toolset=toolset,
        tasks=tasks,
        org=org,
        task=task,
        idxs=idxs,
        limit=limit,
        concurrency=concurrency,
        out=out,
        api_base=api_base,
        max_turns=max_turns,
        time_limit_s=time_limit,
        aided=aided,
        llm_extract=llm_extract,
        extract_model=extract_model,
        timeout=timeout,
    )
    stop = threading.Event()
    with BatchDisplay(stop) as display:
        report = run_batch(config, stop=stop, on_start=display.start, on_outcome=display.advance)
    print_summary(report)
    if report.stopped:
        # Stopped by Ctrl-C: the conventional exit status, so scripts can tell.
        raise click.exceptions.Exit(130)
