"""``crmtui query``: run one SOQL or SOSL query against an org and print the result."""

from __future__ import annotations

import contextlib
import datetime as dt
import signal
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import click

from crmtui import exit_codes
from crmtui.commands.options import POSITIVE_SECONDS
from crmtui.commands.query_output import OutputDeadline, OutputTimeout, write_json
from crmtui.sanitise import printable

FORMATS = ("table", "json", "observation")


def _single_line(text: str) -> str:
    return " ".join(text.split())


def table_caption(result: Any, shown: int) -> str:
    """The line under a result's table: rows, totalSize when it differs, time, rows shown."""
    count = len(result.records)
    noun = "row" if count == 1 else "rows"
    caption = f"{count:,} {noun}" if count >= 10_000 else f"{count} {noun}"
    if result.total_size != count:
        caption += f" (totalSize {result.total_size})"
    caption += f" in {result.elapsed_ms:.1f} ms"
    if shown < count:
        caption += f"; the first {shown:,} shown (--format json prints them all)"
    return caption


@contextlib.contextmanager
def _ctrl_c_cancels(cancel: threading.Event) -> Iterator[None]:
    """While the query runs, Ctrl-C sets ``cancel`` (the engine stops within milliseconds).

    A KeyboardInterrupt raised inside SQLite's progress callback would be swallowed by
    sqlite3 and read as a timeout; a handler that only sets the event cannot be lost.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: cancel.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


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
    from crmtui.errors import ConfigError
    from crmtui.org.sample import open_org_or_sample
    from crmtui.query import QueryBudget, QueryError, run

    if text == "-":
        data = sys.stdin.buffer.read()
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ConfigError(
                f"standard input is not UTF-8 text (byte 0x{data[exc.start]:02x} at "
                f"offset {exc.start})"
            ) from None
    day: dt.date | None = None
    if today is not None:
        try:
            day = dt.date.fromisoformat(today)
        except ValueError:
            raise ConfigError(f"--today must be a date like 2024-11-15, not {today!r}") from None
    org = open_org_or_sample(org_spec)
    cancel = threading.Event()
    budget = QueryBudget(cancel=cancel) if timeout is None else QueryBudget(timeout, cancel=cancel)
    # One budget for the query and the printing of its result (encoding included).
    started = time.monotonic()
    deadline = OutputDeadline(
        None if budget.timeout_s is None else started + budget.timeout_s, budget.timeout_s
    )
    try:
        with _ctrl_c_cancels(cancel):
            result = run(org, text, today=day, budget=budget)
    except QueryError as exc:
        if cancel.is_set():
            raise KeyboardInterrupt from None  # Ctrl-C: "Interrupted.", status 130
        # The message may quote the query (the user's text, or a task's): shown escaped.
        click.echo(printable(_single_line(str(exc))), err=True)
        # SystemExit rather than ctx.exit: it ends `crmtui.cli.main` with status 1 too.
        sys.exit(exit_codes.ERROR)
    try:
        _print(result, fmt, deadline)
    except OutputTimeout as exc:
        sys.stdout.flush()
        click.echo("", nl=True)  # end a line cut short
        click.echo(str(exc), err=True)
        sys.exit(exit_codes.ERROR)


def _print(result: Any, fmt: str, deadline: OutputDeadline) -> None:
    """Print ``result`` in ``fmt`` before ``deadline`` (:class:`OutputTimeout` after it)."""
    from crmtui.query import format_observation

    deadline.check("nothing (the query used the whole budget)")
    if fmt == "json":
        write_json(result.to_salesforce(), sys.stdout, deadline)
    elif fmt == "observation":
        text = format_observation(result)  # a repr: control characters come out escaped
        deadline.check("nothing")
        click.echo(text)
    else:
        # Drawn without Rich (~60 ms to import: more than a one-line query takes in all).
        from crmtui.commands.plain_table import print_table
        from crmtui.commands.query_output import TABLE_ROWS, table_rows

        shown = table_rows(result, TABLE_ROWS)
        # A table without columns (SELECT COUNT()) prints nothing but its footer line.
        if result.columns:
            print_table([printable(c) for c in result.columns], shown)
        click.echo(table_caption(result, len(shown)))
