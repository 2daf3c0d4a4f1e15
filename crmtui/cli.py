"""The ``crmtui`` command line: a thin edge over the library.

Subcommands live in ``crmtui/commands/<name>.py`` and are imported only when invoked, so
``crmtui --help`` stays fast (no textual, datasets or litellm import). Every
:class:`~crmtui.errors.CrmtuiError` becomes one line on stderr and a non-zero exit; so does
anything else (an internal error, with its traceback in a crash log).
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import sys
from typing import Any, NoReturn

import click

from crmtui import __version__, exit_codes
from crmtui.crash import DEBUG_ENV  # set to 1 to see an internal error's traceback
from crmtui.errors import ConfigError, CrmtuiError
from crmtui.sanitise import printable

# name -> (module, attribute, one-line help). Help is duplicated here so that listing
# commands does not import them.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "play": ("crmtui.commands.play", "play", "Solve instances yourself in the TUI (default)."),
    "tasks": (
        "crmtui.commands.tasks",
        "tasks",
        "List, show and measure CRMArena instances.",
    ),
    "org": ("crmtui.commands.org", "org", "Build, import and inspect org databases."),
    "query": ("crmtui.commands.query", "query", "Run a SOQL or SOSL query against an org."),
    "verify": ("crmtui.commands.verify", "verify", "Check a recording's hash chain."),
    "watch": ("crmtui.commands.watch", "watch", "Watch an LLM agent solve an instance live."),
    "run": ("crmtui.commands.run", "run", "Run an LLM agent over many instances, headless."),
    "replay": ("crmtui.commands.replay", "replay", "Step through a recorded session."),
    "compare": ("crmtui.commands.compare", "compare", "Compare two sessions step by step."),
    "report": ("crmtui.commands.report", "report", "Accuracy, time and cost per actor."),
    "export": ("crmtui.commands.export", "export", "Export recordings as a dataset."),
    "study": ("crmtui.commands.study", "study", "Run a human-baseline study with annotators."),
    "serve": ("crmtui.commands.serve", "serve", "Serve a study to annotators' web browsers."),
    "serve-rest": (
        "crmtui.commands.serve_rest",
        "serve_rest",
        "Serve an org as a local, read-only Salesforce REST API.",
    ),
    "upstream": (
        "crmtui.commands.upstream",
        "upstream",
        "Run upstream's own harness, unchanged, against a local org.",
    ),
    "import-upstream": (
        "crmtui.commands.import_upstream",
        "import_upstream",
        "Turn an upstream results file into recordings.",
    ),
}


def _available(name: str) -> bool:
    module = COMMANDS[name][0]
    return importlib.util.find_spec(module) is not None


class LazyGroup(click.Group):
    """A click group that imports each subcommand module on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name in COMMANDS if _available(name)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS or not _available(cmd_name):
            return None
        module_name, attr, _ = COMMANDS[cmd_name]
        return getattr(importlib.import_module(module_name), attr)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][2]) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, invoke_without_command=True)
@click.version_option(__version__, prog_name="crmtui")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """crmtui: play, watch, record and compare work on the CRMArena benchmark, offline.

    Run without a command to open the play screen on the built-in sample org.
    """
    # Every table and panel a command prints through Rich draws control and bidi characters
    # visibly (the net under the commands' own printable() calls), installed when Rich is
    # imported: commands that print plainly (`crmtui query`, `verify`...) never load it.
    from crmtui.sanitise import install_rich_guard_on_import

    install_rich_guard_on_import()
    if ctx.invoked_subcommand is None:
        play = cli.get_command(ctx, "play")
        if play is None:
            click.echo(ctx.get_help())
            return
        ctx.invoke(play)


