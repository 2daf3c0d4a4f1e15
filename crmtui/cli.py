"""The ``crmtui`` command line: a thin edge over the library.

Subcommands live in ``crmtui/commands/<name>.py`` and are imported only when invoked, so
``crmtui --help`` stays fast (no textual, datasets or litellm import). Every
:class:`~crmtui.errors.CrmtuiError` becomes one line on stderr and a non-zero exit; so does
anything else (an internal error, with its traceback in a crash log).

The click group (:data:`cli`) lives in :mod:`crmtui.commands.group`, loaded on first use:
:func:`main` runs a plain ``crmtui query`` without click (:mod:`crmtui.commands.query_run`),
whose start-up is most of a one-line query's time (docs/performance.md), and a plain
``crmtui play`` the same way (:mod:`crmtui.commands.play_run`), whose cold start is measured
against a bare Textual app's.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from typing import TYPE_CHECKING, Any, NoReturn

from crmtui import exit_codes
from crmtui.commands import COMMANDS as COMMANDS  # re-exported: name -> (module, attr, help)
from crmtui.crash import DEBUG_ENV  # set to 1 to see an internal error's traceback
from crmtui.errors import ConfigError, CrmtuiError
from crmtui.sanitise import printable

if TYPE_CHECKING:
    from crmtui.commands.group import LazyGroup as LazyGroup
    from crmtui.commands.group import cli as cli


def __getattr__(name: str) -> Any:
    # The click group, loaded on first use (PEP 562): see the module docs.
    if name not in ("cli", "LazyGroup"):
        raise AttributeError(f"module 'crmtui.cli' has no attribute {name!r}")
    from crmtui.commands import group

    value = getattr(group, name)
    globals()[name] = value
    return value


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
        if args[:1] == ["query"]:
            from crmtui.commands.query_run import read_args, run_query

            plain = read_args(args[1:])
            if plain is not None:  # else click reads it (--help, a usage error...)
                run_query(**plain)
                return None
        if not args or args[0] == "play":
            from crmtui.commands.play_run import play_plainly

            # A plain `crmtui play` (or `crmtui`) starts the app without click: see there.
            if play_plainly(args[1:]):
                return None
        from crmtui.commands.group import cli

        return cli.main(args=args, prog_name="crmtui", standalone_mode=False)
    except CrmtuiError as exc:
        # The message may quote an org's, a task's or a recording's text: shown escaped.
        _echo_err(f"Error: {printable(exc.user_message())}")
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        _echo_err("Interrupted.")
        sys.exit(exit_codes.INTERRUPTED)
    except OSError as exc:
        if os.environ.get(DEBUG_ENV) or exc.errno not in ENVIRONMENT_ERRNOS:
            _internal(exc)
        # A full disk or a read-only folder is the machine's state, not a bug: no crash log.
        _echo_err(f"Error: {printable(describe_os_error(exc))}")
        sys.exit(exit_codes.ERROR)
    except Exception as exc:
        _click_exit(exc)
        _internal(exc)


def _click_exit(exc: Exception) -> None:
    """Exit as click's own exceptions ask (a usage error, Abort, ``ctx.exit``); else return.

    Only click raises them, so click is loaded whenever one is raised.
    """
    click = sys.modules.get("click")
    if click is None:
        return
    if isinstance(exc, click.exceptions.Abort):
        _echo_err("Aborted.")
        sys.exit(exit_codes.INTERRUPTED)
    if isinstance(exc, click.ClickException):
        exc.show()
        sys.exit(exc.exit_code)
    if isinstance(exc, click.exceptions.Exit):
        sys.exit(exc.exit_code)


def _echo_err(line: str) -> None:
    """One line on standard error, flushed (what ``click.echo(..., err=True)`` did)."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _internal(exc: BaseException) -> NoReturn:
    """An exception that escaped every command: a bug, told in one line, logged in full."""
    if os.environ.get(DEBUG_ENV):
        raise exc
    from crmtui.crash import internal_error

    _echo_err(
        f"Error: {printable(internal_error(exc).user_message())} "
        f"(set {DEBUG_ENV}=1 to see the traceback)"
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
