"""Task texts (guides, policies, domain details, queries) read line by line, structure kept.

A task's metadata is written with line structure: headings, plain lines, and lists whose
items are indented under the line that introduces them (CRMArena-Pro's activity-priority
guide lists each stage's activities four spaces in, under the stage). Read as Markdown, a
line that follows a plain line joins its paragraph and an indented item is a continuation
of it, so the whole guide became one paragraph. :func:`guide_lines` keeps every source line
a line of its own, with its depth, and says what it is; the play screen draws them
(``crmtui/ui/widgets/guide.py``) the way ``crmtui tasks show`` prints them: line for line.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

__all__ = ["GuideLine", "guide_lines", "plain_words"]

_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_ITEM = re.compile(r"^([-*+•]|\d{1,3}[.)])\s+(.*)$")


@dataclass(frozen=True)
class GuideLine:
    """One line of a task text.

    Attributes:
        kind: ``heading``, ``item`` (a list item), ``text`` or ``blank``.
        depth: Columns of indentation after the whole text is dedented.
        text: The line without its indentation, heading marks or item marker.
        marker: The item's marker (``-``, ``1.``), else "".
        level: A heading's level (``#`` is 1), else 0.
    """

    kind: str
    depth: int
    text: str
    marker: str = ""
    level: int = 0


def guide_lines(text: str | None) -> list[GuideLine]:
    """Every line of ``text``, dedented as a whole (CRMArena-Pro's texts are indented blocks),
    in order; blank runs become one blank line, and none leads or trails."""
    source = textwrap.dedent((text or "").expandtabs(4)).strip("\n")
    lines: list[GuideLine] = []
    for raw in source.splitlines():
        stripped = raw.strip()
        if not stripped:
            if lines and lines[-1].kind != "blank":
                lines.append(GuideLine("blank", 0, ""))
            continue
        depth = len(raw) - len(raw.lstrip(" "))
        heading = _HEADING.match(stripped)
        item = _ITEM.match(stripped)
        if heading:
            lines.append(
                GuideLine("heading", depth, heading.group(2).strip(), level=len(heading.group(1)))
            )
        elif item:
            lines.append(GuideLine("item", depth, item.group(2).rstrip(), marker=item.group(1)))
        else:
            lines.append(GuideLine("text", depth, stripped))
    while lines and lines[-1].kind == "blank":
        lines.pop()
    return lines


def plain_words(line: str) -> str:
    """A line's words without inline marks (backticks, bold), for comparing texts."""
    return " ".join(line.replace("`", "").replace("**", "").split())
