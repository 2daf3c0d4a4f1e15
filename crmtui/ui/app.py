"""The crmtui Textual app: screens, app-wide commands and error handling only.

Cold start matters (the picker should appear within 2x a bare Textual app): what the picker
does not need (the play screen and its widgets, the play session, dialogs, the palette's
schema providers) is imported when first used, not here. benchmarks/bench_play.py measures it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen

from crmtui.config import PlayConfig
from crmtui.errors import CrmtuiError
from crmtui.play.policy import FreePlay, PlayPlan
from crmtui.play.progress import InstanceStatus, actor_progress, conversation_ended
from crmtui.play.workspace import Workspace
from crmtui.startup import resume_collector
from crmtui.ui.css_cache import SharedStylesheet, save_parsed
from crmtui.ui.dialogue_seats import DialogueSeats
from crmtui.ui.key_order import OrderedKeys
from crmtui.ui.plan_gates import PlanGates
from crmtui.ui.read_only import ReadOnlyInstances
from crmtui.ui.resume import ResumeFlow
from crmtui.ui.screen_roles import TracksActivity, activity_screen
from crmtui.ui.screens.picker import PickerScreen
from crmtui.ui.workers import WorkerErrorHandler


class StartRoute:
    """Where a start goes once the instructions (if any) are accepted.

    A plain class, not a dataclass: creating a dataclass costs part of a cold start
    (docs/performance.md).

    Attributes:
        reopen: The unfinished instance and recording a study reopens without asking.
        ask: Whether, after the picker's first frame, an unfinished session is offered to
            resume (free play), or ``--idx`` opened.
    """

    __slots__ = ("ask", "reopen")

    def __init__(self, *, reopen: tuple[int, Any] | None, ask: bool) -> None:
        self.reopen = reopen
        self.ask = ask

    def __repr__(self) -> str:
        return f"StartRoute(reopen={self.reopen!r}, ask={self.ask!r})"


if TYPE_CHECKING:
    from crmtui.play.session import PlaySession, Scorer


def _schema_commands() -> Any:
    from crmtui.ui.palette import SchemaCommands

    return SchemaCommands


def _goto_commands() -> Any:
    from crmtui.ui.palette import GotoCommands

    return GotoCommands


class CrmtuiApp(
    PlanGates,
    ResumeFlow,
    ReadOnlyInstances,
    DialogueSeats,
    WorkerErrorHandler,
    OrderedKeys,
    App[None],
):
    """Play CRMArena instances as a human annotator, with every action recorded."""

    # The tools opened over the play screen bring their styles with the app: Textual
    # restyles every widget of every open screen when a pushed screen adds new CSS, which
    # made the first value viewer of a session take 200 ms to appear (bench_workbench.py).
    # So does the picker's: pushing a screen with new CSS re-parses every stylesheet
    # (~10 ms of a cold start, in a fresh parser without the app's parse cache).
    CSS_PATH = [
        "app.tcss",
        "screens/picker.tcss",
        "screens/viewer.tcss",
        "screens/compute.tcss",
    ]
    TITLE = "crmtui"
    COMMANDS = App.COMMANDS | {_schema_commands, _goto_commands}
    HELP_GROUP = "Anywhere"
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding(
            "ctrl+p",
            "command_palette",
            "Command palette",
            show=False,
            tooltip="every command by name, schema objects and fields, go to a record",
        ),
    ]

    def __init__(
        self,
        config: PlayConfig,
        *,
        workspace: Workspace | None = None,
        plan: PlayPlan | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], dt.datetime] | None = None,
        scorer: Scorer | None = None,
    ) -> None:
        super().__init__()
        # Parsed CSS shared by every app of the process: a served session's copy of the
        # standby process starts with it all parsed (crmtui/ui/css_cache.py).
        self.stylesheet = SharedStylesheet(variables=self.get_css_variables())
        self.config = config
        self.workspace = workspace
        # What to list and reveal (a study's plan, or free play): screens ask it, never a study.
        self.plan: PlayPlan = plan or FreePlay()
        self.clock = clock
        self.wall = wall
        self.scorer = scorer  # None: crmtui.play.session.default_scorer
        self.picker: PickerScreen | None = None
        self.session: PlaySession | None = None
        #: ``--channel``: the channels whose other person has joined, by instance.
        self._met: dict[int, Any] = {}
        #: Ctrl+Q confirmed with an instance open: it is kept to resume, as "quit".
        self._quit_confirmed = False
        #: Where the start goes, decided once (:meth:`_route`).
        self._start_route: StartRoute | None = None
        #: The start has run its course: the picker (or a resumed instance) is up, and any
        #: question about an unfinished session has been asked.
        self.started = False
        #: A steady (non-blinking) text cursor. None: only in a browser, where each blink
        #: is a repaint sent over the network and costs a served session as much CPU as
        #: two keystrokes a second, with nobody typing.
        self.steady_cursor: bool | None = None
        self._signals: list[tuple[Any, int]] = []

    def on_mount(self) -> None:
        self._exit_on_hangup()
        if self.workspace is not None:
            self._workspace_ready(self.workspace)
        else:
            # Only an app started without its workspace loads it on screen (the CLI loads it
            # first): the progress bar's modules stay out of every other start.
            from crmtui.ui.screens.loading import LoadingScreen

            self.push_screen(LoadingScreen(self.config), self._workspace_ready)

    def _exit_on_hangup(self) -> None:
        """A closed terminal (SIGHUP) or a polite kill (SIGTERM) exits through unmount.

        Python's default for both is to die on the spot, losing the answer typed in the
        last second (the edit debounce) and the notes not yet saved; exiting normally lets
        :meth:`on_unmount` save them and leave the attempt resumable.
        """
        import asyncio
        import signal

        loop = asyncio.get_running_loop()
        for number in (signal.SIGHUP, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(number, self.exit)
                self._signals.append((loop, number))

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        steady = self.is_web if self.steady_cursor is None else self.steady_cursor
        if steady and getattr(event.widget, "cursor_blink", False):
            event.widget.cursor_blink = False  # type: ignore[attr-defined]

    # -- flow ------------------------------------------------------------------------------

    def status(self) -> dict[int, Any]:
        """This annotator's outcome per instance, from their recordings."""
        assert self.workspace is not None
        return actor_progress(
            self.config.recordings, self.config.annotator, self.workspace.tasks_label
        )

    def _workspace_ready(self, workspace: Workspace | None) -> None:
        if workspace is None:
            return
        self.workspace = workspace
        # A study's instructions come before anything else, the list of instances included.
        self.after_instructions(self._start)

    # The one route of a start, a browser sign-in's included: get_default_screen and, after
    # the instructions, _start both follow _route(), decided once. Either the picker is the
    # app's first screen (nothing to accept first, nothing to reopen unasked), or _start
    # reopens the unfinished instance or pushes the picker.

    def _route(self) -> StartRoute:
        """Where this start goes once the instructions are accepted (decided once).

        A study reopens an unfinished instance without asking: straight in it, rather than
        drawing the picker first; the picker comes when the instance closes. Free play
        draws the picker and then asks about an unfinished session.
        """
        if self._start_route is None:
            if self.plan.picker().resume_unasked:
                self._start_route = StartRoute(reopen=self.resumable(), ask=False)
            else:
                self._start_route = StartRoute(reopen=None, ask=True)
        return self._start_route

    def _start(self) -> None:
        reopen = self._route().reopen
        if reopen is not None and self._reopen(*reopen):
            return
        self._show_picker()

    def _reopen(self, idx: int, path: Any) -> bool:
        self.notify(f"Resuming your unfinished session on instance {idx}.")
        self.open_instance(idx, resume_path=path)
        if self.session is None:  # it could not open (a notice says why): the picker
            return False
        self.started = True
        self.call_after_refresh(resume_collector)  # start-up is over (crmtui.startup)
        return True

    def get_default_screen(self) -> Screen[Any]:
        # A start that goes straight to the list makes the picker the app's first screen:
        # composed with the app and drawn whole in its first frame. Pushed over Textual's
        # blank default screen it took three frames (the top line and footer, then the
        # filter, then the table), the table ~90 ms after App.run where the bare app's one
        # frame takes ~25 ms.
        if self.workspace is not None and self._opens_on_the_picker():
            return self._new_picker()
        return super().get_default_screen()

    def _opens_on_the_picker(self) -> bool:
        """Whether the start shows the list first: no instructions to accept first and no
        unfinished instance to reopen unasked (free play, or such a study)."""
        if not isinstance(self.plan, FreePlay):
            try:
                if self.plan.instructions() is not None:
                    return False
            except CrmtuiError:
                return False  # after_instructions reports it
        return self._route().reopen is None

    def _new_picker(self) -> PickerScreen:
        assert self.workspace is not None
        dialogue = self.config.dialogue
        # A person playing the agent never sees the query: it is the user's hidden instruction.
        hide = bool(dialogue and dialogue.interactive) and not (
            self.config.as_user or self.config.agent is not None
        )
        # A person playing the user is not scored: their list never says right or wrong.
        user = self.config.as_user or self.config.agent is not None
        policy = self.plan.picker().replaced(hide_queries=hide, unscored=user)
        self.picker = PickerScreen(
            self.workspace.tasks, self.config.annotator, self.status(), policy=policy
        )
        self.picker.gate = self.plan.gate()
        return self.picker

    def _show_picker(self) -> None:
        if self.picker is None:  # else it is the app's first screen already
            self.push_screen(self._new_picker())
        # After the picker's first frame: the resume check imports the recorder and the
        # dialogs, which cost a cold start more than drawing the picker does.
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self) -> None:
        resume_collector()  # start-up is over (crmtui.startup)
        # The next start reads the CSS parsed here (crmtui/ui/css_cache.py); a second on,
        # so the parts mounted after the first frame (the picker's filter) are in it.
        self.set_timer(1.0, save_parsed)
        self.prepare_models()
        route = self._route()
        if route.ask:
            self._start_route = StartRoute(reopen=None, ask=False)  # asked once per start
            if not self.offer_resume() and self.config.idx is not None:
                self.open_instance(self.config.idx)
        self.started = True

    def on_picker_screen_instance_chosen(self, event: PickerScreen.InstanceChosen) -> None:
        if event.next:
            self.open_next_unsolved()
        else:
            self.open_instance(event.idx)

    def open_next_unsolved(self) -> None:
        """Open the first unsolved instance of the list that no other session holds."""
        if self.picker is None:
            return
        held: list[int] = []
        while (idx := self.picker.next_unsolved(skip=held)) is not None:
            if self.open_instance(idx, skip_held=True):
                break
            held.append(idx)
        if held:
            shown = ", ".join(map(str, held))
            self.notify(f"Skipped, open in another crmtui session: {shown}", severity="warning")
        if idx is None:
            message, warning = self.picker.nothing_left()
            self.notify(message, severity="warning" if warning else "information",
                        timeout=15 if warning else 5)  # fmt: skip

    def open_instance(self, idx: int, resume_path: Any = None, *, skip_held: bool = False) -> bool:
        """Start (or resume) a recorded session on instance ``idx``; a submitted instance
        opens read-only instead (one submission counts).

        Not before the plan's instructions are accepted (a changed text is asked for
        again), and not while the plan's gate keeps ``idx`` closed. The instance is claimed
        first (:mod:`crmtui.record.claims`: one live session per annotator and instance,
        across processes), then checked for a submission, so two processes cannot both
        start an attempt, nor one start after the other submitted.

        Returns:
            Whether the instance was dealt with: a session or the read-only view opened, or
            the gate or the instructions hold it (said on screen). False: it is held by
            another session (said in a notice unless ``skip_held``) or cannot be opened.
        """
        from crmtui.play.dialogue_session import AgentSeat
        from crmtui.play.session import PlaySession, default_scorer
        from crmtui.record.claims import InstanceInUse, claim_instance
        from crmtui.ui.screens.play import PlayScreen

        assert self.workspace is not None
        if not self.may_open(idx, lambda: self.open_instance(idx, resume_path)):
            return True
        if self._conversation_over(idx):
            return True
        if self.config.agent is not None or self.config.as_user:
            return self._open_as_user(idx)
        try:
            instance = self.workspace.tasks.get(idx)
            claim = claim_instance(
                self.config.recordings, self.config.annotator, self.workspace.tasks_label, idx
            )
        except InstanceInUse as exc:
            if not skip_held:
                self.notify(str(exc), severity="error", title="Cannot open instance")
            return False
        except CrmtuiError as exc:
            self.notify(str(exc), severity="error", title="Cannot open instance")
            return False
        from crmtui.record.recorder import close_unfinished
        from crmtui.record.sessions import unfinished_of

        done = self._submission(idx)
        # The instance's unfinished sessions (a crash, Ctrl+Q, a closed tab): the latest
        # continues (or, once submitted, none does: a second attempt must not count).
        kept = unfinished_of(
            self.config.recordings, self.config.annotator, self.workspace.tasks_label, idx
        )
        if resume_path is None and kept and done is None:
            resume_path = kept[-1]
        for path in kept:
            if path != resume_path or done is not None:
                self.close_quietly(close_unfinished, path)
        if done is not None:
            claim.release()
            self.show_submitted(done)
            return True
        if self.config.channel is not None and idx not in self._met:
            claim.release()  # taken again once the other person has joined
            return self._meet(instance, resume_path)
        try:
            options = dict(
                aided=self.config.aided,
                idle_threshold=self.config.idle_threshold,
                clock=self.clock,
                wall=self.wall,
                scorer=self.scorer or default_scorer,
                fsync=self.config.fsync,
            )
            user, spec = self._dialogue_for(instance)
            if resume_path is not None and spec is not None:
                # A conversation is not resumed (the user's side of it is gone): the
                # unfinished one is closed as abandoned and the instance starts afresh.
                self.close_quietly(close_unfinished, resume_path)
                resume_path = None
            if resume_path is not None:
                session = PlaySession.resume_from(
                    resume_path, instance, self.workspace.org, claim=claim, **options
                )
            else:
                session = PlaySession.begin(
                    instance,
                    self.workspace.org,
                    claim=claim,
                    actor=self.config.actor,
                    tasks_source=self.workspace.tasks_label,
                    recordings=self.config.recordings,
                    dialogue=None if spec is None else spec.to_json(),
                    **options,
                )
        except CrmtuiError as exc:
            claim.release()
            self.notify(str(exc), severity="error", title="Cannot open instance")
            return False
        self.session = session
        seat = None if spec is None else AgentSeat(session, user, spec)
        self.push_screen(
            PlayScreen(
                session,
                next_instance=self._next_instance,
                policy=self.plan.play(idx),
                seat=seat,
            ),
            self._play_ended,
        )
        return True

    def _play_ended(self, _: None) -> None:
        session, self.session = self.session, None
        if self.picker is None:  # resumed straight into the instance: the picker comes now
            self._show_picker()
            return
        if session is not None:
            self.refresh_gate()  # a practice answer may have opened (or closed) the rest
        if self.picker is not None and session is not None:
            # The session that just ended is the newest for its instance, and the first
            # submission if it submitted (a submitted instance is never opened again): no
            # need to rescan every recording to know its outcome.
            reward = session.score.reward if session.score is not None else None
            # A conversation that ended with an outcome and no submission here (the person
            # played the user) is done as a submission would make it: "n" must not offer it.
            over = conversation_ended(
                session.recorder.header, session.submitted, session.end_reason
            )
            self.picker.mark(
                InstanceStatus(
                    session.instance.idx,
                    reward,
                    session.recorder.closed,
                    session.path,
                    session.end_reason,
                    session.submitted_at,
                    int(session.submitted),
                    over,
                )
            )

    def _next_instance(self) -> None:
        self.pop_screen()
        self._play_ended(None)
        self.open_next_unsolved()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_report":
            return self.plan.picker().report  # False hides the key in a blind study
        return True

    def action_open_report(self) -> None:
        """Show the report over the recordings (only this annotator's in a study)."""
        policy = self.plan.picker()
        if not policy.report:
            self.notify("The report is not shown during a blind study.", severity="warning")
            return
        self.notify("Building the report…")
        scope = self.config.recordings
        self._build_report(scope / policy.report_scope if policy.report_scope else scope)

    @work(thread=True, exclusive=True, group="report")
    def _build_report(self, folder: Any) -> None:
        from crmtui.review.report import report_folder

        try:
            report = report_folder(folder)
        except CrmtuiError as exc:
            self.call_from_thread(self.notify, str(exc), severity="error", title="Report")
            return
        self.post_message(self.ReportReady(report))

    class ReportReady(Message):
        """A report was built in a worker."""

        def __init__(self, report: Any) -> None:
            self.report = report
            super().__init__()

    def on_crmtui_app_report_ready(self, event: ReportReady) -> None:
        from crmtui.ui.screens.report import ReportScreen

        self.push_screen(ReportScreen(event.report))

    async def action_quit(self) -> None:
        """The annotator quits (Ctrl+Q). With an unsubmitted instance open it asks first;
        the instance is then kept to resume (its draft and time), as after a crash."""
        session = self.session
        if session is None or session.submitted or session.recorder.closed:
            await super().action_quit()
            return
        from crmtui.ui.screens.dialogs import ConfirmScreen

        if isinstance(self.screen, ConfirmScreen) and self.screen.purpose == "quit":
            self.screen.action_yes()  # Ctrl+Q again: yes, quit
            return

        def answer(confirmed: bool | None) -> None:
            if confirmed:
                self._quit_confirmed = True
                self.exit()  # on_unmount keeps the session to resume

        idx = session.instance.idx
        if session.recorder.header.get("dialogue") is not None:
            # A conversation is not kept to resume (its other side cannot wait): say so.
            kept = (
                f"Instance {idx}'s conversation is not over. Quitting ends it as abandoned "
                "(not counted; a person on the other side is told at once); the next start "
                "begins it afresh."
            )
        else:
            kept = (
                f"Instance {idx} is not submitted. Quitting keeps it as it is: the next start "
                "opens it again with your answer draft, notes and time (the clock stops "
                "while you are away)."
            )
        self.push_screen(
            ConfirmScreen(
                f"Quit crmtui?\n\n{kept}\n\n[dim]Enter or Ctrl+Q again quits; Escape stays.[/dim]",
                yes="Quit",
                no="Stay",
                purpose="quit",
            ),
            answer,
        )

    # -- activity and terminal focus (honest timing) -----------------------------------------

    async def on_event(self, event: events.Event) -> None:
        # Seen here before any widget can stop it: typing in the editor or the answer box,
        # scrolling and moving a cursor all count as activity, not only keys the screen sees.
        if isinstance(event, _ACTIVITY) and not event.is_forwarded:
            screen = self._activity_screen()
            if screen is not None:
                screen.note_activity()
        await super().on_event(event)

    def on_app_blur(self, event: events.AppBlur) -> None:
        screen = self._activity_screen()
        if screen is not None:
            screen.note_focus(False)

    def on_app_focus(self, event: events.AppFocus) -> None:
        screen = self._activity_screen()
        if screen is not None:
            screen.note_focus(True)

    def _activity_screen(self) -> TracksActivity | None:
        # The play screen may sit under a dialog or the pause screen: find it on the stack.
        if self.session is None:
            return None
        return activity_screen(self.screen_stack)

    def on_unmount(self) -> None:
        save_parsed()  # screens opened in this session start faster next time
        for loop, number in self._signals:  # the loop may outlive the app (tests)
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(number)
        self._signals.clear()
        if self.session is None:
            return
        if self.crashed:
            # Ended by a bug, not by the user: keep the session open to be resumed.
            self.session.suspend("crash")
        elif self.session.submitted:
            # Nothing left to resume (the answer is in): the session ends.
            self.session.close("quit")
        elif self._quit_confirmed:
            # Ctrl+Q, confirmed: the clock stops and the attempt stays resumable.
            self.session.suspend("quit")
        else:
            # Not the annotator's choice (a dropped websocket makes textual-serve stop the
            # app; a server restart; a closed terminal): keep the attempt resumable.
            self.session.suspend("disconnect")

    # -- command palette -------------------------------------------------------------------

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        # Textual's own "Quit" and "Keys" (its bindings panel) duplicate ours; one of each.
        yield from (
            command
            for command in super().get_system_commands(screen)
            if command.title not in ("Quit", "Keys")
        )
        # Imported when the palette opens: nothing before the picker's first frame needs it.
        from crmtui.ui.keys import palette_commands

        yield from palette_commands(screen, self)


_ACTIVITY = (
    events.Key,
    events.MouseDown,
    events.MouseScrollDown,
    events.MouseScrollUp,
    events.MouseMove,
)
