"""Where an unfinished recording left off: what a resumed session starts from.

A session resumed after a dropped connection, a closed terminal or a crash should look as
it was left: the notes, the answer as typed, and the active time already spent (so a
study's time limit counts the whole attempt, not each connection separately).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from crmtui.record import events as ev


@dataclass(frozen=True)
class ResumePoint:
    """The state an unfinished recording last recorded.

    Attributes:
        notes: The last ``note_edit`` text ("" when none).
        answer: The last ``answer_edit`` text ("" when none).
        active_s: Active seconds recorded so far: elapsed minus pauses and idle periods,
            the same rule the session summary uses.
    """

    notes: str = ""
    answer: str = ""
    active_s: float = 0.0


def resume_point(path: str | os.PathLike[str]) -> ResumePoint:
    """Read an unfinished recording's resume point.

    The recording is read leniently (a partial last line, as a killed process leaves it, is
    ignored): resuming it repairs the file anyway.
    """
    from crmtui.record.verify import scan

    _, _, events = scan(path)
    notes = answer = ""
    paused = idle = 0
    paused_at: int | None = None
    for event in events:
        if event.type == ev.NOTE_EDIT:
            notes = event.payload["text"]
        elif event.type == ev.ANSWER_EDIT:
            answer = event.payload["text"]
        elif event.type == ev.PAUSE and paused_at is None:
            paused_at = event.ms
        elif event.type == ev.RESUME and paused_at is not None:
            paused += event.ms - paused_at
            paused_at = None
        elif event.type == ev.IDLE:
            idle += round(float(event.payload["seconds"]) * 1000)
    elapsed = events[-1].ms if events else 0
    if paused_at is not None:  # left while paused
        paused += elapsed - paused_at
    return ResumePoint(notes, answer, max(0, elapsed - paused - idle) / 1000)
