"""Command lines in the documentation, and resolving them through the CLI's own parser.

Shared by the docs tests: every ``crmtui ...`` line in a code block must name a real
command with real options and valid choices, and every command and option must be
documented somewhere a reader finds it (not only in the generated CLI reference).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import click

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
#: Written from the code by scripts/gen_docs.py: not evidence that a command is documented.
GENERATED = {DOCS / "cli.md"}
_FENCE = re.compile(r"^(\s*)(```+|~~~+)(.*)$")
_ENV = re.compile(r"^[A-Z_][A-Z0-9_]*=\S*$")
_INLINE = re.compile(r"`(crmtui [^`]+)`")
_PLACEHOLDER = re.compile(r"[A-Z][A-Z0-9_]*|[a-z0-9_]+(\|[a-z0-9_]+)+")


def pages() -> list[Path]:
    """README.md and every page under docs/."""
    return [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]


@dataclass(frozen=True)
class Line:
    """One ``crmtui`` command line found in a page."""

    page: Path
    lineno: int
    args: list[str]  # after ``crmtui``

    def where(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.lineno}: crmtui {' '.join(self.args)}"


def code_blocks(text: str) -> Iterator[tuple[int, str, list[str]]]:
    """(first line number, info string, lines) of each fenced code block."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        fence, info, start = match.group(2), match.group(3).strip(), i + 1
        body: list[str] = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i])
            i += 1
        yield start + 1, info, body
        i += 1


def _commands_in(shell: str) -> Iterator[list[str]]:
    """The argument lists after each ``crmtui`` in one logical shell line."""
    try:
        lexer = shlex.shlex(shell, posix=True, punctuation_chars=";&|<>")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        tokens = list(lexer)
    except ValueError:  # an unbalanced quote: not a shell line
        return
    parts: list[list[str]] = [[]]
    for token in tokens:
        if token and set(token) <= set(";&|<>"):
            parts.append([])
        else:
            parts[-1].append(token)
    for part in parts:
        while part and _ENV.match(part[0]):
            part = part[1:]
        if part and (part[0] == "crmtui" or part[0].endswith("/crmtui")):
            yield part[1:]


def block_lines(page: Path) -> Iterator[Line]:
    """Every ``crmtui`` command line in the page's shell and text code blocks."""
    for start, info, body in code_blocks(page.read_text(encoding="utf-8")):
        if info not in ("", "bash", "sh", "shell", "console", "text"):
            continue
        logical, first = "", start
        for offset, raw in enumerate(body):
            text = raw.strip()
            if not logical:
                first = start + offset
                if text.startswith("$ "):
                    text = text[2:]
            if text.endswith("\\"):
                logical += text[:-1] + " "
                continue
            logical += text
            for args in _commands_in(logical):
                yield Line(page, first, args)
            logical = ""


def inline_lines(page: Path) -> Iterator[Line]:
    """Inline code spans that are whole ``crmtui`` command lines (``crmtui play --idx 42``)."""
    for lineno, text in enumerate(page.read_text(encoding="utf-8").split("\n"), start=1):
        for match in _INLINE.finditer(text):
            for args in _commands_in(match.group(1)):
                for expanded in _alternatives(args):
                    yield Line(page, lineno, expanded)


def _alternatives(args: list[str]) -> Iterator[list[str]]:
    """``study create/add-annotator`` as ``study create`` and ``study add-annotator``."""
    for index, arg in enumerate(args):
        if arg.startswith("-"):
            break
        if "/" in arg and re.fullmatch(r"[a-z-]+(/[a-z-]+)+", arg):
            for name in arg.split("/"):
                yield [*args[:index], name, *args[index + 1 :]]
            return
    yield args


class Unresolved(Exception):
    """A command line the CLI would refuse: unknown command or option, invalid choice."""


def resolve(args: list[str]) -> tuple[tuple[str, ...], set[str]]:
    """The command path a line reaches and the option names it uses.

    Only the parser is run (no callbacks, no type conversion beyond choices), so placeholders
    such as ``FILE`` or ``M`` pass while a misspelt option or choice does not.

    Raises:
        Unresolved: Naming what the CLI would refuse.
    """
    from crmtui.cli import cli

    command: click.Command = cli
    path: tuple[str, ...] = ("crmtui",)
    used: set[str] = set()
    parent: click.Context | None = None
    rest = list(args)
    while True:
        ctx = click.Context(command, info_name=path[-1], parent=parent)
        ctx.allow_interspersed_args = isinstance(command, click.Group) is False
        parser = command.make_parser(ctx)
        try:
            values, leftover, order = parser.parse_args(args=list(rest))
        except click.UsageError as exc:
            raise Unresolved(f"{' '.join(path)}: {exc.format_message()}") from None
        for param in order:
            if isinstance(param, click.Option):
                used.update(o for o in param.opts if o.startswith("--"))
            _check_choice(path, param, values.get(param.name))
        if "--help" in rest or "--version" in rest:
            return path, used
        if not isinstance(command, click.Group):
            if leftover and not command.allow_extra_args:
                extra = " ".join(leftover)
                raise Unresolved(f"{' '.join(path)}: unexpected extra arguments {extra!r}")
            return path, used
        if not leftover:
            return path, used
        name, rest = leftover[0], leftover[1:]
        sub = command.get_command(ctx, name)
        if sub is None:
            raise Unresolved(f"{' '.join(path)}: no such command {name!r}")
        parent, command, path = ctx, sub, (*path, name)


def _check_choice(path: tuple[str, ...], param: click.Parameter, value: object) -> None:
    if not isinstance(param.type, click.Choice) or value is None:
        return
    values = value if isinstance(value, (list, tuple)) else [value]
    choices = [str(c) for c in param.type.choices]
    for one in values:
        text = str(one)
        if _PLACEHOLDER.fullmatch(text):  # METHOD, N, csv|json|md: a value to fill in
            continue
        ok = text in choices or (
            not param.type.case_sensitive and text.lower() in {c.lower() for c in choices}
        )
        if not ok:
            raise Unresolved(
                f"{' '.join(path)}: {param.name}={text!r} is not one of {', '.join(choices)}"
            )


def all_commands() -> dict[tuple[str, ...], click.Command]:
    """Every command path of the CLI (groups included)."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("gen_docs", REPO / "scripts" / "gen_docs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_docs", module)
    spec.loader.exec_module(module)
    return dict(module.walk_commands())
