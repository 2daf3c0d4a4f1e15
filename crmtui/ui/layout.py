"""Which layout the play screen uses for a terminal size (pure: no textual import).

* ``wide`` (>= 150 columns): every region side by side, as designed for 160x48;
* ``narrow`` (120x36 and similar): the side regions yield width to the tables;
* ``compact`` (below 100 columns or 32 rows, down to 80x24): the task context becomes a
  tab beside Browse / Console / Schema, the query and answer shrink to a few lines, and any
  region can be maximised (F10);
* ``too-small`` (below :data:`MIN_SIZE`): a notice asks for a bigger terminal instead of a
  layout nobody can use.
"""

from __future__ import annotations

#: Smallest terminal the play screen lays out (columns, rows).
MIN_SIZE = (70, 20)
#: Below this many columns or rows the compact layout is used.
COMPACT_BELOW = (100, 32)
#: Below this many columns the narrow layout is used.
NARROW_BELOW = 150

MODES = ("wide", "narrow", "compact", "too-small")


def layout_mode(width: int, height: int) -> str:
    """The layout for a ``width`` x ``height`` terminal (one of :data:`MODES`)."""
    if width < MIN_SIZE[0] or height < MIN_SIZE[1]:
        return "too-small"
    if width < COMPACT_BELOW[0] or height < COMPACT_BELOW[1]:
        return "compact"
    if width < NARROW_BELOW:
        return "narrow"
    return "wide"


def too_small_notice(width: int, height: int) -> str:
    """What the screen says when the terminal is below :data:`MIN_SIZE`."""
    need_w, need_h = MIN_SIZE
    return (
        f"The terminal is {width}x{height}; the play screen needs at least "
        f"{need_w}x{need_h} (80x24 or more is comfortable).\n"
        "Enlarge the window or make the font smaller. The instance is hidden meanwhile; "
        "F7 pauses the clock."
    )
