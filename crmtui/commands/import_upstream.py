"""``crmtui import-upstream``: an upstream results file as crmtui recordings."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("import-upstream")
@click.argument("results", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Recordings folder (one recording per results row).",
)
@click.option(
    "--org", "spec", default=None, metavar="PATH|NAME", help="The org the run used (a local run)."
)
@click.option(
    "--tasks", "tasks_source", default=None, metavar="SRC", help="The task source the run used."
)
@click.option(
    "--request-log",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Request log of a `crmtui upstream run`: gives the steps their times.",
)
@click.option(
    "--model-log",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Model-call log of that run (OUT/.crmtui-hook/hook.jsonl): times the model calls too.",
)
@click.option(
    "--live/--local",
    default=None,
    help="The run used a live Salesforce org (default: live unless --org is given).",
)
@click.option("--model", default=None, help="Actor id (default: from the file name).")
@click.option("--strategy", default=None, help="Upstream strategy (default: from the file name).")
@click.option(
    "--max-user-turns",
    type=click.IntRange(min=1),
    default=None,
    help="An interactive run's --max_user_turns (default: upstream's 10, or more where a "
    "row shows more replies).",
)
def import_upstream(
    results: Path,
    out: Path,
    spec: str | None,
    tasks_source: str | None,
    request_log: Path | None,
    model_log: Path | None,
    live: bool | None,
    model: str | None,
    strategy: str | None,
    max_user_turns: int | None,
) -> None:
    """Turn an upstream results file (paper-era or HEAD) into recordings.

    Each row becomes a verified recording: the model's calls, each query with the
    observation it saw, the answer, and upstream's reward with crmtui's own score beside it.
    A row of an interactive run (HEAD's --interactive) becomes a dialogue recording: the
    simulated user's messages and the agent's, as crmtui's own multi-turn runs record them.
    """
    from crmtui.org.sample import open_org_or_sample, sample_tasks_path
    from crmtui.upstream import import_results

    org = tasks = None
    if spec is not None:
        org = open_org_or_sample(spec)
    if tasks_source is not None:
        from crmtui.data.loaders import load_tasks

        tasks = load_tasks(tasks_source, sample_tasks=sample_tasks_path)
    report = import_results(
        results,
        out,
        org=org,
        tasks=tasks,
        tasks_source=tasks_source,
        request_log=request_log,
        model_log=model_log,
        live=live,
        model=model,
        strategy=strategy,
        dialogue=None if max_user_turns is None else {"max_user_turns": max_user_turns},
    )
    click.echo(f"Imported {len(report.written)} recording(s) into {out}")
    if report.skipped:
        click.echo(f"Skipped {len(report.skipped)} already imported")
    for problem in report.problems:
        click.echo(f"Warning: not imported: {problem}", err=True)
