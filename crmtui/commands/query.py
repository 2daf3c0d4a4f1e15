"""``crmtui query``: run one SOQL or SOSL query against an org and print the result."""

from __future__ import annotations

import datetime as dt
import json
import sys
from typing import Any

import click

FORMATS = ("table", "json", "observation")


def _single_line(text: str) -> str:
    return " ".join(text.split())


def render_table(result: Any) -> Any:
    """A rich Table of the result's flattened rows with a row-count and timing caption."""
    from rich.table import Table

    rows = list(result.flat_rows())
    count = len(result.records)
    noun = "row" if count == 1 else "rows"
    caption = f"{count} {noun}"
    if result.total_size != count:
        caption += f" (totalSize {result.total_size})"
    caption += f" in {result.elapsed_ms:.1f} ms"
    table = Table(caption=caption, caption_justify="left", show_lines=False)
    columns = list(result.columns)
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        cells = row.values() if isinstance(row, dict) else row
        table.add_row(*("" if v is None else str(v) for v in cells))
    return table


@click.command("query")
@click.option(
    "--org",
    "org_spec",
    metavar="PATH_OR_NAME",
    default=None,
    help="Org to query: an SQLite file (a crmtui org or upstream's raw crmarena_data.db, "
    "opened read-only) or the name of a built/imported org. Default: the sample org.",
)
@click.option(
    "--today",
    metavar="YYYY-MM-DD",
    default=None,
    help="The date TODAY, LAST_N_DAYS:n and friends are relative to. Default: the real date.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="table",
    show_default=True,
    help="table: flattened columns with a row count and timing; json: the Salesforce REST "
    "response; observation: the text an upstream agent would see.",
)
@click.argument("text", metavar="QUERY")
def query(org_spec: str | None, today: str | None, fmt: str, text: str) -> None:
    """Run a SOQL (SELECT ...) or SOSL (FIND {...}) QUERY against an org.

    Pass - as QUERY to read it from standard input. A query the engine rejects prints one
    line starting with its Salesforce error code (e.g. MALFORMED_QUERY: ...) on stderr and
    exits with status 1.

    \b
    Examples:
      crmtui query "SELECT Id, Subject FROM Case WHERE Status = 'New' LIMIT 5"
      crmtui query --format json "FIND {blender} RETURNING Product2(Id, Name)"
      echo "SELECT COUNT() FROM Account" | crmtui query --org crmarena_data.db -
    """
    from crmtui.errors import ConfigError
    from crmtui.org.sample import open_org_or_sample
    from crmtui.query import QueryError, format_observation, run

    if text == "-":
        text = sys.stdin.read()
    day: dt.date | None = None
    if today is not None:
        try:
            day = dt.date.fromisoformat(today)
        except ValueError:
            raise ConfigError(f"--today must be a date like 2024-11-15, not {today!r}") from None
    org = open_org_or_sample(org_spec)
    try:
        result = run(org, text, today=day)
    except QueryError as exc:
        click.echo(_single_line(str(exc)), err=True)
        # SystemExit rather than ctx.exit: it ends `crmtui.cli.main` with status 1 too.
        sys.exit(1)
    if fmt == "json":
        click.echo(json.dumps(result.to_salesforce(), indent=2, ensure_ascii=False))
    elif fmt == "observation":
        click.echo(format_observation(result))
    else:
        from rich.console import Console

        console = Console(file=sys.stdout)
        table = render_table(result)
        # The footer goes on its own line: as a caption it would wrap under a narrow table;
        # and a table without columns (SELECT COUNT()) prints nothing at all.
        footer, table.caption = table.caption, None
        if table.columns:
            console.print(table)
        console.print(footer)
