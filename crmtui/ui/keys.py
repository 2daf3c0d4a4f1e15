"""The keys a screen offers, read from its bindings: one source for F1 help and the palette.

Every crmtui widget or screen declares its keys as Textual ``BINDINGS`` with a description;
:func:`key_commands` walks a screen and its widgets and merges the bindings of one action
into one :class:`KeyCommand` (``F7`` and ``p`` both pause: one command, two keys). The help
screen and the command palette are generated from that list, so a key added to any widget
shows up in both without editing a help text.

Only bindings declared by crmtui's own classes are listed (Textual's cursor keys would drown
the rest); a class names its section with ``HELP_GROUP`` and may send single actions to
other sections with ``HELP_GROUPS`` (action -> section). Bindings whose description is empty
are not listed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rich.table import Table
from rich.text import Text
from textual.binding import Binding
from textual.dom import DOMNode

#: Section of a widget's keys when its class names none.
DEFAULT_GROUP = "Keys"


@dataclass(frozen=True)
class KeyCommand:
    """One action and every key bound to it.

    Attributes:
        group: Help section (the declaring class's ``HELP_GROUP``).
        description: What it does (the binding's description).
        keys: Key names in declaration order (``("f7", "p")``).
        action: The action string as bound (may carry a namespace such as ``app.``).
        node: The widget or screen that owns the binding (the action runs there).
        tooltip: A longer explanation, when the binding has one.
    """

    group: str
    description: str
    keys: tuple[str, ...]
    action: str
    node: DOMNode
    tooltip: str = ""


def _own_bindings(node: DOMNode) -> list[tuple[str, Binding]]:
    """Bindings declared by crmtui classes in ``node``'s MRO, with their class's group."""
    found: list[tuple[str, Binding]] = []
    seen: set[tuple[str, str]] = set()
    for cls in type(node).__mro__:
        if not cls.__module__.startswith("crmtui."):
            continue
        group = getattr(type(node), "HELP_GROUP", None) or DEFAULT_GROUP
        groups: dict[str, str] = getattr(type(node), "HELP_GROUPS", {})
        for item in cls.__dict__.get("BINDINGS", ()):
            for binding in Binding.make_bindings([item]):
                marker = (binding.key, binding.action)
                if marker not in seen:
                    seen.add(marker)
                    found.append((groups.get(binding.action, group), binding))
    return found


def key_commands(screen: Any, *, app: Any = None) -> list[KeyCommand]:
    """The commands of ``screen``, its widgets (shown or not) and the app, merged by action.

    Args:
        screen: A mounted screen.
        app: The app whose own bindings come last (default: ``screen.app``).
    """
    nodes: list[DOMNode] = [screen, *screen.query("*")]
    owner = app if app is not None else screen.app
    if owner is not None:
        nodes.append(owner)
    merged: dict[tuple[int, str], KeyCommand] = {}
    order: list[tuple[int, str]] = []
    for node in nodes:
        for group, binding in _own_bindings(node):
            if not binding.description:
                continue
            marker = (id(node), binding.action)
            known = merged.get(marker)
            if known is None:
                merged[marker] = KeyCommand(
                    group,
                    binding.description,
                    (binding.key,),
                    binding.action,
                    node,
                    binding.tooltip or "",
                )
                order.append(marker)
            elif binding.key not in known.keys:
                merged[marker] = KeyCommand(
                    known.group,
                    known.description,
                    (*known.keys, binding.key),
                    known.action,
                    node,
                    known.tooltip or binding.tooltip or "",
                )
    # One command per description and group: two widgets of one class (say two tables)
    # bind the same key to the same thing.
    unique: dict[tuple[str, str, tuple[str, ...]], KeyCommand] = {}
    for marker in order:
        command = merged[marker]
        unique.setdefault((command.group, command.description, command.keys), command)
    groups: dict[str, int] = {}
    for command in unique.values():
        groups.setdefault(command.group, len(groups))
    # Sections in order of first appearance; keys keep their order inside a section.
    return sorted(unique.values(), key=lambda command: groups[command.group])


_NAMED = {
    "escape": "Esc",
    "enter": "Enter",
    "tab": "Tab",
    "space": "Space",
    "up": "↑",
    "down": "↓",
    "left": "←",
    "right": "→",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "home": "Home",
    "end": "End",
    "delete": "Del",
    "backspace": "Backspace",
    "slash": "/",
}


def key_label(key: str) -> str:
    """How a key is written in help: ``F7``, ``Ctrl+S``, ``Ctrl+↑``, ``?``, ``[``."""
    from textual.keys import format_key

    *modifiers, name = key.split("+")
    if name in _NAMED:
        shown = _NAMED[name]
    elif len(name) > 1 and name[0] == "f" and name[1:].isdigit():
        shown = name.upper()
    else:
        shown = format_key(name)
    if modifiers and len(shown) == 1:
        shown = shown.upper()
    return "+".join([*(m.capitalize() for m in modifiers), shown])


def keys_text(command: KeyCommand) -> str:
    """A command's keys for display, e.g. ``F7 p``."""
    return " ".join(key_label(key) for key in command.keys)


def help_renderable(commands: list[KeyCommand]) -> Table:
    """The help screen's body: one section per group, keys left, description right."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    group = None
    for command in commands:
        if command.group != group:
            if group is not None:
                table.add_row("", "")
            group = command.group
            table.add_row(Text(group, style="bold underline"), "")
        description = Text(command.description)
        if command.tooltip:
            description.append(f"  · {command.tooltip}", style="dim")
        table.add_row(keys_text(command), description)
    return table


def reveal(node: DOMNode) -> None:
    """Bring a widget's tab to the front, so an action run on it from the palette shows."""
    from textual.widgets import TabbedContent, TabPane

    for ancestor in node.ancestors_with_self:
        if isinstance(ancestor, TabPane) and ancestor.id:
            for tabs in ancestor.ancestors:
                if isinstance(tabs, TabbedContent):
                    tabs.active = ancestor.id
                    break


def palette_commands(screen: Any, app: Any) -> Iterable[Any]:
    """The screen's key commands as command-palette entries, one per action."""
    from textual.app import SystemCommand

    for command in key_commands(screen, app=app):
        if command.action == "command_palette":
            continue
        help_text = keys_text(command)
        if command.tooltip:
            help_text += f" · {command.tooltip}"

        def run(command: KeyCommand = command) -> None:
            reveal(command.node)
            app.call_later(command.node.run_action, command.action)

        yield SystemCommand(command.description, help_text, run)
