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
#: Largest ``max_user_turns`` a conversation (or a channel's header) may set.
MAX_USER_TURNS_LIMIT = 1000
#: Characters of one message of a conversation, whoever sends it: a person typing or pasting
#: (the message box holds no more), a model agent's ``respond``, a simulated user's reply and
#: a line of a person-to-person channel. One cap, checked where a message enters
#: (:func:`cap_message`; the channel refuses longer lines; the recorder's dialogue core cuts).
MAX_MESSAGE_CHARS = 20_000
#: The note a message cut to :data:`MAX_MESSAGE_CHARS` ends with.
MESSAGE_CUT_NOTE = " [cut by crmtui: messages hold at most 20,000 characters]"


def cap_message(text: str) -> str:
    """``text`` if it fits :data:`MAX_MESSAGE_CHARS`, else its start and
    :data:`MESSAGE_CUT_NOTE`, exactly :data:`MAX_MESSAGE_CHARS` long."""
    if len(text) <= MAX_MESSAGE_CHARS:
        return text
    return text[: MAX_MESSAGE_CHARS - len(MESSAGE_CUT_NOTE)] + MESSAGE_CUT_NOTE


def idx_range_problem(idx: int) -> str | None:
    """What is wrong with ``idx`` as an instance idx (``None``: nothing).

    Huge values are described by their size: ``str()`` of an int of thousands of digits
    raises.
    """
    if 0 <= idx <= MAX_IDX:
        return None
    shown = str(idx) if abs(idx) < 10**30 else f"of {int(idx.bit_length() * 0.30103) + 1} digits"
    return f"idx {shown} is out of range (0 to {MAX_IDX})"
