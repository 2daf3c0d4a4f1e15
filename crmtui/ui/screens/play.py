"""The Play screen: metadata, query, record browser + console, and the answer box.

Widgets post messages up; this screen forwards them to the :class:`PlaySession`
(which records them) and asks the user through modal dialogs. No query, scoring or file
work happens here.
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import ContentSwitcher, Static, TabbedContent, TabPane

from crmtui.data.parity import person_task_label
from crmtui.errors import CrmtuiError
from crmtui.play.drafts import Drafts
from crmtui.play.goto import GotoError, parse_record_id
from crmtui.play.paths import chooser_paths
from crmtui.play.person_view import person_view
from crmtui.play.policy import PlayPolicy
from crmtui.play.query_history import QueryHistory, history_path
from crmtui.play.session import PlaySession
from crmtui.play.timing import format_duration
from crmtui.scoring.rules import metric_label
from crmtui.ui.band_compositor import BandCompositor
from crmtui.ui.keys import key_commands
from crmtui.ui.screen_roles import BrowsesOrg, TracksActivity
from crmtui.ui.screens.columns import ColumnsScreen
from crmtui.ui.screens.dialogs import (
    ConfirmScreen,
    FilterScreen,
    HelpScreen,
    PauseScreen,
    PickScreen,
    TextPromptScreen,
    fields_of,
)
from crmtui.ui.screens.play_chat import PlayChat
from crmtui.ui.screens.play_layout import ResponsiveLayout
from crmtui.ui.screens.play_workbench import PlayWorkbench
from crmtui.ui.widgets.answer_box import AnswerBox
from crmtui.ui.widgets.cell_table import READ_COPY_COMPUTE
from crmtui.ui.widgets.chat import ChatPanel
from crmtui.ui.widgets.console import QueryConsole
from crmtui.ui.widgets.footer import KeyFooter
from crmtui.ui.widgets.notes import NotesPane
from crmtui.ui.widgets.object_list import ObjectList
from crmtui.ui.widgets.panels import MetadataPanel, QueryPanel, StatusBar
from crmtui.ui.widgets.record_browser import RecordBrowser
from crmtui.ui.widgets.schema_tree import SchemaTree


class PlayScreen(ResponsiveLayout, PlayWorkbench, PlayChat, TracksActivity, BrowsesOrg):
    """A human solves one instance while every action is recorded.

    The scratch tools (value viewer, copy and insert, compute, notes) and their keys come
    from :class:`PlayWorkbench`; a conversation with a user (the multi-turn mode, ``seat``)
    from :class:`PlayChat`.
    """

    CSS_PATH = "play.tcss"
    HELP_GROUP = "Session"
    HELP_GROUPS = {
        "focus_browser": "Regions",
        "focus_console": "Regions",
        "focus_answer": "Regions",
        "focus_schema": "Regions",
        "goto_record": "Regions",
        "toggle_maximize": "Regions",
        "focus_context": "Regions",
        "focus_notes": "Regions",
        "insert_register": READ_COPY_COMPUTE,
        "compute": READ_COPY_COMPUTE,
    }
    # F-keys and Ctrl keys are priority bindings: they work wherever focus is, the editor
    # and the answer box included (a TextArea binds F6 and F7 itself). The letters are
    # shortcuts for when focus is not in a text field, where they would be typed instead.
    BINDINGS = [
        Binding("f2", "focus_browser", "Browse", priority=True),
        Binding("b", "focus_browser", "Browse", show=False),
        # The browser's own "o" only works once it has the focus; from anywhere else on the
        # screen (not a text field) it opens the object list too. No description: help and
        # the palette list the browser's "o" once, which now holds everywhere.
        Binding("o", "focus_objects", show=False),
        Binding("f3", "focus_console", "Console", priority=True),
        Binding("c", "focus_console", "Console", show=False),
        Binding("f4", "focus_answer", "Answer", priority=True),
        Binding("a", "focus_answer", "Answer", show=False),
        Binding("f8", "focus_schema", "Schema", priority=True, tooltip="searchable tree"),
        Binding("ctrl+g", "goto_record", "Go to record", priority=True, tooltip="by its Id"),
        Binding("g", "goto_record", "Go to record", show=False),
        Binding("ctrl+s", "submit", "Submit the answer", show=False, priority=True),
        Binding("f7", "pause", "Pause", priority=True, tooltip="hide the instance, stop the clock"),
        Binding("p", "pause", "Pause", show=False),
        Binding("f9", "next_instance", "Next", priority=True, tooltip="after submitting"),
        Binding("n", "next_instance", "Next", show=False),
        Binding("f1", "help", "Help", priority=True),
        Binding("question_mark", "help", "Help", show=False),
        Binding("escape", "leave", "Instances", tooltip="back to the instance list"),
        *ResponsiveLayout.HELP_LAYOUT_BINDINGS,
    ]

    def __init__(
        self,
        session: PlaySession,
        *,
        next_instance: Any = None,
        policy: PlayPolicy | None = None,
        seat: Any = None,
    ) -> None:
        super().__init__()
        self.seat = seat
        # Partial updates (a key typed) render only the rows they change: see the module.
        self._compositor = BandCompositor()
        self.session = session
        self.policy = policy or PlayPolicy()
        self._next_instance = next_instance
        self._submitted = False
        self._timed_out = False
        #: The record browser's widget that last had focus (F2 returns to it).
        self._browser_focus: Widget | None = None

    def compose(self) -> ComposeResult:
        inst = self.session.instance
        label = f"idx {inst.idx} · {person_task_label(inst.task)[1]} · {self.session.actor_label}"
        if self.policy.progress:
            label += f" · {self.policy.progress}"
        yield StatusBar(label, id="status-bar")
        with Horizontal(id="play-body"):
            yield MetadataPanel(id="metadata-panel")
            with Vertical(id="play-main"):
                yield QueryPanel(id="query-panel")
                yield ChatPanel("agent", id="chat-panel")
                with TabbedContent(id="work-tabs"):
                    # The task context as a tab, for the compact layout (80x24).
                    with TabPane("Task", id="tab-context"):
                        yield MetadataPanel(id="context-panel")
                    with TabPane("Browse", id="tab-browse"):
                        yield RecordBrowser(
                            self.session.org, self.session.today, id="record-browser"
                        )
                    with TabPane("Console", id="tab-console"):
                        yield QueryConsole(
                            self.session.org,
                            self.session.today,
                            clock=self.session.timer.clock,
                            history=self._history(),
                            id="query-console",
                        )
                    with TabPane("Schema", id="tab-schema"):
                        yield SchemaTree(self.session.org.schema, id="schema-tree-panel")
                    with TabPane("Notes", id="tab-notes"):
                        yield NotesPane(self.session.scratch.notes, id="notes-pane")
                yield AnswerBox(id="answer-box")
        yield Static("", id="too-small")
        yield KeyFooter()

    def _history(self) -> QueryHistory:
        """The annotator's query history, shared by every instance (kept under CRMTUI_HOME,
        or in the study's folder: one per study)."""
        actor = self.session.recorder.header.get("actor", {})
        where = history_path(str(actor.get("id", "annotator")), self.policy.history_dir)
        history = QueryHistory.load(where)
        history.context = {"idx": self.session.instance.idx}
        return history

    def on_mount(self) -> None:
        inst = self.session.instance
        self.set_class(self.in_dialogue, "dialogue")
        today = self.session.today.isoformat() if self.session.today else None
        # What the person is shown is what the model is given (docs/parity.md): never the
        # persona (the simulated user's), the task type, the gold or how it is scored.
        view = person_view(inst, "agent" if self.in_dialogue else "play", aided=self.session.aided)
        for panel in self.query(MetadataPanel):
            panel.show(
                view.required or "",
                view.optional,
                today,
                self.session.org.schema,
                self.session.aided,
                query=view.query or "",
                # The Task tab (compact layout): the query region above it has two lines.
                # In a conversation the agent never sees the query.
                with_query=panel.id == "context-panel" and view.query is not None,
                # Who is asking: under the query (the query region, or the Task tab's).
                audience=view.audience if panel.id == "context-panel" or not view.query else None,
                answer_format=view.answer_format,
            )
        self.query_one(TabbedContent).active = "tab-browse"
        self.apply_layout(self.size.width, self.size.height)
        if view.query is not None:
            self.query_one(QueryPanel).show(view.query, audience=view.audience)
        self._restore(self.session.drafts)
        self.session.start()
        self.set_interval(1.0, self._tick)
        self._tick()
        self.query_one("#object-list").focus()
        self.prepare_tools()
        if self.in_dialogue:
            self.start_dialogue()

    def on_unmount(self) -> None:
        self.stop_dialogue()

    def _restore(self, drafts: Drafts) -> None:
        """Put back what a resumed session's recording holds (nothing for a new one)."""
        console = self.query_one(QueryConsole)
        for text in drafts.queries:
            if text not in console.history.entries:
                console.history.entries.append(text)
        if drafts.editor:
            console.set_text(drafts.editor)
        if drafts.answer:
            self.query_one(AnswerBox).set_text(drafts.answer)

    # -- clock -----------------------------------------------------------------------------

    def _tick(self) -> None:
        self.session.flush_pending()
        bar = self.query_one(StatusBar)
        bar.active_seconds = self.session.active_seconds
        state = "PAUSED" if self.session.paused else ("SUBMITTED" if self._submitted else "")
        if not state and self.in_dialogue and self.session.recorder.closed:
            state = "ENDED"
        left = self.policy.time_left(self.session.active_seconds)
        if left is not None and not self._submitted:
            state = f"{format_duration(left)} left   {state}".strip()
            if left <= 0 and not self.session.paused and not self._timed_out:
                self._time_up()
        bar.state = state

    def _time_up(self) -> None:
        """The time limit is reached: submit the answer as typed and end the session."""
        self._timed_out = True
        while len(self.app.screen_stack) > 1 and self.app.screen is not self:
            self.app.pop_screen()  # a dialog left open (e.g. the submit confirmation)
        if self.in_dialogue:
            self.stop_dialogue()  # a conversation has no typed answer: it ends unanswered
        else:
            self._submit(self.query_one(AnswerBox).text.strip())
        self.session.close("time_limit")
        self.notify("Time is up: your answer was submitted.", severity="warning")

    def note_activity(self) -> None:
        """Any input (a key, a click, scrolling, moving the mouse) while this screen is up."""
        self.session.note_input()

    def note_focus(self, focused: bool) -> None:
        """The terminal lost or regained focus: recorded as ``app_blur`` / ``app_focus``."""
        self._safely(self.session.record_focus, focused)

    # -- recorded actions ------------------------------------------------------------------

    def on_record_browser_browsed(self, event: RecordBrowser.Browsed) -> None:
        self._safely(self.session.record_browse, event.event_type, event.payload)

    def on_query_console_query_ran(self, event: QueryConsole.QueryRan) -> None:
        self._safely(
            self.session.record_query,
            event.text,
            event.kind,
            event.rows,
            event.ms,
            event.error_code,
            event.error,
        )

    def on_answer_box_edited(self, event: AnswerBox.Edited) -> None:
        self.session.answer_edited(event.text)

    def on_query_console_editor_changed(self, event: QueryConsole.EditorChanged) -> None:
        self.session.editor_edited(event.text)

    def on_answer_box_submit_requested(self, event: AnswerBox.SubmitRequested) -> None:
        answer = event.text.strip()
        # The answer on a line of its own: inside the sentence it read as part of it. Nothing
        # about how it is scored: a model is told no such thing, and "scored by a refusal"
        # would tell the person what kind of answer is right (docs/parity.md).
        question = (
            f"Submit this answer?\n\n  [b]{escape(answer)}[/b]\n"
            if answer
            else "Submit an EMPTY answer?"
        )
        question += "\nYou cannot change it afterwards."

        def done(confirmed: bool | None) -> None:
            if confirmed:
                self._submit(answer)

        self.app.push_screen(ConfirmScreen(question, yes="Submit"), done)

    def _submit(self, answer: str) -> None:
        try:
            score = self.session.submit(answer)
        except CrmtuiError as exc:
            self.notify(str(exc), severity="error", title="Submit failed")
            return
        self.show_score(score)

    def show_score(self, score: Any) -> None:
        """The answer was scored: lock the answer box, show the reward (unless blind)."""
        self._submitted = True
        if self.policy.reveal:
            metric = metric_label(self.session.instance.reward_metric, score.method)
            gold = self.session.instance.answer
            self.query_one(AnswerBox).show_result(score.reward, gold, metric)
            # Whole, whatever the terminal's width (the result line is cut at 80 columns).
            self.notify(
                f"reward {score.reward:.2f} ({metric})\ngold: {gold}",
                title="Submitted",
                markup=False,
                timeout=10,
            )
        else:
            self.query_one(AnswerBox).show_submitted()
        self._tick()

    # -- dialogs asked for by widgets ------------------------------------------------------

    def on_record_browser_filter_wanted(self, event: RecordBrowser.FilterWanted) -> None:
        browser = self.query_one(RecordBrowser)
        fields = fields_of(self.session.org.schema, event.object_name)

        def done(condition: Any) -> None:
            if condition is not None:
                browser.apply_filter(condition)

        self.app.push_screen(FilterScreen(event.object_name, fields, event.field), done)

    def on_record_browser_columns_wanted(self, event: RecordBrowser.ColumnsWanted) -> None:
        browser = self.query_one(RecordBrowser)
        paths = chooser_paths(self.session.org.schema, event.object_name)

        def done(columns: tuple[str, ...] | None) -> None:
            if columns is not None:
                browser.set_columns(columns)

        self.app.push_screen(ColumnsScreen(event.object_name, paths, event.columns), done)

    def on_record_browser_search_wanted(self, event: RecordBrowser.SearchWanted) -> None:
        browser = self.query_one(RecordBrowser)

        def done(text: str | None) -> None:
            if text:
                browser.apply_search(text)

        self.app.push_screen(
            TextPromptScreen(f"Search {event.object_name}", "words; * and ? are wildcards"), done
        )

    def on_query_console_history_search_wanted(
        self, event: QueryConsole.HistorySearchWanted
    ) -> None:
        console = self.query_one(QueryConsole)
        entries = list(reversed(console.history.entries))
        if not entries:
            self.notify("No queries yet")
            return

        def done(choice: str | None) -> None:
            if choice:
                console.set_text(choice)

        self.app.push_screen(PickScreen("Query history (all your instances)", entries), done)

    # -- key actions -----------------------------------------------------------------------

    def action_pause(self) -> None:
        if not self.session.pause():
            return
        self._tick()

        def resumed(_: None) -> None:
            self.session.resume()
            self._tick()

        self.app.clear_notifications()  # a toast could show the instance's text
        self.app.push_screen(PauseScreen(format_duration(self.session.active_seconds)), resumed)

    def focus_now(self, selector: str | Widget) -> None:
        """Focus a widget at once, not on the next message: keys typed right after an F-key
        (a fast typist, a terminal delivering a burst) must land in the new widget."""
        widget = self.query_one(selector) if isinstance(selector, str) else selector
        if self.maximized is not None and self.maximized not in widget.ancestors_with_self:
            self.minimize()  # going to another region: show it
        self.set_focus(widget)

    def action_focus_answer(self) -> None:
        self.focus_now("#chat-input" if self.in_dialogue else "#answer-input")

    def action_focus_console(self) -> None:
        self.query_one(TabbedContent).active = "tab-console"
        self.focus_now("#console-editor")

    def action_focus_schema(self) -> None:
        self.query_one(TabbedContent).active = "tab-schema"
        self.focus_now("#schema-search")

    def show_schema(self, path: str) -> None:
        """Open the schema tab on ``Object`` or ``Object.Field`` (the palette's schema hits)."""
        self.query_one(TabbedContent).active = "tab-schema"
        self.query_one(SchemaTree).show(path)

    def action_goto_record(self) -> None:
        def done(text: str | None) -> None:
            if text is not None:
                self.goto_record(text)

        self.app.push_screen(
            TextPromptScreen("Go to record", "an Id: 500… Case, 001… Account, 005… User"), done
        )

    def goto_record(self, text: str) -> bool:
        """Open the record whose Id is ``text`` in the browser; a bad Id is explained."""
        try:
            object_name, record_id = parse_record_id(self.session.org.schema, text)
        except GotoError as exc:
            self.notify(str(exc), severity="error", title="Go to record", markup=False)
            return False
        self.query_one(TabbedContent).active = "tab-browse"
        self.query_one(RecordBrowser).open_record(object_name, record_id)
        self.focus_now("#record-panel")
        return True

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        if self.query_one(RecordBrowser) in event.widget.ancestors:
            self._browser_focus = event.widget

    def action_focus_browser(self) -> None:
        """F2: back to where the person was in the browser (the table or record they left,
        to copy the next Id from it), else the object list."""
        self.query_one(TabbedContent).active = "tab-browse"
        self.focus_now(self._browser_return())

    def action_focus_objects(self) -> None:
        """o: the browser's object list, armed for the start of an object's name."""
        self.query_one(TabbedContent).active = "tab-browse"
        objects = self.query_one(ObjectList)
        objects.arm()
        self.focus_now(objects)

    def _browser_return(self) -> str | Widget:
        last = self._browser_focus
        if last is None or not last.is_attached:
            return "#object-list"
        switcher = self.query_one("#browser-switcher", ContentSwitcher)
        shown = switcher.visible_content
        # The table gave way to a record (or back) since: the one shown now.
        moved = shown is not None and shown not in last.ancestors_with_self
        if switcher in last.ancestors and moved:
            return shown  # type: ignore[return-value]
        return last

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(key_commands(self), "Keys of the play screen"))

    def action_submit(self) -> None:
        if self.in_dialogue:
            self.notify(
                "In a conversation your messages are your answers: type in the reply box and "
                "press Enter. The user ends the conversation; your last message is scored.",
                timeout=8,
            )
            return
        # The keys typed before Ctrl+S are in the box already: the app hands keys over one
        # at a time (crmtui.ui.key_order), a priority binding included.
        self.query_one(AnswerBox).action_submit()

    @property
    def finished(self) -> bool:
        """Submitted, or (a conversation ended without an answer) closed."""
        return self._submitted or self.session.recorder.closed

    def action_next_instance(self) -> None:
        if not self.finished:
            wait = "The conversation is still going" if self.in_dialogue else None
            self.notify(wait or "Submit an answer first (Ctrl+S)", severity="warning")
            return
        self.session.close("next")
        if self._next_instance is not None:
            self._next_instance()
        else:
            self.dismiss(None)

    def action_leave(self) -> None:
        if self.finished:
            self.session.close("next")
            self.dismiss(None)
            return

        def done(confirmed: bool | None) -> None:
            if confirmed:
                self.session.close("abandoned")
                self.dismiss(None)

        self.app.push_screen(
            ConfirmScreen(
                "Leave this instance without submitting?\nThe session is recorded as abandoned.",
                yes="Leave",
                safe="no",
            ),
            done,
        )

    def _safely(self, fn: Any, *args: Any) -> None:
        try:
            fn(*args)
        except CrmtuiError as exc:
            self.notify(str(exc), severity="error", title="Recording error")
