"""A task text drawn line for line (see :mod:`crmtui.play.guide_text`).

Headings in bold, list items with their marker and a hanging indent at their depth, plain
lines as written; inline ```code``` and ``**bold**`` keep their look. Never Markdown
paragraphs: those joined a guide's lines (and its indented lists) into one.
"""

from __future__ import annotations

import re
from typing import Any

from rich.console import Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from crmtui.play.guide_text import guide_lines

__all__ = ["guide_renderable"]

_INLINE = re.compile(r"`([^`\n]+)`|\*\*([^*\n]+)\*\*")
_BULLETS = {"-": "•", "*": "•", "+": "•", "•": "•"}


def _inline(text: str) -> Text:
    """``text`` with its inline code (cyan) and bold marks drawn, the marks dropped."""
    out = Text()
    at = 0
    for match in _INLINE.finditer(text):
        out.append(text[at : match.start()])
        if match.group(1) is not None:
            out.append(match.group(1), style="cyan")
        else:
            out.append(match.group(2), style="bold")
        at = match.end()
    out.append(text[at:])
    return out


def guide_renderable(text: str | None, empty: str = "-") -> Any:
    """``text`` as a renderable keeping every line (``empty`` when there is none)."""
    parts: list[Any] = []
    for line in guide_lines(text):
        if line.kind == "blank":
            parts.append(Text(""))
        elif line.kind == "heading":
            parts.append(
                Padding(_inline(line.text).copy(), (0, 0, 0, line.depth), style="bold")
                if line.depth
                else Text.assemble(_inline(line.text), style="bold")
            )
        elif line.kind == "item":
            marker = _BULLETS.get(line.marker, line.marker) + " "
            grid = Table.grid(padding=0, expand=True)
            grid.add_column(width=line.depth + len(marker), no_wrap=True)
            grid.add_column(ratio=1)
            grid.add_row(" " * line.depth + marker, _inline(line.text))
            parts.append(grid)
        else:
            body = _inline(line.text)
            parts.append(Padding(body, (0, 0, 0, line.depth)) if line.depth else body)
    return Group(*parts) if parts else Text(empty)
