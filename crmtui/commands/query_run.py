"""What ``crmtui query`` does, without click: read the query, run it, print the result.

The click command (:mod:`crmtui.commands.query`) calls :func:`run_query`; so does
:func:`crmtui.cli.main` directly for a command line :func:`read_args` understands, before
click and the other commands are imported (a one-line query's time is nearly all start-up:
docs/performance.md). Both paths print the same bytes and fail the same way.

A SOQL query on a crmtui org first looks for its plan in the plan store
(:mod:`crmtui.query.soql.plan_store`), keyed by the org's stored schema text: found, it runs
on a read-only connection without building the org's schema objects or loading the parser
and the compiler. Otherwise the schema objects are built from that same text (the org is
not opened as an object) and the query parsed and compiled, without lark
(:mod:`crmtui.query.soql.lalr`), run, and its plan stored for next time. Anything unusual
(a raw upstream file, a sample org still to build, SOSL, a damaged stored schema, a cache
folder that cannot be made) takes the ordinary path: the org opened and the query run by
:func:`crmtui.query.run`, which reports any error as before.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from crmtui import exit_codes
from crmtui.commands.query_output import OutputDeadline, OutputTimeout, write_json
from crmtui.sanitise import printable

FORMATS = ("table", "json", "observation")
#: The options :func:`read_args` reads, with the parameter each one sets.
_OPTIONS = {"--org": "org_spec", "--today": "today", "--format": "fmt", "--timeout": "timeout"}
#: Org names that stand for a sample org (built on first use by the ordinary path).
_SAMPLES = ("sample", "sample-b2b", "sample-b2c")


def read_args(args: list[str]) -> dict[str, Any] | None:
    """The parameters of ``crmtui query ARGS`` when they are plain enough to read without click.

    Only the forms click reads the same way are taken: each option once (``--org X`` or
    ``--org=X``), a value not starting with ``-``, a known ``--format``, a valid ``--timeout``,
    and one query. Anything else (``--help``, an unknown option, a bad value) is None: click
    reads it, and prints its own usage error.
    """
    found: dict[str, Any] = {}
    text: str | None = None
    items = iter(args)
    for arg in items:
        if arg == "-" or not arg.startswith("-"):
            if text is not None:
                return None
            text = arg
            continue
        name, eq, value = arg.partition("=")
        param = _OPTIONS.get(name)
        if param is None or param in found:
            return None
        if not eq:
            value = next(items, None)
            if value is None:
                return None
        if value.startswith("-"):
            return None
        found[param] = value
    if text is None or found.get("fmt", "table") not in FORMATS:
        return None
    if "timeout" in found:
        try:
            seconds = float(found["timeout"].strip())
        except ValueError:
            return None
        if not (math.isfinite(seconds) and seconds > 0):
            return None
        found["timeout"] = seconds
    return {"org_spec": None, "today": None, "fmt": "table", "timeout": None, **found, "text": text}


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


def echo(text: str, *, err: bool = False) -> None:
    """Write a line to standard output (or error) and flush it, as ``click.echo`` does."""
    stream = sys.stderr if err else sys.stdout
    stream.write(text + "\n")
    stream.flush()


@contextlib.contextmanager
def _ctrl_c_cancels(cancel: threading.Event) -> Iterator[None]:
    """While the query runs, Ctrl-C sets ``cancel`` (the engine stops within milliseconds).

    A KeyboardInterrupt raised inside SQLite's progress callback would be swallowed by
    sqlite3 and read as a timeout; a handler that only sets the event cannot be lost.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    import signal

    previous = signal.signal(signal.SIGINT, lambda signum, frame: cancel.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _single_line(text: str) -> str:
    return " ".join(text.split())


def run_query(
    org_spec: str | None, today: str | None, fmt: str, timeout: float | None, text: str
) -> None:
    """Run ``crmtui query`` (see its ``--help``): print the result, or fail in one line.

    Raises:
        ConfigError: Unreadable standard input, a bad ``--today``, an unknown org.
        OrgError: The org file cannot be read.
        SystemExit: Status 1 after printing a query's error (its code first).
        KeyboardInterrupt: Ctrl-C stopped the query.
    """
    from crmtui.errors import ConfigError
    from crmtui.query.budget import QueryBudget
    from crmtui.query.errors import QueryError

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
    # The engine's own default date: the plan store's key must name the date compiled for.
    when = day if day is not None else dt.datetime.now(dt.UTC).date()
    stored = _stored_org(org_spec)
    cancel = threading.Event()
    budget = QueryBudget(cancel=cancel) if timeout is None else QueryBudget(timeout, cancel=cancel)
    try:
        result = None if stored is None else _run_stored(stored, text, when, budget, cancel)
        if result is None:
            result = _run_compiled(org_spec, text, when, budget, cancel)
    except QueryError as exc:
        if cancel.is_set():
            raise KeyboardInterrupt from None  # Ctrl-C: "Interrupted.", status 130
        # The message may quote the query (the user's text, or a task's): shown escaped.
        echo(printable(_single_line(str(exc))), err=True)
        # SystemExit: it ends `crmtui.cli.main` with status 1, click or not.
        sys.exit(exit_codes.ERROR)
    result, started = result
    # One budget for the query and the printing of its result (encoding included).
    deadline = OutputDeadline(
        None if budget.timeout_s is None else started + budget.timeout_s, budget.timeout_s
    )
    try:
        _print(result, fmt, deadline)
    except OutputTimeout as exc:
        sys.stdout.flush()
        echo("")  # end a line cut short
        echo(str(exc), err=True)
        sys.exit(exit_codes.ERROR)


def _run_compiled(
    org_spec: str | None, text: str, when: dt.date, budget: Any, cancel: threading.Event
) -> tuple[Any, float]:
    """Open the org and run ``text`` as ever; keep a SOQL query's plan for next time."""
    from crmtui.org.sample import open_org_or_sample
    from crmtui.query import run

    org = open_org_or_sample(org_spec)
    started = time.monotonic()
    with _ctrl_c_cancels(cancel):
        result = run(org, text, today=when, budget=budget)
    schema_text = org.meta.get("schema")
    folder = _plan_folder()
    if result.kind == "soql" and schema_text is not None and folder is not None:
        from crmtui.query.soql import compile_soql, plan_store

        # The plan the query just ran, from the engine's in-process cache.
        plan = compile_soql(org.schema, text, today=when)
        plan_store.save(folder, plan_store.plan_key(schema_text, text, when), plan)
    return result, started


def _run_stored(
    stored: tuple[Path, str], text: str, when: dt.date, budget: Any, cancel: threading.Event
) -> tuple[Any, float] | None:
    """Run ``text`` on the org file ``stored`` names, from its stored schema text: its stored
    plan, else compiled (and the plan kept); None leaves it to the ordinary path."""
    if text.lstrip()[:4].upper() == "FIND":  # SOSL: always the ordinary path
        return None
    folder = _plan_folder()
    if folder is None:
        return None
    from crmtui.org.files import connect_readonly
    from crmtui.query.boundary import check_text, guarded
    from crmtui.query.budget import applied
    from crmtui.query.connection import prepare
    from crmtui.query.soql import plan_store
    from crmtui.query.soql.executor import run_compiled

    path, schema_text = stored
    start = time.perf_counter()
    key = plan_store.plan_key(schema_text, text, when)
    plan = plan_store.load(folder, key)
    schema = None
    if plan is None:
        schema = _schema(schema_text)
        if schema is None:
            return None
    compile_ms = (time.perf_counter() - start) * 1000
    started = time.monotonic()
    conn = connect_readonly(path)
    try:
        check_text(text)  # as `run` does; a stored query passed it already
        with _ctrl_c_cancels(cancel), applied(budget), guarded():
            if plan is None:
                # What `run` does for a query never asked: parse and compile (no lark,
                # no org object: the schema comes from the text read already).
                from crmtui.query.soql.compiler import compile_query
                from crmtui.query.soql.parser import parse, unwrap_fence

                compiling = time.perf_counter()
                plan = compile_query(parse(unwrap_fence(text)), schema, when)
                compile_ms += (time.perf_counter() - compiling) * 1000
                plan_store.save(folder, key, plan)
            return run_compiled(prepare(conn), plan, compile_ms), started
    finally:
        conn.close()


def _schema(schema_text: str) -> Any:
    """The org's schema objects from its stored text; None when the text is not a schema
    (the ordinary path opens the org and reports it)."""
    import json

    from crmtui.data.schema import Schema

    try:
        return Schema.from_json(json.loads(schema_text))
    except Exception:  # noqa: BLE001 - a damaged stored schema: the ordinary path says so
        return None


def _stored_org(org_spec: str | None) -> tuple[Path, str] | None:
    """The org file ``org_spec`` names and its stored schema text, when reading them is all
    opening the org would do; None sends the query down the ordinary path (which builds a
    missing sample, reads a raw file's layout, and reports every error)."""
    from crmtui import paths
    from crmtui.org.files import FORMAT_VERSION, check_sqlite_file, connect_readonly, stored_meta

    try:
        sample = org_spec is None or org_spec in _SAMPLES
        path = paths.org_path(org_spec or "sample") if sample else paths.resolve_org(org_spec)
        check_sqlite_file(path)
        conn = connect_readonly(path)
        try:
            meta = stored_meta(conn, "schema", "format_version")
        finally:
            conn.close()
    except Exception:  # noqa: BLE001 - the ordinary path reports it
        return None
    if "schema" not in meta:
        return None
    if sample and meta.get("format_version") != FORMAT_VERSION:
        return None  # an old sample: the ordinary path builds it again
    return path, meta["schema"]


def _plan_folder() -> Path | None:
    """The plan store's folder in the cache folder; None when there is no cache folder
    (``CRMTUI_HOME`` cannot be created)."""
    from crmtui import paths
    from crmtui.errors import CrmtuiError
    from crmtui.query.soql.plan_store import FOLDER

    try:
        return paths.cache_dir() / FOLDER
    except (OSError, CrmtuiError):
        return None


def _print(result: Any, fmt: str, deadline: OutputDeadline) -> None:
    """Print ``result`` in ``fmt`` before ``deadline`` (:class:`OutputTimeout` after it)."""
    deadline.check("nothing (the query used the whole budget)")
    if fmt == "json":
        write_json(result.to_salesforce(), sys.stdout, deadline)
    elif fmt == "observation":
        from crmtui.query.observation import format_observation

        text = format_observation(result)  # a repr: control characters come out escaped
        deadline.check("nothing")
        echo(text)
    else:
        # Drawn without Rich (~60 ms to import: more than a one-line query takes in all).
        from crmtui.commands.plain_table import print_table
        from crmtui.commands.query_output import TABLE_ROWS, table_rows

        shown = table_rows(result, TABLE_ROWS)
        # A table without columns (SELECT COUNT()) prints nothing but its footer line.
        if result.columns:
            print_table([printable(c) for c in result.columns], shown)
        echo(table_caption(result, len(shown)))
