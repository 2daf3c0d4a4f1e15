"""``crmtui export DIR``: recordings as a Hugging Face dataset, flat JSONL or CSV results."""

from __future__ import annotations

from pathlib import Path

import click

from crmtui.review.export import FORMATS, export_folder
from crmtui.sanitise import printable


@click.command("export")
@click.argument("directory", required=False, default=None, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    required=True,
    help="hf: a Hugging Face dataset saved as Parquet (one row per session, events "
    "included); jsonl: the same rows as JSON lines; csv: per-instance results; sqlite: "
    "tables sessions, events, queries, answers, rewards (full-text search on queries and "
    "answers) for Datasette or sqlite-utils; inspect: a folder of Inspect AI eval logs, one "
    "per actor and setting, for `inspect view` and inspect_ai.analysis (needs "
    "pip install -e '.[inspect]').",
)
@click.option(
    "--out",
    "out",
    type=click.Path(path_type=Path),
    required=True,
    help="Output file. For hf: a .parquet file, or a folder that receives sessions.parquet; "
    "for inspect: a folder that receives the .eval logs.",
)
def export(directory: Path | None, fmt: str, out: Path) -> None:
    """Export every valid recording under DIRECTORY (searched recursively; default
    CRMTUI_HOME/recordings, where play records).

    Tampered or unreadable recordings are skipped and listed on stderr. Each row says
    whether the report counts the session (a person's first submission of the instance; a
    model's latest finished one). Load an hf export with
    datasets.load_dataset("parquet", data_files="OUT/sessions.parquet").

    \b
    Examples:
      crmtui export recordings --format hf --out baseline-dataset
      crmtui export recordings --format csv --out results.csv
      crmtui export recordings --format sqlite --out results.db
      crmtui export recordings --format inspect --out logs/ && inspect view --log-dir logs/
    """
    if directory is None:
        from crmtui.paths import recordings_dir

        directory = recordings_dir()
    result = export_folder(directory, fmt, out)
    for skipped in result.skipped:
        click.echo(f"Skipped {printable(str(skipped.path))}: {printable(skipped.reason)}", err=True)
    for path in result.files:
        click.echo(f"Wrote {printable(str(path))}")
    click.echo(f"Exported {result.sessions} session(s) to {result.path}")
