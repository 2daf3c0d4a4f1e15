"""``crmtui report [DIR]``: accuracy, time, queries, tokens and cost per actor and task type."""

from __future__ import annotations

from pathlib import Path

import click
from click.core import ParameterSource

from crmtui.review.report import report_folder
from crmtui.review.report_format import FORMATS, print_table, to_csv, to_json, to_markdown
from crmtui.sanitise import printable


@click.command("report")
@click.argument("directory", required=False, default=None, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="table",
    show_default=True,
    help="table: rich tables; csv: one row per actor and task type; json: everything, "
    "including per-instance agreement; md: Markdown tables.",
)
@click.option(
    "--tui",
    is_flag=True,
    help="Open the report screen: the same tables in tabs, with accuracy bar charts per task type.",
)
@click.pass_context
def report(ctx: click.Context, directory: Path | None, fmt: str, tui: bool) -> None:
    """Summarize a folder of recordings: one row per actor (each human annotator, each
    model + strategy), one column per task type in leaderboard order (NCR HTU TCU NED PVI
    KQA TII MTA BRI, then CRMArena-Pro's SAU LRO SCU CRC WSR SIM QAP LQU APR ICI PCI IOD
    CCK) plus Overall. With CRMArena-Pro sessions a second table gives accuracy per
    CRMArena-Pro skill; multi-turn dialogues get their own tables (who played whom, by
    pairing).

    DIRECTORY (default CRMTUI_HOME/recordings, where play records) is searched recursively
    for .jsonl recordings. Each is verified; tampered or unreadable files are skipped and
    listed. A person's first submission of an instance counts (later ones are flagged); a
    model's latest finished, submitted session counts. Cells give accuracy (KQA: mean F1)
    with the instance count (KQA, SIM: mean F1; privacy rejection: the share judged refused);
    Overall is the unweighted mean of the task columns with data.
    Further tables: median active time, median queries, tokens and cost per instance, and
    human-versus-model agreement per shared instance. With --tui the tables open in the
    report screen (Tab/[ ]/1-9: tables, b: charts, q: quit) with bar charts per task type.

    \b
    Examples:
      crmtui report
      crmtui report runs/ --format md > results.md
      crmtui report runs/ --format csv > results.csv
      crmtui report runs/ --tui
    """
    if tui and ctx.get_parameter_source("fmt") is not ParameterSource.DEFAULT:
        raise click.UsageError("--tui shows the tables on screen; leave out --format")
    if directory is None:
        from crmtui.paths import recordings_dir

        directory = recordings_dir()
    result = report_folder(directory)
    if tui:
        from crmtui.factory import build_report_app, run_app

        run_app(build_report_app(result))
        return
    if fmt == "table":
        from rich.console import Console

        print_table(result, Console())
        return
    text = {"csv": to_csv, "json": to_json, "md": to_markdown}[fmt](result)
    click.echo(text, nl=not text.endswith("\n"))
    if fmt != "json":  # JSON lists skipped files itself; elsewhere say so on stderr
        for skipped in result.skipped:
            click.echo(
                f"Skipped {printable(str(skipped.path))}: {printable(skipped.reason)}", err=True
            )
