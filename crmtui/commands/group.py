"""The click group behind ``crmtui``: its subcommands (:data:`crmtui.commands.COMMANDS`) load
on use.

:func:`crmtui.cli.main` imports this module only for a command line it does not run itself
(every one but a plain ``crmtui query``); ``crmtui.cli.cli`` is this module's :data:`cli`.
"""

from __future__ import annotations

import importlib
import importlib.util

import click

from crmtui import __version__
from crmtui.commands import COMMANDS


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
