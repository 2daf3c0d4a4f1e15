"""A play session: one actor solving one instance, with every action recorded.

The Play screen calls these methods; they time, debounce, score and record. Nothing here
imports textual, so the same session drives tests, the TUI and scripted humans.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crmtui.config import DEFAULT_IDLE_THRESHOLD
from crmtui.errors import CrmtuiError
from crmtui.play.drafts import Drafts, fold_drafts
from crmtui.play.scratch import Scratch
from crmtui.play.timing import ActiveTimer
from crmtui.record import events as ev
from crmtui.record.claims import Claim
from crmtui.record.debounce import Debouncer
from crmtui.record.events import BROWSE_TYPES
from crmtui.record.recorder import Recorder

ANSWER_DEBOUNCE_S = 1.0


class SessionError(CrmtuiError):
    """A play-session action that cannot happen now (e.g. submitting twice)."""


@dataclass(frozen=True)
class SessionScore:
    """What a submission earned."""

    reward: float
    method: str
    details: dict[str, Any] = field(default_factory=dict)


Scorer = Callable[..., SessionScore]


def default_scorer(instance: Any, answer: str, actions: Sequence[str] = ()) -> SessionScore:
    """Score with crmtui's default plan (see :mod:`crmtui.scoring.evaluator`).

    CRMArena rows are scored ``strict``, CRMArena-Pro rows by HEAD's evaluator with the rule
    extractor (``head_rules``), and ``privacy_rejection`` rows by the rules judge, which reads
    the person's ``actions`` (typed queries and browse steps as their queries) and answer.
    """
    from crmtui.scoring import ScoringPlan

    result = ScoringPlan().score(instance, answer, actions)
    return SessionScore(float(result.reward), result.method, dict(result.details or {}))


default_scorer.takes_actions = True  # type: ignore[attr-defined]


@dataclass
class PlaySession:
    """State and recording of one attempt at one instance.

    Build with :meth:`begin`; call :meth:`start` when the instance is first shown.
    """

    instance: Any
    org: Any
    recorder: Recorder
    timer: ActiveTimer
    aided: bool = False
    resumed: bool = False
    scorer: Scorer = default_scorer
    debounce_s: float = ANSWER_DEBOUNCE_S
    score: SessionScore | None = None
    #: Why the session ended (its ``end`` event's reason), once closed here.
    end_reason: str | None = None
    #: Wall time of the submit (None: not submitted).
    submitted_at: str | None = None
    #: This session's hold on its instance (crmtui.record.claims); let go at close/suspend.
    claim: Claim | None = None
    #: What a resumed session restores (empty for a new one).
    drafts: Drafts = field(default_factory=Drafts)
    #: The notes a resumed session starts from (the recording's last ``note_edit``).
    notes_restored: str = ""
    _answers: Debouncer[str] | None = None
    _editor: Debouncer[str] | None = None
    _actions: list[str] = field(default_factory=list)
    #: Viewer opens, copies, computes and notes (the register and notes live there).
    scratch: Scratch = field(init=False)

    def __post_init__(self) -> None:
        self._answers = self._debouncer("answer_edit")
        self._editor = self._debouncer("editor_edit")
        self.scratch = Scratch(
            self._emit,
            clock=self.timer.clock,
            notes=self.notes_restored,
            debounce_s=self.debounce_s,
        )

    def _debouncer(self, event_type: str) -> Debouncer[str]:
        return Debouncer(
            lambda text: self._emit(event_type, {"text": text}),
            window_ms=self.debounce_s * 1000,
            clock=self.timer.clock,
        )

    @classmethod
    def begin(
        cls,
        instance: Any,
        org: Any,
        *,
        actor: dict[str, Any],
        tasks_source: str,
        recordings: str | Path | None = None,
        aided: bool = False,
        idle_threshold: float = DEFAULT_IDLE_THRESHOLD,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], dt.datetime] | None = None,
        scorer: Scorer = default_scorer,
        fsync: bool = True,
        claim: Claim | None = None,
    ) -> PlaySession:
        """Create the recording (header written) and the session around it.

        ``claim`` (the instance's, :mod:`crmtui.record.claims`) is let go when the session
        closes or is suspended; if the recording cannot be created it stays the caller's.
        """
        recorder = Recorder.create(
            recordings,
            actor=actor,
            instance=instance,
            org=org,
            tasks_source=tasks_source,
            today=instance.today,
            mode="aided" if aided else "default",
            wall=wall,
            monotonic=clock,
            fsync=fsync,
            sync_later=True,  # a person is typing: no event waits for the disk
        )
        session = cls(
            instance=instance,
            org=org,
            recorder=recorder,
            timer=ActiveTimer(clock=clock, idle_threshold=idle_threshold),
            aided=aided,
            scorer=scorer,
            claim=claim,
        )
        # The clock starts with the recording (ms 0), so the live clock and the fold of the
        # recording measure from the same moment.
        session.timer.start(at=recorder.started_monotonic)
        return session

    @classmethod
    def resume_from(
        cls,
        path: str | Path,
        instance: Any,
        org: Any,
        *,
        aided: bool = False,
        idle_threshold: float = DEFAULT_IDLE_THRESHOLD,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], dt.datetime] | None = None,
        scorer: Scorer = default_scorer,
        fsync: bool = True,
        claim: Claim | None = None,
    ) -> PlaySession:
        """Continue an unfinished recording (a ``resume`` event continues its hash chain).

        The drafts (answer, editor text, notes, queries) and the active time the recording
        holds are folded into :attr:`drafts` for the screen to restore.
        """
        from crmtui.record.verify import load

        recorder = Recorder.resume(
            path,
            wall=wall,
            monotonic=clock,
            fsync=fsync,
            sync_later=True,
            idle_after=idle_threshold,
        )
        drafts = fold_drafts(load(recorder.path).events)
        timer = ActiveTimer(
            clock=clock, idle_threshold=idle_threshold, carried=drafts.active_ms / 1000
        )
        timer.start(at=recorder.started_monotonic)
        session = cls(
            instance=instance,
            org=org,
            recorder=recorder,
            timer=timer,
            aided=aided,
            resumed=True,
            scorer=scorer,
            drafts=drafts,
            notes_restored=drafts.notes,
            claim=claim,
        )
        # The restored texts are what the recording already holds: not new edits.
        session._answers.mark_emitted(drafts.answer)  # type: ignore[union-attr]
        session._editor.mark_emitted(drafts.editor)  # type: ignore[union-attr]
        return session

    # -- state -----------------------------------------------------------------------------

    @property
    def actor_label(self) -> str:
        """``human: alice`` (``(resumed)`` when continuing a crashed session)."""
        actor = self.recorder.header.get("actor", {})
        label = f"{actor.get('kind', 'human')}: {actor.get('id', '?')}"
        return label + " (resumed)" if self.resumed else label

    @property
    def answer_restored(self) -> str:
        """The answer a resumed session starts from (its recording's last answer edit)."""
        return self.drafts.answer

    @property
    def today(self) -> dt.date | None:
        """The instance's "today" (queries' date literals are relative to it)."""
        return self.instance.today

    @property
    def active_seconds(self) -> float:
        """Active time so far (pauses and idle periods excluded)."""
        return self.timer.active()

    @property
    def paused(self) -> bool:
        """Whether the clock is paused."""
        return self.timer.paused

    @property
    def submitted(self) -> bool:
        """Whether an answer has been submitted."""
        return self.score is not None

    @property
    def path(self) -> Path:
        """The recording file."""
        return self.recorder.path

    # -- actions ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start the clock, if :meth:`begin` or :meth:`resume_from` did not (they do)."""
        if not self.timer.started:
            self.timer.start()

    def note_input(self) -> None:
        """Register user input; records an ``idle`` event when it ends a long gap."""
        idle = self.timer.note_input()
        if idle is not None and not self.recorder.closed:
            self.recorder.emit(
                "idle", {"seconds": round(idle, 3), "idle_after": self.timer.idle_threshold}
            )

    def record_browse(self, event_type: str, payload: dict[str, Any]) -> None:
        """Record a browse action (open_object, sort, filter, search, ...)."""
        self._emit(event_type, payload)

    def record_query(
        self,
        text: str,
        kind: str,
        rows: int,
        ms: float,
        error_code: str | None,
        error: str | None,
    ) -> None:
        """Record a console query and its outcome."""
        self._emit(
            "run_query",
            {
                "text": text,
                "kind": kind,
                "rows": int(rows),
                "ms": round(float(ms), 3),
                "error_code": error_code,
                "error": error,
            },
        )

    def answer_edited(self, text: str) -> None:
        """Note an answer edit; edits within the debounce window become one event."""
        if not self.submitted and self._answers is not None:
            self._answers.push(text)

    def editor_edited(self, text: str) -> None:
        """Note a console editor edit; edits within the debounce window become one event."""
        if self._editor is not None and not self.recorder.closed:
            self._editor.push(text)

    def record_focus(self, focused: bool) -> None:
        """Record that the terminal lost (``app_blur``) or regained (``app_focus``) focus."""
        if not self.recorder.closed:
            self._emit("app_focus" if focused else "app_blur", {})

    def flush_pending(self, force: bool = False) -> None:
        """Record pending answer and editor edits once settled (or now, when ``force``)."""
        if self.recorder.closed:
            return
        for debouncer in (self._answers, self._editor):
            if debouncer is None:
                continue
            if force:
                debouncer.flush()
            else:
                debouncer.poll()
        self.scratch.flush(force)

    def submit(self, answer: str) -> SessionScore:
        """Score ``answer``, record it with the revealed gold answer, and return the score."""
        if self.submitted:
            raise SessionError("this instance was already submitted")
        self.flush_pending(force=True)
        if getattr(self.scorer, "takes_actions", False):
            score = self.scorer(self.instance, answer, actions=tuple(self._actions))
        else:
            score = self.scorer(self.instance, answer)
        self.note_input()  # a submit with no key (time's up) still ends the gap under way
        self.timer.stop()
        event = self._emit(
            "submit",
            {
                "answer": answer,
                "reward": score.reward,
                "scoring": score.method,
                "gold": self.instance.answer,
                "details": score.details,
            },
        )
        self.score = score
        self.submitted_at = event.t
        return score

    def pause(self, reason: str | None = None) -> bool:
        """Stop the clock (the screen hides the instance). False if already paused.

        Args:
            reason: None for the annotator's pause (F7); a word (``disconnect``, ``quit``)
                when the app lets go of the session without ending it (:meth:`suspend`).
        """
        if not self.timer.running:
            return False
        self.note_input()  # the gap the pause ends, recorded before the pause
        self.timer.pause()
        self.flush_pending(force=True)
        self._emit("pause", {} if reason is None else {"reason": reason})
        return True

    def resume(self) -> None:
        """Restart the clock after a pause."""
        if self.timer.paused:
            self.timer.resume()
            self._emit("resume", {})

    def close(self, reason: str = "finished") -> None:
        """Write the ``end`` event (idempotent)."""
        if self.recorder.closed:
            return
        self.flush_pending(force=True)
        reward = self.score.reward if self.score else None
        try:
            self.recorder.close(reason, reward)
        finally:
            self._release_claim()
        self.end_reason = reason

    def suspend(self, reason: str = "disconnect") -> None:
        """Save pending work, stop the clock and release the recording without an ``end``.

        For an exit that leaves the attempt to resume (a dropped connection, a server
        restart, a closed terminal, Ctrl+Q): the clock stops here with a ``pause`` carrying
        ``reason`` (the time since the last input counts up to the idle threshold), and the
        recording stays unfinished, so the next start resumes it. Idempotent, and a no-op
        once the session is closed.
        """
        if self.recorder.closed:
            return
        try:
            if self.timer.running:
                self.pause(reason)
            self.flush_pending(force=True)
        finally:
            try:
                self.recorder.suspend()
            finally:
                self._release_claim()

    def _release_claim(self) -> None:
        if self.claim is not None:
            self.claim.release()

    def _emit(self, event_type: str, payload: dict[str, Any]) -> ev.Event:
        if self.recorder.closed:
            raise SessionError("the session is closed; open the instance again to continue")
        event = self.recorder.emit(event_type, payload)
        # What a privacy judge reads: each query, typed or stood for by a browse step.
        query = payload.get("text") if event_type == "run_query" else payload.get("query")
        if isinstance(query, str) and (event_type == "run_query" or event_type in BROWSE_TYPES):
            self._actions.append(query)
        return event