def check_arguments(argv: list[str]) -> None:
    """Refuse arguments that are not valid UTF-8 before any command sees them.

    Python hands undecodable bytes over as lone surrogates, which break later (an SQLite
    binding, a file name, a recording) far from the cause.

    Raises:
        ConfigError: Naming the argument and the first bad byte.
    """
    for position, arg in enumerate(argv, start=1):
        if "\x00" in arg:  # no real command line can hold one; a caller in this process can
            raise ConfigError(f"argument {position} holds a NUL character")
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError as exc:
            bad = ord(arg[exc.start])
            # An undecodable byte arrives as U+DC80..U+DCFF (surrogateescape); any other
            # lone surrogate can only come from a caller in this process.
            what = f"byte 0x{bad - 0xDC00:02x}" if 0xDC80 <= bad <= 0xDCFF else f"U+{bad:04X}"
            raise ConfigError(
                f"argument {position} is not valid UTF-8 text ({what} at "
                f"character {exc.start + 1}); pass text in UTF-8"
            ) from None


def main(argv: list[str] | None = None) -> Any:
    """Console-script entry point: run the CLI, turning every failure into one line.

    Exit statuses are listed in :mod:`crmtui.exit_codes`.
    """
    if argv is None:
        # The real command line (console script or ``python -m``), not a test calling in.
        try:
            result = _main(argv)
        except SystemExit as exc:
            _quick_exit(exc.code)
            raise
        # click returns an exit status (ctx.exit(1)) instead of raising in this mode.
        _quick_exit(result if isinstance(result, int) else 0)
        return result
    return _main(argv)


def _quick_exit(code: Any) -> None:
    """Leave without tearing down litellm's modules (seconds at exit on a slow machine).

    Only once litellm is loaded (``run``, ``watch``): every file crmtui writes is closed and
    synced by then, so skipping finalisation loses nothing, and a Ctrl-C'd run ends at once.
    """
    if "litellm" not in sys.modules:
        return
    import logging
    import os

    status = code if isinstance(code, int) else (0 if code is None else 1)
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    logging.shutdown()
    os._exit(status)


def _main(argv: list[str] | None) -> Any:
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        check_arguments(args)
        return cli.main(args=args, prog_name="crmtui", standalone_mode=False)
    except CrmtuiError as exc:
        # The message may quote an org's, a task's or a recording's text: shown escaped.
        click.echo(f"Error: {printable(exc.user_message())}", err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(exit_codes.INTERRUPTED)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        sys.exit(exit_codes.INTERRUPTED)
    except OSError as exc:
        if os.environ.get(DEBUG_ENV) or exc.errno not in ENVIRONMENT_ERRNOS:
            _internal(exc)
        # A full disk or a read-only folder is the machine's state, not a bug: no crash log.
        click.echo(f"Error: {printable(describe_os_error(exc))}", err=True)
        sys.exit(exit_codes.ERROR)
    except Exception as exc:
        _internal(exc)


def _internal(exc: BaseException) -> NoReturn:
    """An exception that escaped every command: a bug, told in one line, logged in full."""
    if os.environ.get(DEBUG_ENV):
        raise exc
    from crmtui.crash import internal_error

    click.echo(
        f"Error: {printable(internal_error(exc).user_message())} "
        f"(set {DEBUG_ENV}=1 to see the traceback)",
        err=True,
    )
    sys.exit(exit_codes.ERROR)


#: errno values that describe the machine, never crmtui: reported in one line, no crash log.
ENVIRONMENT_ERRNOS = frozenset(
    {
        errno.ENOSPC,  # disk full
        errno.EDQUOT,  # quota exceeded
        errno.EROFS,  # read-only file system
        errno.EACCES,  # permission denied
        errno.EPERM,  # operation not permitted
        errno.EIO,  # input/output error (a failing disk)
    }
)


def describe_os_error(exc: OSError) -> str:
    """``cannot write /x/y: Read-only file system`` for an OSError about a file."""
    reason = exc.strerror or str(exc)
    if exc.filename is None:
        return reason
    return f"cannot use {os.fsdecode(exc.filename)}: {reason}"


if __name__ == "__main__":  # pragma: no cover
    main()
