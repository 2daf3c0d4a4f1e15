"""Every crmtui command, subcommand and option has help text."""

from __future__ import annotations

import click
import pytest

from crmtui.cli import COMMANDS, cli


def _walk(command: click.Command, path: str) -> list[tuple[str, click.Command]]:
    found = [(path, command)]
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            found += _walk(sub, f"{path} {name}")
    return found


def _all() -> list[tuple[str, click.Command]]:
    ctx = click.Context(cli)
    found: list[tuple[str, click.Command]] = []
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        assert command is not None, name
        found += _walk(command, name)
    return found


def test_every_registered_command_exists() -> None:
    assert set(cli.list_commands(click.Context(cli))) == set(COMMANDS)


@pytest.mark.parametrize(("path", "command"), _all(), ids=lambda v: v if isinstance(v, str) else "")
def test_command_and_options_have_help(path: str, command: click.Command) -> None:
    assert (command.help or command.short_help or "").strip(), f"{path} has no help"
    for param in command.params:
        if isinstance(param, click.Option) and param.name != "help":
            assert (param.help or "").strip(), f"{path} {param.opts} has no help"
