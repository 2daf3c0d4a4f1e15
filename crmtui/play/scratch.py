"""The annotator's scratch work in a play session: viewer opens, copies, computes, notes.

These are the steps a human takes besides browsing and querying. Each is recorded, so a
human's trajectory stays complete (replay shows them, compare counts them). The copy
register (the last value copied) and the notes text live here too, so the session, not a
widget, owns them and a resumed session gets its notes back (:class:`crmtui.play.drafts.Drafts`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from crmtui.play.cells import ValueRef
from crmtui.play.compute import ComputeRun, ComputeSpec
from crmtui.record import events as ev
from crmtui.record.debounce import Debouncer

NOTES_DEBOUNCE_S = 1.0
#: A copy event keeps at most this much of the value (its full length is recorded too).
COPY_VALUE_LIMIT = ev.COPY_VALUE_LIMIT
#: A compute event keeps at most this many result rows.
COMPUTE_ROWS_LIMIT = ev.COMPUTE_ROWS_LIMIT

Emit = Callable[[str, dict[str, Any]], None]


@dataclass(frozen=True)
class Copied:
    """The register: the last value copied and where it came from."""

    text: str
    ref: ValueRef
    what: str


def _round(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, str | int | bool) or value is None:
        return value
    return str(value)


class Scratch:
    """Records scratch steps through ``emit`` and holds the register and the notes.

    Args:
        emit: Records one event (the session's emitter; raises once the session closed).
        clock: Monotonic seconds, for debouncing note edits.
        notes: The notes text to start from (a resumed session's last notes).
        debounce_s: Quiet time before a burst of note edits becomes one ``note_edit``.
    """

    def __init__(
        self,
        emit: Emit,
        *,
        clock: Callable[[], float] = time.monotonic,
        notes: str = "",
        debounce_s: float = NOTES_DEBOUNCE_S,
    ) -> None:
        self._emit = emit
        self.notes = notes
        self.register: Copied | None = None
        #: The last summary (a ComputeSpec) computed per source, (kind, object): the compute
        #: tool reopens on it within the instance, as a report keeps its groups.
        self.compute_forms: dict[tuple[str, str | None], Any] = {}
        self._notes = Debouncer(
            lambda text: emit(ev.NOTE_EDIT, {"text": text}),
            window_ms=debounce_s * 1000,
            clock=clock,
        )

    def viewed(self, ref: ValueRef, length: int) -> None:
        """A value was opened in the viewer."""
        self._emit(
            ev.VIEW_VALUE,
            {
                "source": ref.source,
                "object": ref.object,
                "record": ref.record,
                "field": ref.field,
                "length": int(length),
            },
        )

    def copied(self, ref: ValueRef, text: str, what: str = "value") -> Copied:
        """A value (``what``: ``value`` or ``row``) was copied: record it and keep it."""
        self._emit(
            ev.COPY,
            {
                "source": ref.source,
                "object": ref.object,
                "record": ref.record,
                "field": ref.field,
                "what": what,
                "value": text[:COPY_VALUE_LIMIT],
                "length": len(text),
            },
        )
        self.register = Copied(text, ref, what)
        return self.register

    def computed(
        self,
        run: ComputeRun,
        *,
        source: str,
        object_name: str | None,
        summary_query: str | None = None,
    ) -> None:
        """A computation finished: record its inputs and (the first rows of) its result.

        Args:
            run: The computation.
            source: ``table`` (a browser view) or ``console`` (a console query).
            object_name: The view's object (None for a console query).
            summary_query: The SOQL aggregate query the summary equals, when SOQL has one
                (:func:`crmtui.play.summary.summary_soql`).
        """
        result = run.result
        extra = {"summary_query": summary_query} if summary_query else {}
        self._emit(
            ev.COMPUTE,
            {
                **extra,
                "source": source,
                "object": object_name,
                "query": run.query,
                "spec": run.spec.to_dict(),
                "input_rows": result.input_rows,
                "skipped": result.skipped,
                "columns": list(result.columns),
                "rows": [[_round(v) for v in row] for row in result.rows[:COMPUTE_ROWS_LIMIT]],
                "groups": len(result.rows),
                "ms": round(float(run.ms), 3),
            },
        )

    def compute_failed(
        self, query: str, spec: ComputeSpec, error: str, *, source: str, object_name: str | None
    ) -> None:
        """A computation could not run (bad column, non-numeric values, query error)."""
        self._emit(
            ev.COMPUTE,
            {
                "source": source,
                "object": object_name,
                "query": query,
                "spec": spec.to_dict(),
                "input_rows": 0,
                "skipped": 0,
                "columns": [],
                "rows": [],
                "groups": 0,
                "ms": 0.0,
                "error": error,
            },
        )

    def notes_edited(self, text: str) -> None:
        """The notes changed; bursts of edits become one ``note_edit`` event."""
        if text == self.notes:
            return
        self.notes = text
        self._notes.push(text)

    def flush(self, force: bool = False) -> None:
        """Record pending note edits once settled (or now, when ``force``)."""
        if force:
            self._notes.flush()
        else:
            self._notes.poll()
