"""The compare screen's conversation view: dialogues side by side, one row per user turn.

It renders :attr:`crmtui.review.compare.Comparison.conversation` (lined up by
:mod:`crmtui.review.dialogue_compare`) into the screen's detail panel: a column per
recording headed by who played each side, the user's message with the key facts it gave
first, then the agent's reply.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from crmtui.review.compare import Comparison
from crmtui.review.dialogue_compare import TurnCell

CONVERSATION_HINT = "c: the conversations side by side · Enter on a row: its steps"


def _cell(cell: TurnCell | None) -> RenderableType:
    if cell is None:
        return Text("(ended)", style="dim")
    text = Text("user: ", style="bold cyan")
    text.append(cell.user)
    if cell.facts:
        text.append("  [" + ", ".join(cell.facts) + "]", style="bold green")
    for reply in cell.agent:
        text.append("\nagent: ", style="bold magenta")
        text.append(reply)
    return text


def conversation_renderable(comparison: Comparison) -> RenderableType:
    """The dialogues of a comparison lined up by user turn (turn 0: the opening)."""
    grid = Table(expand=True, show_lines=True, box=None, padding=(0, 1))
    grid.add_column("turn", width=4, style="dim")
    for n, actor in enumerate(comparison.actors):
        sides = actor.dialogue.sides if actor.dialogue is not None else actor.actor_label
        grid.add_column(f"{n + 1} {sides}", ratio=1)
    for row in comparison.conversation:
        grid.add_row(str(row.turn), *(_cell(cell) for cell in row.cells))
    title = Text("Conversation", style="bold")
    title.append(f"  ({CONVERSATION_HINT})", style="dim")
    return Group(title, grid)
