"""Small text helpers shared by the comparison and report renderers."""

from __future__ import annotations

from collections.abc import Sequence

from crmtui.play.timing import format_duration
from crmtui.sanitise import printable

DASH = "—"


def md_escape(text: object, limit: int | None = None) -> str:
    """A Markdown table cell: one line, pipes escaped, optionally shortened with ``…``.

    Control and bidi characters (from recordings: answers, names) are shown escaped.
    """
    value = printable(" ".join(str(text).split()))
    if limit is not None and len(value) > limit:
        value = value[: limit - 1] + "…"
    return value.replace("\\", "\\\\").replace("|", "\\|")


def md_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A GitHub-flavoured Markdown table (cells already formatted)."""
    lines = ["| " + " | ".join(md_escape(h) for h in headers) + " |"]
    lines.append("|" + "|".join("---" for _ in headers) + "|")
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def duration(seconds: float | None) -> str:
    """``M:SS`` or ``H:MM:SS`` in whole seconds, as the live clock shows it (so a report
    reads what the annotator saw at the submit); a dash for None."""
    if seconds is None:
        return DASH
    return format_duration(seconds)


def cost(value: float | None) -> str:
    """US dollars with four decimals; a dash for unknown."""
    return DASH if value is None else f"${value:.4f}"


def number(value: float | None, digits: int = 1) -> str:
    """A number with thousands separators, integers without decimals; dash for None."""
    if value is None:
        return DASH
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.{digits}f}"


def reward(value: float | None) -> str:
    """A reward: ``1``/``0`` for exact match, three decimals for F1; dash for None."""
    if value is None:
        return DASH
    return f"{value:g}" if value in (0, 1) else f"{value:.3f}"
