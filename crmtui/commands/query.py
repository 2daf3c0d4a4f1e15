"""``crmtui query``: run one SOQL or SOSL query against an org and print the result."""

from __future__ import annotations

import click

from crmtui.commands.options import POSITIVE_SECONDS
from crmtui.commands.query_run import FORMATS, run_query


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
@click.option(
    "--timeout",
    type=POSITIVE_SECONDS,
    default=None,
    metavar="S",
    help="Stop the query after S seconds (QUERY_TIMEOUT). Default: 30. Ctrl-C also stops it.",
)
@click.argument("text", metavar="QUERY")
def query(
    org_spec: str | None, today: str | None, fmt: str, timeout: float | None, text: str
) -> None:
    """Run a SOQL (SELECT ...) or SOSL (FIND {...}) QUERY against an org.

    Pass - as QUERY to read it from standard input (UTF-8). A query the engine rejects prints
    one line starting with its Salesforce error code (e.g. MALFORMED_QUERY: ...) on stderr
    and exits with status 1; so does a query past its time limit (QUERY_TIMEOUT) or with a
    result of more than 2,000,000 values (OPERATION_TOO_LARGE).

    \b
    Examples:
      crmtui query "SELECT Id, Subject FROM Case WHERE Status = 'New' LIMIT 5"
      crmtui query --format json "FIND {blender} RETURNING Product2(Id, Name)"
      echo "SELECT COUNT() FROM Account" | crmtui query --org crmarena_data.db -
    """
    # The work is click-free (crmtui.commands.query_run): crmtui.cli.main runs it without
    # click for the command lines it can read alone.
    run_query(org_spec, today, fmt, timeout, text)
