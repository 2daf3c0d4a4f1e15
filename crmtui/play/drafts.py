"""What a resumed session puts back on screen: the latest drafts, the queries, the time.

After a crash the recording is all there is. :func:`fold_drafts` reads it once and returns
the latest text of every draft-like event (the answer box, the console editor, the notes, and
any other event listed in :data:`DRAFT_EVENTS`), the queries run (for the console history) and the
active time already spent, so the play screen can restore them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from crmtui.record import events as ev
from crmtui.record.timing import session_times

#: Events whose ``text`` payload is the latest state of an editable region.
DRAFT_EVENTS: frozenset[str] = frozenset({ev.ANSWER_EDIT, ev.EDITOR_EDIT, ev.NOTE_EDIT})


@dataclass(frozen=True)
class Drafts:
    """The state a recording leaves behind.

    Attributes:
        texts: Latest ``text`` per draft event type (``answer_edit``, ``editor_edit``,
            ``note_edit``).
        queries: Console queries in the order they ran (repeats kept once, latest last).
        active_ms: Active time recorded so far (:mod:`crmtui.record.timing`).
        submitted: Whether the recording already holds a submit.
    """

    texts: dict[str, str] = field(default_factory=dict)
    queries: tuple[str, ...] = ()
    active_ms: int = 0
    submitted: bool = False

    @property
    def answer(self) -> str:
        """The answer box's last recorded text."""
        return self.texts.get(ev.ANSWER_EDIT, "")

    @property
    def editor(self) -> str:
        """The console editor's last recorded text."""
        return self.texts.get(ev.EDITOR_EDIT, "")

    @property
    def notes(self) -> str:
        """The notes' last recorded text."""
        return self.texts.get(ev.NOTE_EDIT, "")


def fold_drafts(events: Iterable[ev.Event]) -> Drafts:
    """Fold a recording's events into :class:`Drafts`."""
    events = list(events)
    texts: dict[str, str] = {}
    queries: dict[str, None] = {}
    submitted = False
    for event in events:
        if event.type in DRAFT_EVENTS:
            texts[event.type] = event.payload["text"]
        elif event.type == ev.RUN_QUERY and event.payload["kind"] in ("soql", "sosl"):
            text = event.payload["text"].strip()
            queries.pop(text, None)
            queries[text] = None
        elif event.type == ev.SUBMIT:
            submitted = True
            texts[ev.ANSWER_EDIT] = event.payload["answer"]
    return Drafts(texts, tuple(queries), session_times(events).active_ms, submitted)
