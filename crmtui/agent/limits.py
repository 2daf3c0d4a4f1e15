"""Size limits: what an agent is shown of an observation, and what a recording stores.

One query over every OrderItem of the ``full`` org renders a ~10 MB observation, which would
be sent as the next prompt (and stored). crmtui shows the model the first
:data:`DEFAULT_OBSERVATION_CHARS` characters with a note saying so and how to see more;
``--preset head`` keeps upstream's unbounded observations. Independently, a recording
stores at most :data:`STORED_TEXT_CHARS` characters of any one reply, observation or answer,
with the full length beside it, so a runaway model cannot fill the disk.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_OBSERVATION_CHARS",
    "STORED_TEXT_CHARS",
    "cap_observation",
    "cap_stored",
    "truncation_note",
]

#: Characters of one observation shown to the model by default (~10k tokens).
DEFAULT_OBSERVATION_CHARS = 40_000
#: Characters of one text (reply, observation, answer) a recording keeps.
STORED_TEXT_CHARS = 200_000


def truncation_note(shown: int, total: int) -> str:
    """The note appended to a cut observation, telling the agent what happened."""
    return (
        f"\n[Observation truncated by crmtui: showing the first {shown:,} of {total:,} "
        "characters. Narrow the query (fewer fields, a WHERE clause, a LIMIT) to see the rest.]"
    )


def cap_observation(text: str, limit: int | None) -> str:
    """``text`` cut to ``limit`` characters plus :func:`truncation_note` (``None``: as is)."""
    if limit is None or len(text) <= limit:
        return text
    return text[:limit] + truncation_note(limit, len(text))


def cap_stored(text: str | None, limit: int = STORED_TEXT_CHARS) -> tuple[str | None, int | None]:
    """``(text to store, full length when cut else None)``."""
    if text is None or len(text) <= limit:
        return text, None
    return text[:limit], len(text)
