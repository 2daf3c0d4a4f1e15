"""Every ``crmtui ...`` line in the docs runs through the CLI's parser, and every command and
option is documented where a reader finds it (#33).

A renamed option or a dropped choice then fails here, naming the page and line, instead of
leaving the docs to say what the code no longer does.
"""

from __future__ import annotations

import re

import click

from tests.docs import doclines


def _hand_written() -> list:
    return [page for page in doclines.pages() if page not in doclines.GENERATED]


def test_every_command_line_in_a_code_block_resolves() -> None:
    lines = [line for page in doclines.pages() for line in doclines.block_lines(page)]
    assert len(lines) > 50  # the extraction itself works
    problems = []
    for line in lines:
        try:
            doclines.resolve(line.args)
        except doclines.Unresolved as exc:
            problems.append(f"{line.where()}\n    {exc}")
    assert problems == []


def _resolve_mention(line: doclines.Line) -> tuple[tuple[str, ...], set[str]]:
    """An inline mention may end at an option that takes a value (`crmtui play --study`)."""
    try:
        return doclines.resolve(line.args)
    except doclines.Unresolved as exc:
        if "requires an argument" not in str(exc):
            raise
        return doclines.resolve([*line.args, "VALUE"])


def test_every_inline_command_resolves() -> None:
    problems = []
    for page in _hand_written():
        for line in doclines.inline_lines(page):
            try:
                _resolve_mention(line)
            except doclines.Unresolved as exc:
                problems.append(f"{line.where()}\n    {exc}")
    assert problems == []


def test_every_command_and_option_is_documented() -> None:
    reached: set[tuple[str, ...]] = set()
    for page in _hand_written():
        for line in [*doclines.block_lines(page), *doclines.inline_lines(page)]:
            path, _ = _resolve_mention(line)
            reached.update(path[:n] for n in range(1, len(path) + 1))
    text = "\n".join(page.read_text(encoding="utf-8") for page in _hand_written())
    mentioned = set(re.findall(r"--[a-z][a-z0-9-]*", text))
    commands = doclines.all_commands()
    assert sorted(" ".join(path) for path in commands if path not in reached) == []
    undocumented = sorted(
        f"{' '.join(path)} {opt}"
        for path, command in commands.items()
        for param in command.params
        if isinstance(param, click.Option)
        for opt in param.opts + param.secondary_opts
        if opt.startswith("--") and opt != "--help" and opt not in mentioned
    )
    assert undocumented == []


def test_the_parser_refuses_what_the_cli_refuses() -> None:
    """The check itself can fail: a wrong command, option or choice is caught."""
    assert doclines.resolve(["study", "create", "x", "--roles", "agent"])[0][-1] == "create"
    for args in (["plai"], ["play", "--no-such-option"], ["report", "--format", "xml"]):
        try:
            doclines.resolve(args)
        except doclines.Unresolved:
            continue
        raise AssertionError(f"resolved {args}")
