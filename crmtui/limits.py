"""Limits on values that cross package lines (task files, recordings, exports).

Kept here, below every package, so that ``data`` and ``record`` check an instance's ``idx``
the same way without one importing the other.
"""

from __future__ import annotations

#: Largest integer a recording or export holds (Arrow stores integers as int64).
MAX_INT64 = 2**63 - 1
#: Largest ``idx`` accepted anywhere.
MAX_IDX = MAX_INT64
#: User replies allowed in a multi-turn episode before it ends without an answer
#: (upstream's default). Here, not in :mod:`crmtui.play.dialogue`, so the CLI's options
#: name it without importing the dialogue core (~6 ms of every ``crmtui play`` start).
DEFAULT_MAX_USER_TURNS = 10


def idx_range_problem(idx: int) -> str | None:
    """What is wrong with ``idx`` as an instance idx (``None``: nothing).

    Huge values are described by their size: ``str()`` of an int of thousands of digits
    raises.
    """
    if 0 <= idx <= MAX_IDX:
        return None
    shown = str(idx) if abs(idx) < 10**30 else f"of {int(idx.bit_length() * 0.30103) + 1} digits"
    return f"idx {shown} is out of range (0 to {MAX_IDX})"
