"""The Replay screen: a recorded session stepped through on the play layout.

The frames come from the pure fold (:mod:`crmtui.review.replay`); this screen only sets
widgets from the current frame. The record browser shows the frame's view and the console
re-runs the frame's last query through the engine in its own worker, against the org the
recording names (checked by digest); nothing is recorded here. With the org missing the
events still replay, with the recorded queries and outcomes shown as text.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import (
    DataTable,
    Footer,
    Label,
    Static,
    TabbedContent,
    TabPane,
)

from crmtui.play.views import describe
from crmtui.record import events as ev
from crmtui.review.replay import (
    Frame,
    QueryStep,
    change_speed,
    is_error,
    is_query,
    is_scratch,
    is_submit,
    next_index,
    play_delay,
    summarize,
)
from crmtui.review.replay_org import ReplaySource
from crmtui.scoring.rules import metric_label
from crmtui.ui.screens.compute import ComputeTable
from crmtui.ui.widgets.answer_box import AnswerBox
from crmtui.ui.widgets.console import QueryConsole
from crmtui.ui.widgets.content_table import ContentTable
from crmtui.ui.widgets.notes import NotesPane
from crmtui.ui.widgets.panels import MetadataPanel, QueryPanel, StatusBar
from crmtui.ui.widgets.record_browser import RecordBrowser
from crmtui.ui.widgets.replay_transcript import ReplayTranscript
from crmtui.ui.widgets.timeline import Timeline

from .replay_layout import ReplayLayout, fill_event_table


def _key(name: str, action: str, label: str, show: bool = True) -> Binding:
    # Priority: the event list (a DataTable) would otherwise take left/right/home/end.
    return Binding(name, action, label, show=show, priority=True)


def recorded_outcome(step: QueryStep) -> str:
    """What the recording says a query returned."""
    if step.failed:
        return f"✘ {step.error_code or 'error'}: {step.error or ''}".rstrip(": ")
    rows = "—" if step.rows is None else f"{step.rows:,} rows"
    return f"{rows} in {step.ms:.0f} ms"


class ReplayScreen(ReplayLayout, Screen[None]):
    """Step through a recorded session: the play regions, a timeline and the event list.

    At 80x24 (the compact layout, :mod:`.replay_layout`) the task context and the event
    list are tabs beside Browse and Console instead of side columns.
    """

    CSS_PATH = ["play.tcss", "replay.tcss"]
    BINDINGS = [
        _key("left", "step(-1)", "Prev"),
        _key("right", "step(1)", "Next"),
        _key("home", "jump_start", "Start", show=False),
        _key("end", "jump_end", "End", show=False),
        _key("space", "toggle_play", "Play"),
        _key("plus", "speed(1)", "Faster", show=False),
        _key("equals_sign", "speed(1)", "Faster", show=False),
        _key("minus", "speed(-1)", "Slower", show=False),
        _key("q", "next_query", "Query"),
        _key("e", "next_error", "Error"),
        _key("s", "jump_submit", "Submit"),
        _key("c", "next_scratch", "Next view/copy/compute", show=False),
        Binding("escape", "leave", "Quit"),
        *ReplayLayout.LAYOUT_BINDINGS,
    ]

    def __init__(self, source: ReplaySource, *, start: int = 0) -> None:
        super().__init__()
        self.source = source
        self.replay = source.replay
        self.header = self.replay.recording.header
        self.events = self.replay.recording.events
        self.org = source.org if source.check.available else None
        today = self.header.get("today")
        self.today = dt.date.fromisoformat(today) if today else None
        self.index = -1
        self.speed = 1.0
        self.playing = False
        self._start = start
        self._timer: Timer | None = None
        self._shown_view: Any = None
        self._shown_query: int | None = None
        self._shown_scratch = -1
        self._shown_compute: int | None = None

    # -- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        actor = self.header["actor"]
        inst = self.header["instance"]
        who = actor["id"] + (f" ({actor['strategy']})" if actor.get("strategy") else "")
        self.long_label = f"REPLAY · idx {inst['idx']} · {inst['task']} · {actor['kind']}: {who}"
        self.short_label = f"REPLAY · idx {inst['idx']} · {actor['id']}"
        yield StatusBar(self.long_label, id="status-bar")
        yield Static(self._warning(), id="replay-warning")
        with Horizontal(id="replay-body"):
            yield MetadataPanel(id="metadata-panel")
            with Vertical(id="replay-main"):
                yield QueryPanel(id="query-panel")
                yield Label("", id="replay-view")
                with TabbedContent(id="work-tabs"):
                    # The side columns as tabs, for the compact layout (80x24).
                    with TabPane("Task", id="tab-context"):
                        yield MetadataPanel(id="context-panel")
                    with TabPane("Browse", id="tab-browse"):
                        if self.org is not None:
                            yield RecordBrowser(self.org, self.today, id="record-browser")
                        else:
                            yield Static("", id="browser-offline")
                    with TabPane("Console", id="tab-console"):
                        yield Label("", id="replay-query-note")
                        if self.org is not None:
                            yield QueryConsole(self.org, self.today, id="query-console")
                        else:
                            yield Static("", id="console-offline")
                    with TabPane("Scratch", id="tab-scratch"):
                        yield Static("", id="replay-scratch-note")
                        yield ComputeTable(id="replay-compute")
                    with TabPane("Notes", id="tab-notes"):
                        yield NotesPane(id="notes-pane")
                    with TabPane("Events", id="tab-events"):
                        yield ContentTable(
                            id="event-list-compact", cursor_type="row", zebra_stripes=True
                        )
                        if self.replay.is_model:
                            yield ReplayTranscript(id="replay-transcript-compact")
                yield AnswerBox(id="answer-box")
            with Vertical(id="replay-side"):
                yield ContentTable(id="event-list", cursor_type="row", zebra_stripes=True)
                if self.replay.is_model:
                    yield ReplayTranscript(id="replay-transcript")
        yield Timeline(id="timeline")
        yield Footer()

    def _warning(self) -> str:
        return "" if self.source.check.ok else f"⚠ {self.source.check.message}"

    def on_mount(self) -> None:
        self.query_one("#replay-warning").display = bool(self._warning())
        self.set_class(self.replay.is_model, "model")
        self._show_context()
        self._fill_events()
        self.query_one(AnswerBox).set_read_only()
        self.query_one(NotesPane).set_read_only()
        if self.org is not None:
            self.query_one(QueryConsole).set_read_only()
        events_table = self.query_one("#event-list", DataTable)
        events_table.focus()
        if self.events:
            self.go(max(0, min(self._start, len(self.events) - 1)))
        else:
            self.query_one(Timeline).set_label("this recording has no events yet")
        self.apply_layout(self.size.width, self.size.height)
        if self.layout_name == "compact":
            self.action_show_events()

    def _show_context(self) -> None:
        inst = self.header["instance"]
        instance = self.source.instance
        schema = self.org.schema if self.org is not None else None
        if schema is None:
            from crmtui.data.schema import builtin_schema

            schema = builtin_schema()
        if instance is not None:
            required, optional = instance.metadata.required, instance.metadata.optional
        else:
            required = (
                f"*The task context is not in the recording and its task file "
                f"({self.header['tasks_source']}) is not at hand.*"
            )
            optional = None
        aided = self.header["mode"] == "aided"
        for panel in self.query(MetadataPanel):
            panel.show(
                required,
                optional,
                self.header.get("today"),
                schema,
                aided,
                query=inst["query"],
                # The Task tab (compact layout): the query region above it has two lines.
                with_query=panel.id == "context-panel",
                persona=getattr(instance, "persona", None),
            )
        self.query_one(QueryPanel).show(inst["query"], getattr(instance, "persona", None))

    def _fill_events(self) -> None:
        fill_event_table(self.query_one("#event-list", DataTable), self.events)
        marks: dict[int, str] = {}
        for position, event in enumerate(self.events):
            if is_error(event):
                marks[position] = "error"
            elif is_submit(event):
                marks[position] = "submit"
            elif is_query(event):
                marks[position] = "query"
            elif is_scratch(event):
                marks[position] = "scratch"
        self.query_one(Timeline).set_events([e.ms for e in self.events], marks)

    # -- showing a frame -------------------------------------------------------------------

    @property
    def frame(self) -> Frame | None:
        """The frame on screen."""
        return self.replay.frames[self.index] if self.index >= 0 else None

    def go(self, index: int) -> None:
        """Show the state after event ``index`` (clamped to the recording)."""
        if not self.events:
            return
        index = max(0, min(index, len(self.events) - 1))
        if index == self.index:
            return
        self.index = index
        frame = self.replay.frames[index]
        self._show_status(frame)
        self._show_view(frame)
        self._show_query(frame)
        self._show_answer(frame)
        self._show_scratch(frame)
        if self.replay.is_model:
            lines = self.replay.transcript_at(index)
            for transcript in self.transcripts():
                transcript.show(lines)
        for table in self.event_tables():
            if table.cursor_row != index:
                table.move_cursor(row=index, animate=False)
        timeline = self.query_one(Timeline)
        timeline.position = index
        timeline.set_label(f"#{frame.event.seq} {frame.event.type} · {summarize(frame.event)}")
        if self.keeps_tab():
            if frame.event.type == ev.EDITOR_EDIT and self.org is not None:
                self.query_one(QueryConsole).set_text(frame.editor)
        elif frame.event.type in ev.BROWSE_TYPES:
            self.switch_tab("tab-browse")
        elif frame.event.type == ev.RUN_QUERY:
            self.switch_tab("tab-console")
        elif frame.event.type == ev.EDITOR_EDIT and self.org is not None:
            # What the annotator was typing (the last query's re-run shows otherwise).
            self.switch_tab("tab-console")
            self.query_one(QueryConsole).set_text(frame.editor)
        elif frame.event.type == ev.NOTE_EDIT:
            self.switch_tab("tab-notes")
        elif frame.event.type in ev.SCRATCH_TYPES:
            self.switch_tab("tab-scratch")

    def _show_status(self, frame: Frame) -> None:
        bar = self.query_one(StatusBar)
        bar.active_seconds = frame.active_ms / 1000
        state = []
        if frame.paused:
            state.append("PAUSED")
        if frame.away:
            state.append("AWAY (terminal without focus)")
        if frame.submission is not None:
            state.append("SUBMITTED")
        if frame.ended:
            state.append(f"ENDED ({frame.ended})")
        counts = f"queries: {frame.queries} ({frame.errors} failed)"
        if frame.tokens:
            cost = "" if frame.cost is None else f" · ${frame.cost:.4f}"
            counts += f" · {frame.tokens:,} tokens{cost}"
        bar.state = "   ".join([counts, *state])

    def _show_view(self, frame: Frame) -> None:
        view = frame.view
        nav = ("◀ " if frame.can_back else "  ") + ("▶" if frame.can_forward else " ")
        where = describe(view) if view is not None else "no browsing yet"
        self.query_one("#replay-view", Label).update(f"{nav} Browser: {where}")
        if self.org is None:
            text = Text(where + "\n\n", style="bold")
            text.append("The org is missing: records cannot be shown.\n", style="yellow")
            if frame.view_query:
                text.append(f"Equivalent query: {frame.view_query}", style="dim")
            self.query_one("#browser-offline", Static).update(text)
        elif view is not None and view != self._shown_view:
            self.query_one(RecordBrowser).show(view, record_history=False)
        elif view is None and self._shown_view is not None:
            self.query_one(RecordBrowser).clear()
        self._shown_view = view

    def _show_query(self, frame: Frame) -> None:
        step = frame.query
        seq = step.seq if step is not None else None
        if seq == self._shown_query:
            return
        self._shown_query = seq
        note = self.query_one("#replay-query-note", Label)
        if step is None:
            note.update("No query run yet.")
        else:
            note.update(f"#{step.seq} {step.kind} · recorded: {recorded_outcome(step)}")
        if self.org is None:
            text = Text("No query run yet." if step is None else step.text, style="bold")
            if step is not None:
                text.append("\n\nThe org is missing: the query is not re-run.", style="yellow")
            self.query_one("#console-offline", Static).update(text)
            return
        console = self.query_one(QueryConsole)
        if step is not None and step.rerunnable:
            console.run(step.text)
            return
        console.set_text(step.text if step is not None else "")
        console.clear_results()
        if step is not None:
            note.update(f"#{step.seq} tool call (not re-run) · {recorded_outcome(step)}")

    def _show_scratch(self, frame: Frame) -> None:
        """The last viewer open, copy and computation, and the notes, as of this frame."""
        if frame.scratch == self._shown_scratch:
            return
        self._shown_scratch = frame.scratch
        text = Text()
        for name, line in (("viewed", frame.viewed), ("copied", frame.copied)):
            text.append(f"{name:<9}", style="dim")
            text.append(line or "—", style="bold" if line else "dim")
            text.append("\n")
        computed = frame.computed
        text.append(f"{'computed':<9}", style="dim")
        if computed is None:
            text.append("—", style="dim")
        else:
            text.append(f"#{computed.seq} {computed.summary}", style="bold")
            text.append(f"\n{'over':<9}", style="dim")
            query = " ".join(computed.query.split())
            # Cut for the note only: the recording keeps the query whole.
            short = query if len(query) <= 160 else query[:159] + "…"
            text.append(f"{computed.input_rows:,} rows of: {short}")
        self.query_one("#replay-scratch-note", Static).update(text)
        shown = computed.seq if computed is not None else None
        if shown != self._shown_compute:
            self._shown_compute = shown
            rows = computed.rows if computed is not None else []
            self.query_one(ComputeTable).show(computed.columns if computed else [], rows)
        notes = self.query_one(NotesPane)
        if notes.text != frame.notes:
            notes.set_text(frame.notes)

    def _show_answer(self, frame: Frame) -> None:
        box = self.query_one(AnswerBox)
        box.set_text(frame.answer)
        sub = frame.submission
        if sub is None:
            box.show_note(Text("not submitted yet", style="dim"))
        elif sub.reward is None:
            box.show_note(Text(f"submitted (unscored, {sub.scoring}) · gold: {sub.gold!r}"))
        else:
            metric = metric_label(self.header["instance"]["reward_metric"], sub.scoring)
            box.show_result(sub.reward, sub.gold, metric)

    # -- messages --------------------------------------------------------------------------

    def on_query_console_query_ran(self, event: QueryConsole.QueryRan) -> None:
        # A re-run, not an action: compare with what was recorded instead of recording it.
        event.stop()
        step = self.frame.query if self.frame is not None else None
        if step is None or event.text.strip() != step.text.strip():
            return
        if event.error_code is not None:
            now = f"✘ {event.error_code}"
            same = step.failed and step.error_code == event.error_code
        else:
            now = f"{event.rows:,} rows"
            same = not step.failed and step.rows == event.rows
        mark = "✔ same" if same else "≠ differs"
        self.query_one("#replay-query-note", Label).update(
            f"#{step.seq} {step.kind} · recorded: {recorded_outcome(step)} · re-run: {now} {mark}"
        )

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id in ("event-list", "event-list-compact"):
            event.stop()
            self.go(event.cursor_row)

    def on_timeline_seeked(self, event: Timeline.Seeked) -> None:
        self.go(event.index)

    # -- timeline actions ------------------------------------------------------------------

    def action_step(self, delta: int) -> None:
        self.go(self.index + delta)

    def action_jump_start(self) -> None:
        self.go(0)

    def action_jump_end(self) -> None:
        self.go(len(self.events) - 1)

    def _jump(self, matches: Any, what: str, wrap: bool = False) -> None:
        target = next_index(self.events, self.index, matches)
        if target is None and wrap:
            target = next_index(self.events, -1, matches)
        if target is None:
            self.notify(f"No {what} after this point")
            return
        self.go(target)

    def action_next_query(self) -> None:
        self._jump(is_query, "query")

    def action_next_error(self) -> None:
        self._jump(is_error, "failed query")

    def action_next_scratch(self) -> None:
        self._jump(is_scratch, "view, copy, compute or notes edit")

    def action_jump_submit(self) -> None:
        self._jump(is_submit, "submit", wrap=True)

    def action_toggle_play(self) -> None:
        if not self.events:
            return
        self.playing = not self.playing
        if self.playing and self.index >= len(self.events) - 1:
            self.go(0)
        self.query_one(Timeline).playing = self.playing
        if self.playing:
            self._schedule()
        elif self._timer is not None:
            self._timer.stop()
            self._timer = None

    def action_speed(self, step: int) -> None:
        self.speed = change_speed(self.speed, step)
        self.query_one(Timeline).speed = self.speed

    def _schedule(self) -> None:
        if not self.playing or self.index >= len(self.events) - 1:
            self.playing = False
            self.query_one(Timeline).playing = False
            return
        delay = play_delay(self.events[self.index].ms, self.events[self.index + 1].ms, self.speed)
        self._timer = self.set_timer(delay, self._play_step)

    def _play_step(self) -> None:
        if self.playing:
            self.go(self.index + 1)
            self._schedule()

    def action_leave(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.dismiss(None)
        else:
            self.app.exit()
