"""``crmtui report [DIR]``: accuracy, time, queries, tokens and cost per actor and task type."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
from click.core import ParameterSource

from crmtui.commands.options import figures_option, report_out_option
from crmtui.errors import ConfigError
from crmtui.review.report import report_folder
from crmtui.review.report_format import FORMATS, print_table, to_csv, to_json, to_markdown
from crmtui.sanitise import printable

if TYPE_CHECKING:
    from crmtui.review.figures import Figure


def emit(text: str, out: Path | None) -> None:
    """Print ``text``, or write it to ``out`` (one ``Error:`` line when that fails)."""
    if out is None:
        click.echo(text, nl=not text.endswith("\n"))
        return
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot write {out}: {exc.strerror}") from exc
    click.echo(f"Wrote {printable(str(out))}", err=True)


@click.command("report")
@click.argument("directory", required=False, default=None, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice((*FORMATS, "html")),
    default="table",
    show_default=True,
    help="table: rich tables; csv: one row per actor and task type; json: everything, "
    "including per-instance agreement; md: Markdown tables; html: one self-contained page "
    "with figures (accuracy with 95% intervals, paired differences, time, multi-turn) and "
    "the tables, opening offline.",
)
@report_out_option
@figures_option
@click.option(
    "--tui",
    is_flag=True,
    help="Open the report screen: the same tables in tabs, with accuracy bar charts per task type.",
)
@click.pass_context
def report(
    ctx: click.Context,
    directory: Path | None,
    fmt: str,
    out: Path | None,
    figures_dir: Path | None,
    tui: bool,
) -> None:
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
      crmtui report runs/ --format html --out report.html --figures figures/
      crmtui report runs/ --tui
    """
    if tui and ctx.get_parameter_source("fmt") is not ParameterSource.DEFAULT:
        raise click.UsageError("--tui shows the tables on screen; leave out --format")
    if figures_dir is not None and fmt != "html":
        raise click.UsageError("--figures needs --format html")
    if out is not None and fmt == "table":
        raise click.UsageError("--out needs --format csv, json, md or html")
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
    figures: list[Figure] = []
    if fmt == "html":
        from crmtui.review.report_html import report_html

        text, figures = report_html(result)
    else:
        text = {"csv": to_csv, "json": to_json, "md": to_markdown}[fmt](result)
    emit(text, out)
    if figures_dir is not None:
        from crmtui.review.report_html import write_figures

        written = write_figures(figures, figures_dir)
        where = printable(str(figures_dir))
        click.echo(f"Wrote {len(written)} figure file(s) to {where}", err=True)
    if fmt != "json":  # JSON lists skipped files itself; elsewhere say so on stderr
        for skipped in result.skipped:
            click.echo(
                f"Skipped {printable(str(skipped.path))}: {printable(skipped.reason)}", err=True
            )
