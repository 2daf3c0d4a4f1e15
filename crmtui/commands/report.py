"""``crmtui report [DIR]``: accuracy, time, queries, tokens and cost per actor and task type."""

from __future__ import annotations

from pathlib import Path

import click

from crmtui.scoring.report import report_folder
from crmtui.scoring.report_format import FORMATS, print_table, to_csv, to_json, to_markdown


@click.command("report")
@click.argument("directory", required=False, default="recordings", type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="table",
    show_default=True,
    help="table: rich tables; csv: one row per actor and task type; json: everything, "
    "including per-instance agreement; md: Markdown tables.",
)
def report(directory: Path, fmt: str) -> None:
    """Summarize a folder of recordings: one row per actor (each human annotator, each
    model + strategy), one column per task type in leaderboard order (NCR HTU TCU NED PVI
    KQA TII MTA BRI) plus Overall.

    DIRECTORY (default ./recordings) is searched recursively for .jsonl recordings. Each is
    verified; tampered or unreadable files are skipped and listed. Only the latest finished,
    submitted session per actor and instance counts. Cells give accuracy (KQA: mean F1)
    with the instance count; Overall is the unweighted mean of the task columns with data.
    Further tables: median active time, median queries, tokens and cost per instance, and
    human-versus-model agreement per shared instance.

    \b
    Examples:
      crmtui report
      crmtui report runs/ --format md > results.md
      crmtui report runs/ --format csv > results.csv
    """
    result = report_folder(directory)
    if fmt == "table":
        from rich.console import Console

        print_table(result, Console())
        return
    text = {"csv": to_csv, "json": to_json, "md": to_markdown}[fmt](result)
    click.echo(text, nl=not text.endswith("\n"))
    if fmt != "json":  # JSON lists skipped files itself; elsewhere say so on stderr
        for skipped in result.skipped:
            click.echo(f"Skipped {skipped.path}: {skipped.reason}", err=True)
