"""Replay as a pure fold: what was on screen after each event of a recording.

:func:`replay` walks a verified :class:`~crmtui.record.verify.Recording` once and returns one
:class:`Frame` per event: the record browser's view (rebuilt from the browse events, with
back/forward replayed through the same :class:`~crmtui.play.history.History` the browser
uses), the console's last query, the answer box, the submission, the pause state, active
time and, for model sessions, how much of the transcript had been written. Nothing here
touches the org, a clock or a widget; re-running queries is the screen's job. Finding the
recorded org and checking it is :mod:`crmtui.review.replay_org`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from crmtui.play.history import History
from crmtui.play.views import Condition, RecordView, TableView, View
from crmtui.record import events as ev
from crmtui.record.timing import Timeline
from crmtui.record.verify import Recording
from crmtui.review.trajectory import scratch_detail

__all__ = [
    "SPEEDS",
    "ComputeStep",
    "Frame",
    "QueryStep",
    "Replay",
    "Submission",
    "TranscriptLine",
    "change_speed",
    "frames",
    "is_error",
    "is_query",
    "is_scratch",
    "is_submit",
    "next_index",
    "next_view",
    "play_delay",
    "replay",
    "summarize",
]


@dataclass(frozen=True)
class QueryStep:
    """A query the actor ran (``run_query``), as recorded.

    Attributes:
        seq: The event's seq.
        text: The SOQL/SOSL text (for tools, a description of the call).
        kind: ``soql``, ``sosl`` or ``tool``.
        rows: Rows it returned when recorded (None for tools without rows).
        ms: How long it took when recorded.
        error_code: The error code, when it failed.
        error: The error message, when it failed.
        observation: The text a model was shown, when recorded.
    """

    seq: int
    text: str
    kind: str
    rows: int | None
    ms: float
    error_code: str | None
    error: str | None
    observation: str | None = None

    @property
    def failed(self) -> bool:
        """Whether the query errored when it was recorded."""
        return self.error_code is not None or self.error is not None

    @property
    def rerunnable(self) -> bool:
        """Whether the engine can run it again (SOQL/SOSL, not a function-calling tool)."""
        return self.kind in ("soql", "sosl")


@dataclass(frozen=True)
class Submission:
    """The submitted answer and what it earned (the gold answer is revealed only here)."""

    seq: int
    answer: str
    reward: float | None
    scoring: str
    gold: Any


@dataclass(frozen=True)
class ComputeStep:
    """A computation the actor ran with the compute tool, as recorded.

    Attributes:
        seq: The event's seq.
        query: The full-row query it read.
        spec: What it aggregated (``aggregate``, ``group_by``, ``field``, ``start``, ``end``,
            ``unit``).
        columns: The result's columns.
        rows: The result's rows (the first 500).
        groups: How many result rows there were.
        input_rows: Rows it read.
        error: Why it failed, if it did.
        summary: One line saying what it computed.
    """

    seq: int
    query: str
    spec: dict[str, Any]
    columns: list[str]
    rows: list[list[Any]]
    groups: int
    input_rows: int
    error: str | None
    summary: str


@dataclass(frozen=True)
class TranscriptLine:
    """One line of an actor's transcript.

    Attributes:
        seq: The event it came from.
        role: ``model``, ``thought``, ``query``, ``observation``, ``error``, ``answer``,
            ``submit``, ``end``, or in a dialogue ``user`` and ``agent`` (its messages).
        text: What to show.
    """

    seq: int
    role: str
    text: str


class Frame(NamedTuple):
    """The state of the session right after one event.

    A named tuple rather than a frozen dataclass: a long recording has one per event and
    tuples are built about twice as fast (see benchmarks/bench_replay.py).

    Attributes:
        index: 0-based position of the event (``seq - 1``).
        event: The event itself.
        view: The record browser's view (None before any browse action).
        view_query: The SOQL/SOSL recorded with the last browse action.
        can_back: Whether the browser could go back at this point.
        can_forward: Whether it could go forward.
        query: The console's last query (None before the first).
        answer: The answer box's text.
        submission: The submission, once there is one.
        paused: Whether the clock was paused.
        active_ms: Active time at this event, by the one time model
            (:mod:`crmtui.record.timing`: the live clock showed the same), frozen at the
            first submit.
        transcript_len: How many lines of :attr:`Replay.transcript` exist at this point.
        queries: Queries run so far.
        errors: Failed queries so far.
        tokens: Prompt plus completion tokens of model calls so far.
        cost: Cost of model calls so far (None when unknown).
        ended: The ``end`` reason, once the session ended.
        editor: The console editor's text as last recorded (``editor_edit``).
        away: Whether the terminal had lost focus (``app_blur`` without ``app_focus``).
        notes: The notes pane's text.
        computed: The last computation (None before the first).
        copied: The last copy, summarized (what the register held).
        viewed: The last value opened whole in the viewer, summarized.
        scratch: Scratch steps so far (viewer opens, copies, computes, notes edits).
        said: Messages of the conversation so far (a dialogue; :attr:`Replay.conversation`).
    """

    index: int
    event: ev.Event
    view: View | None
    view_query: str | None
    can_back: bool
    can_forward: bool
    query: QueryStep | None
    answer: str
    submission: Submission | None
    paused: bool
    active_ms: int
    transcript_len: int
    queries: int
    errors: int
    tokens: int
    cost: float | None
    ended: str | None
    editor: str = ""
    away: bool = False
    notes: str = ""
    computed: ComputeStep | None = None
    copied: str | None = None
    viewed: str | None = None
    scratch: int = 0
    said: int = 0


@dataclass(frozen=True)
class Replay:
    """A recording folded into frames, plus the transcript the frames index into.

    ``conversation`` holds a dialogue's messages (``user`` / ``agent`` lines), in order.
    """

    recording: Recording
    frames: list[Frame]
    transcript: list[TranscriptLine]
    conversation: list[TranscriptLine] = field(default_factory=list)

    @property
    def is_dialogue(self) -> bool:
        """Whether the recording is a conversation with a user (the multi-turn mode)."""
        return isinstance(self.recording.header.get("dialogue"), dict)

    def conversation_at(self, index: int) -> list[TranscriptLine]:
        """The conversation as it stood at frame ``index``."""
        if not self.frames:
            return []
        return self.conversation[: self.frames[index].said]

    @property
    def is_model(self) -> bool:
        """Whether the actor is a model (the screen then shows the transcript)."""
        return self.recording.header["actor"].get("kind") == "model"

    def transcript_at(self, index: int) -> list[TranscriptLine]:
        """The transcript as it stood at frame ``index``."""
        if not self.frames:
            return []
        return self.transcript[: self.frames[index].transcript_len]


def _filter_value(value: Any) -> str:
    # Condition holds the value as typed; the browser records exactly that string.
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(_filter_value(v) for v in value)
    return str(value)


def _table(current: View | None, obj: str) -> TableView:
    """The table a table action applies to (a fresh one if the browser showed another)."""
    if isinstance(current, TableView) and current.object == obj:
        return current
    return TableView(obj)


def next_view(current: View | None, event: ev.Event) -> View | None:
    """The view a browse event (other than back/forward) leads to, as the browser builds it.

    Returns None for events that do not change the view.
    """
    p = event.payload
    kind = event.type
    if kind == ev.OPEN_OBJECT:
        return TableView(p["object"])
    if kind == ev.SORT:
        table = _table(current, p["object"])
        return replace(table, sort_field=p["field"], sort_desc=p["descending"], cursor_row=0)
    if kind == ev.FILTER:
        table = _table(current, p["object"])
        if p["op"] == "clear":
            return TableView(
                table.object,
                sort_field=table.sort_field,
                sort_desc=table.sort_desc,
                columns=table.columns,
            )
        condition = Condition(p["field"], p["op"], _filter_value(p["value"]))
        return replace(table, conditions=(*table.conditions, condition), cursor_row=0)
    if kind == ev.COLUMNS:
        table = _table(current, p["object"])
        return replace(table, columns=tuple(p["columns"]), cursor_row=0)
    if kind == ev.SEARCH:
        if isinstance(current, TableView):
            return replace(current, search=p["text"].strip(), cursor_row=0)
        return None  # the browser ignores a search without a table
    if kind == ev.OPEN_RECORD:
        return RecordView(p["object"], p["id"])
    if kind == ev.FOLLOW_LINK:
        return RecordView(p["to_object"], p["to_id"])
    return None


def _model_text(payload: dict[str, Any]) -> str:
    content = payload.get("content")
    parts = [content.strip()] if isinstance(content, str) and content.strip() else []
    for call in payload.get("tool_calls") or []:
        if isinstance(call, dict):
            name = call.get("name") or call.get("function", {}).get("name", "?")
            args = call.get("arguments") or call.get("function", {}).get("arguments", "")
            shown = args if isinstance(args, str) else repr(args)
            parts.append(f"→ {name}({shown})")
    if isinstance(payload.get("content_chars"), int) and isinstance(content, str):
        parts.append(f"(reply kept to {len(content):,} of {payload['content_chars']:,} characters)")
    if payload.get("stream_fallback"):
        parts.append("(the streamed reply was empty; repeated without streaming, which stays off)")
    return "\n".join(parts) or "(empty reply)"


class _Fold:
    """Mutable state of the fold; each event updates it and a frozen frame is taken."""

    def __init__(self, timeline: Timeline) -> None:
        #: The clock's accounts (crmtui.record.timing, the one time model).
        self.timeline = timeline
        self.history = History()
        self.view_query: str | None = None
        self.query: QueryStep | None = None
        self.answer = ""
        self.submission: Submission | None = None
        self.paused_at: int | None = None
        self.queries = 0
        self.errors = 0
        self.tokens = 0
        self.cost: float | None = 0.0
        self.ended: str | None = None
        self.editor = ""
        self.away = False
        self.transcript: list[TranscriptLine] = []
        self.notes = ""
        self.computed: ComputeStep | None = None
        self.copied: str | None = None
        self.viewed: str | None = None
        self.scratch = 0
        self.conversation: list[TranscriptLine] = []

    def say(self, seq: int, role: str, text: str) -> None:
        self.transcript.append(TranscriptLine(seq, role, text))

    def apply(self, event: ev.Event) -> None:
        p = event.payload
        kind = event.type
        if kind in ev.BROWSE_TYPES:
            self._browse(event)
        elif kind == ev.RUN_QUERY:
            self._run_query(event)
        elif kind == ev.ANSWER_EDIT:
            self.answer = p["text"]
        elif kind == ev.SUBMIT:
            self.answer = p["answer"]
            self.submission = Submission(
                event.seq, p["answer"], p["reward"], p["scoring"], p["gold"]
            )
            reward = "unscored" if p["reward"] is None else f"reward {p['reward']:.2f}"
            line = f"{p['answer']!r} · {reward} · gold {p['gold']!r}"
            details = p.get("details") or {}
            if details.get("verdict"):
                # privacy_rejection: the verdict and why (the rules judge's reason, or the
                # judge model's reply, whose call is the score_call just before).
                line += f" · judged {details['verdict']} by {details.get('judge')}"
                line += f": {details.get('reply')!r}"
            self.say(event.seq, "submit", line)
        elif kind == ev.PAUSE:
            if self.paused_at is None:
                self.paused_at = event.ms
        elif kind == ev.RESUME:
            self.paused_at = None
        elif kind == ev.MODEL_CALL:
            self.tokens += p["prompt_tokens"] + p["completion_tokens"]
            self.cost = None if self.cost is None or p["cost"] is None else self.cost + p["cost"]
            self.say(event.seq, "model", _model_text(p))
        elif kind == ev.THOUGHT:
            self.say(event.seq, "thought", p["text"])
        elif kind == ev.SCORE_CALL:
            self.say(event.seq, p["role"], score_call_text(p))
        elif kind == ev.END:
            self.ended = p["reason"]
            self.say(event.seq, "end", f"session ended: {p['reason']}")
        elif kind == ev.EDITOR_EDIT:
            self.editor = p["text"]
        elif kind in (ev.APP_BLUR, ev.APP_FOCUS):
            self.away = kind == ev.APP_BLUR
        elif kind in ev.SCRATCH_TYPES:
            self._scratch(event)
        elif kind in ev.DIALOGUE_TYPES:
            role = "user" if kind == ev.USER_MESSAGE else "agent"
            line = TranscriptLine(event.seq, role, p["text"])
            self.conversation.append(line)
            self.transcript.append(line)

    def _scratch(self, event: ev.Event) -> None:
        p = event.payload
        self.scratch += 1
        if event.type == ev.NOTE_EDIT:
            self.notes = p["text"]
        elif event.type == ev.COPY:
            self.copied = scratch_detail(event)
        elif event.type == ev.VIEW_VALUE:
            self.viewed = scratch_detail(event)
        else:  # compute
            self.computed = ComputeStep(
                event.seq,
                p["query"],
                dict(p["spec"]),
                list(p["columns"]),
                [list(row) for row in p["rows"]],
                p["groups"],
                p["input_rows"],
                p.get("error"),
                scratch_detail(event),
            )

    def _browse(self, event: ev.Event) -> None:
        if event.type == ev.BACK:
            moved = self.history.back()
        elif event.type == ev.FORWARD:
            moved = self.history.forward()
        else:
            moved = next_view(self.history.current, event)
            if moved is not None and event.payload.get("same_step"):
                self.history.replace(moved)  # completes the view just opened (View All)
            elif moved is not None:
                self.history.visit(moved)
        if moved is not None:
            self.view_query = event.payload.get("query")

    def _run_query(self, event: ev.Event) -> None:
        p = event.payload
        step = QueryStep(
            event.seq,
            p["text"],
            p["kind"],
            p["rows"],
            float(p["ms"]),
            p["error_code"],
            p["error"],
            p.get("observation"),
        )
        self.query = step
        self.queries += 1
        label = f"{p.get('tool', 'tool')}: " if p["kind"] == "tool" else ""
        self.say(event.seq, "query", label + p["text"])
        if step.failed:
            self.errors += 1
        if step.observation is not None:
            self.say(event.seq, "error" if step.failed else "observation", step.observation)
        elif step.failed:
            self.say(event.seq, "error", f"{p['error_code'] or 'ERROR'}: {p['error'] or ''}")
        else:
            self.say(event.seq, "observation", f"{p['rows']} rows")

    def frame(self, index: int, event: ev.Event) -> Frame:
        active = self.timeline.at(event.ms).active_ms
        return Frame(
            index=index,
            event=event,
            view=self.history.current,
            view_query=self.view_query,
            can_back=self.history.can_go_back,
            can_forward=self.history.can_go_forward,
            query=self.query,
            answer=self.answer,
            submission=self.submission,
            paused=self.paused_at is not None,
            active_ms=active,
            transcript_len=len(self.transcript),
            queries=self.queries,
            errors=self.errors,
            tokens=self.tokens,
            cost=self.cost,
            ended=self.ended,
            editor=self.editor,
            away=self.away,
            notes=self.notes,
            computed=self.computed,
            copied=self.copied,
            viewed=self.viewed,
            scratch=self.scratch,
            said=len(self.conversation),
        )


def replay(recording: Recording) -> Replay:
    """Fold a recording into one frame per event (pure; no org, clock or UI)."""
    fold = _Fold(Timeline(recording.events, recording.header.get("started_at")))
    frames = []
    for index, event in enumerate(recording.events):
        fold.apply(event)
        frames.append(fold.frame(index, event))
    return Replay(recording, frames, fold.transcript, fold.conversation)


def frames(recording: Recording) -> list[Frame]:
    """The state after each event of ``recording`` (see :func:`replay`)."""
    return replay(recording).frames


# --- navigation (the timeline's jumps) --------------------------------------------------


def is_query(event: ev.Event) -> bool:
    """A ``run_query`` event."""
    return event.type == ev.RUN_QUERY


def is_error(event: ev.Event) -> bool:
    """A failed ``run_query`` (recorded with an error code or message)."""
    p = event.payload
    return event.type == ev.RUN_QUERY and (
        p.get("error_code") is not None or p.get("error") is not None
    )


def score_call_text(payload: dict[str, Any]) -> str:
    """A scoring model's call for the transcript: who, its verdict or extraction, its whole
    reply, and what it read (so a person can judge the same text again)."""
    if payload.get("error"):
        head = f"{payload['model']} failed: {payload['error']}"
    else:
        head = f"{payload['model']} → {payload.get('result')!r}; reply {payload.get('reply')!r}"
    return f"{head}\nread:\n{payload['input']}"


def is_scratch(event: ev.Event) -> bool:
    """A scratch step: a value opened whole, a copy, a compute, a notes edit."""
    return event.type in ev.SCRATCH_TYPES


def is_submit(event: ev.Event) -> bool:
    """A ``submit`` event."""
    return event.type == ev.SUBMIT


def next_index(
    events: Sequence[ev.Event], index: int, matches: Callable[[ev.Event], bool]
) -> int | None:
    """The first event after position ``index`` that ``matches``, or None."""
    for position in range(index + 1, len(events)):
        if matches(events[position]):
            return position
    return None


#: Playback speeds the timeline cycles through with + and -.
SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 64.0)
MIN_DELAY_S = 0.05
MAX_DELAY_S = 2.0


def play_delay(previous_ms: int, next_ms: int, speed: float) -> float:
    """Seconds to wait before showing the next frame during playback.

    The recorded gap is scaled by ``speed`` and clamped so long think-times do not stall
    playback and bursts stay visible.
    """
    gap = max(0, next_ms - previous_ms) / 1000 / max(speed, 1e-6)
    return min(MAX_DELAY_S, max(MIN_DELAY_S, gap))


def change_speed(speed: float, step: int) -> float:
    """The next speed up (``step`` > 0) or down from :data:`SPEEDS`, clamped at the ends."""
    nearest = min(range(len(SPEEDS)), key=lambda i: abs(SPEEDS[i] - speed))
    return SPEEDS[max(0, min(len(SPEEDS) - 1, nearest + step))]


def summarize(event: ev.Event) -> str:
    """A one-line summary of an event for the event list."""
    p = event.payload
    kind = event.type
    if kind == ev.OPEN_OBJECT:
        return p["object"]
    if kind == ev.SORT:
        return f"{p['object']} by {p['field']}{' desc' if p['descending'] else ''}"
    if kind == ev.FILTER:
        if p["op"] == "clear":
            return f"{p['object']}: clear filters"
        return f"{p['object']}: {p['field']} {p['op']} {_filter_value(p['value'])}"
    if kind == ev.COLUMNS:
        return f"{p['object']} columns: {', '.join(p['columns']) or 'its own fields'}"
    if kind == ev.SEARCH:
        return repr(p["text"])
    if kind == ev.OPEN_RECORD:
        return f"{p['object']} {p['id']}"
    if kind == ev.FOLLOW_LINK:
        return f"{p['from_object']}.{p['field']} → {p['to_object']} {p['to_id']}"
    if kind == ev.RUN_QUERY:
        outcome = f"✘ {p['error_code'] or 'error'}" if is_error(event) else f"{p['rows']} rows"
        return f"{' '.join(p['text'].split())} · {outcome}"
    if kind == ev.ANSWER_EDIT:
        return repr(p["text"])
    if kind == ev.SUBMIT:
        reward = "unscored" if p["reward"] is None else f"reward {p['reward']:.2f}"
        return f"{p['answer']!r} · {reward}"
    if kind == ev.IDLE:
        return f"{p['seconds']:.0f} s idle"
    if kind == ev.MODEL_CALL:
        text = f"{p['prompt_tokens']}+{p['completion_tokens']} tokens"
        return text + (" · streaming off" if p.get("stream_fallback") else "")
    if kind == ev.THOUGHT:
        return " ".join(p["text"].split())
    if kind == ev.SCORE_CALL:
        outcome = f"error: {p['error']}" if p.get("error") else f"{p.get('result')}"
        return f"{p['role']} {p['model']} · {outcome}"
    if kind == ev.END:
        return p["reason"]
    if kind == ev.USER_MESSAGE:
        return f"{event.actor} (user): {' '.join(p['text'].split())}"
    if kind == ev.AGENT_MESSAGE:
        return f"{event.actor} (agent): {' '.join(p['text'].split())}"
    if kind in ev.SCRATCH_TYPES:
        return scratch_detail(event)
    if kind == ev.RESUME and p.get("reopened"):
        return "reopened"
    if kind == ev.EDITOR_EDIT:
        return " ".join(p["text"].split()) or "(empty editor)"
    if kind == ev.APP_BLUR:
        return "terminal lost focus (away)"
    if kind == ev.APP_FOCUS:
        return "terminal has focus again"
    return ""
