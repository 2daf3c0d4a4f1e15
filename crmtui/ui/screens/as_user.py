"""The as-user screen: a person plays the user of a dialogue (``crmtui play --as-user``).

Left, the person's brief: the persona, the hidden instruction (the query) and what else they
know; never the gold answer. In the middle the conversation and the reply box. With a model
agent, its steps (thoughts, queries, their rows) stream on the right as in ``crmtui watch``,
while the person types; the agent runs in a thread worker (:meth:`UserScreen._run_agent`)
that only posts messages. F9 ends the conversation (recorded as ``###STOP###``): the
agent's last message is then its answer. The person's side is recorded by
:class:`~crmtui.play.user_seat.UserSeat`, the agent's by its own session.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Group
from rich.markup import escape
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, Static

from crmtui.data.parity import person_task_label
from crmtui.errors import CrmtuiError
from crmtui.play.dialogue import ACCEPTED, GREETING, MAX_USER_TURNS, STOP_TOKEN
from crmtui.play.user_seat import Brief, UserSeat
from crmtui.ui.layout import layout_mode, too_small_notice
from crmtui.ui.screen_roles import TracksActivity
from crmtui.ui.screens.dialogs import ConfirmScreen
from crmtui.ui.widgets.chat import ChatPanel
from crmtui.ui.widgets.footer import KeyFooter
from crmtui.ui.widgets.guide import guide_renderable
from crmtui.ui.widgets.panels import StatusBar
from crmtui.ui.widgets.transcript import Transcript

_RULES = (
    "Say what you want in your own words, a little at a time: the agent should ask for the "
    "details (periods, names, numbers). Do not invent what your brief does not say. When "
    "the agent has given you what you asked for (or says nothing matches), press F9 to end "
    "the conversation: its last message is its answer."
)


def ended_words(reason: Mapping[str, Any]) -> str:
    """How a conversation ended, in the user's words (upstream's end message, e.g.
    ``Submit action``, is for the recording, not for the person)."""
    message = str(reason.get("message", ""))
    if message == ACCEPTED:
        return "the agent's last message is its answer"
    if message == MAX_USER_TURNS:
        return "your replies ran out (no answer)"
    detail = f": {reason['content']}" if reason.get("content") else ""
    return f"{message or 'ended'}{detail}"


class AgentSaid(Message):
    """The agent sent the user a message."""

    def __init__(self, text: str) -> None:
        self.text = text
        super().__init__()


class AgentStep(Message):
    """A model agent finished a step (for the steps panel)."""

    def __init__(self, step: Any) -> None:
        self.step = step
        super().__init__()


class AgentDone(Message):
    """The agent's episode ended; ``end_reason`` and ``reward`` as its recording has them."""

    def __init__(self, end_reason: dict[str, Any], reward: float | None) -> None:
        self.end_reason = end_reason
        self.reward = reward
        super().__init__()


class BriefPanel(VerticalScroll):
    """The person's brief as the user: persona, hidden instruction, facts, how to play."""

    def __init__(self, brief: Brief, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.brief = brief
        self.border_title = "You are the user"

    def compose(self) -> ComposeResult:
        parts: list[Any] = []
        if self.brief.persona:
            parts += [Text("Who you are", style="bold"), Text(self.brief.persona), Text("")]
        parts += [
            Text("What you want (the agent cannot see this)", style="bold"),
            guide_renderable(self.brief.instruction),
            Text(""),
        ]
        if self.brief.facts:
            parts.append(Text("What else you know (tell it when asked)", style="bold"))
            parts += [Text(f"- {line}") for line in self.brief.facts]
            parts.append(Text(""))
        parts += [Text("How to play", style="bold"), Text(_RULES, style="dim")]
        yield Static(Group(*parts), id="brief-text")


class UserScreen(Screen[None], TracksActivity):
    """A person plays the user; the agent is a model here or a person elsewhere.

    Args:
        seat: The person's seat (their recording).
        brief: What they are told.
        agent_run: For a model agent: a callable run in a worker thread with three
            callbacks (``on_message``, ``on_step``, ``on_done``); it plays the episode. None
            when the agent is a person (their messages come through ``agent_feed``).
        agent_feed: For a person agent: a callable run in a worker thread that calls
            ``on_message`` for each of their messages and ``on_done`` at the end.
        stop_agent: Stops a model agent (the screen is leaving).
        next_instance: Opens the next instance (F9 once the conversation is over).
    """

    CSS_PATH = "as_user.tcss"
    BINDINGS = [
        # F9 ends the conversation; once it is over, F9 is the next instance (one key,
        # two bindings: check_action shows and runs the one that applies).
        Binding("f9", "end_conversation", "End the conversation", priority=True),
        Binding("f9", "next_after_end", "Next instance", priority=True),
        Binding("f3", "toggle_steps", "Agent's steps", priority=True),
        Binding("f1", "help", "Help", priority=True),
        Binding("escape", "leave", "Instances"),
    ]

    def __init__(
        self,
        seat: UserSeat,
        brief: Brief,
        *,
        agent_run: Any = None,
        agent_feed: Any = None,
        stop_agent: Any = None,
        next_instance: Any = None,
    ) -> None:
        super().__init__()
        self.seat = seat
        self.brief = brief
        self._agent_run = agent_run
        self._agent_feed = agent_feed
        self._stop_agent = stop_agent
        self._next_instance = next_instance

    # -- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        inst = self.seat.session.instance
        agent = self.seat.spec.agent
        who = f"{agent.kind}: {agent.label}"
        kind = person_task_label(inst.task)[1]
        yield StatusBar(f"idx {inst.idx} · {kind} · you are the user · agent {who}",
                        id="status-bar")  # fmt: skip
        with Horizontal(id="user-body"):
            yield BriefPanel(self.brief, id="brief-panel")
            yield ChatPanel("user", title=f"Conversation with the agent ({agent.label})",
                            id="chat-panel")  # fmt: skip
            yield Transcript(id="transcript")
        yield Static("", id="too-small")
        yield KeyFooter()

    def on_key(self, event: events.Key) -> None:
        """A key typed before the reply box had the focus (the screen opening on a busy
        machine) goes into the box, not nowhere: what is recorded is what was typed."""
        found = self.query("#chat-input")
        if not found or not event.is_printable or event.character is None:
            return
        box = found.first(Input)
        if box.has_focus or box.disabled or isinstance(self.focused, Input):
            return
        event.stop()
        event.prevent_default()
        box.focus()
        box.insert_text_at_cursor(event.character)

    def on_mount(self) -> None:
        self._layout()
        self.set_class(self._agent_run is not None, "model-agent")
        chat = self.query_one(ChatPanel)
        chat.add_note(f"The agent greets you: {GREETING}")
        chat.set_state(True, "Your turn: write your first message (Enter sends)")
        chat.focus_reply()
        transcript = self.query_one(Transcript)
        if self._agent_run is not None:
            transcript.border_title = "The agent's steps (live)"
            transcript.add_note("The agent starts working once you write.")
            self._run_agent()
        else:
            transcript.border_title = "The agent"
            transcript.add_note("The agent is a person: you see only their messages.")
            if self._agent_feed is not None:
                self._feed_agent()
        self.seat.session.start()
        self.set_interval(1.0, self._tick)
        self._tick()

    def on_resize(self, event: events.Resize) -> None:
        self._layout()

    def _layout(self) -> None:
        mode = layout_mode(self.size.width, self.size.height)
        for name in ("wide", "narrow", "compact", "too-small"):
            self.set_class(name == mode, name)
        notice = too_small_notice(self.size.width, self.size.height)
        self.query_one("#too-small", Static).update(notice if mode == "too-small" else "")

    def _tick(self) -> None:
        self.seat.session.flush_pending()
        bar = self.query_one(StatusBar)
        bar.active_seconds = self.seat.session.active_seconds
        dialogue = self.seat.dialogue
        if self.seat.over:
            bar.state = "ENDED"
        else:
            bar.state = f"{dialogue.replies_left} replies left"

    def note_activity(self) -> None:
        """Any input while this screen is up (the app calls it): idle time is recorded."""
        self.seat.session.note_input()

    # -- the agent (worker threads) --------------------------------------------------------

    @work(thread=True, exclusive=True, group="agent")
    def _run_agent(self) -> None:
        self._agent_run(
            on_message=lambda text: self.post_message(AgentSaid(text)),
            on_step=lambda step: self.post_message(AgentStep(step)),
            on_done=lambda reason, reward: self.post_message(AgentDone(reason, reward)),
        )

    @work(thread=True, exclusive=True, group="agent")
    def _feed_agent(self) -> None:
        self._agent_feed(
            on_message=lambda text: self.post_message(AgentSaid(text)),
            on_done=lambda reason, reward: self.post_message(AgentDone(reason, reward)),
        )

    def on_agent_said(self, event: AgentSaid) -> None:
        try:
            message = self.seat.agent_said(event.text)
        except CrmtuiError as exc:
            self.notify(str(exc), severity="error", title="Recording error")
            return
        if message is None:
            return
        chat = self.query_one(ChatPanel)
        chat.add_message("agent", event.text)
        left = self.seat.dialogue.replies_left
        chat.set_state(True, f"Your turn · {left} replies left · F9 ends the conversation")

    def on_agent_step(self, event: AgentStep) -> None:
        step = event.step
        reply, action = step.reply, step.action
        self.query_one(Transcript).add_step(
            step.index,
            kind=action.kind,
            content=action.content,
            thought=action.thought,
            result=step.result,
            tokens=(reply.prompt_tokens, reply.completion_tokens),
            cost=reply.cost,
            latency_ms=reply.latency_ms,
        )

    def on_agent_done(self, event: AgentDone) -> None:
        reason = event.end_reason
        try:
            self.seat.finish(reason, event.reward)
        except CrmtuiError as exc:
            self.notify(str(exc), severity="error", title="Recording error")
        chat = self.query_one(ChatPanel)
        chat.add_note(f"The conversation is over: {ended_words(reason)}.")
        chat.close("Ended · F9: next instance · Esc: the instance list")
        self.query_one(Transcript).add_note(f"Ended: {ended_words(reason)}", style="bold")
        self.refresh_bindings()  # F9 is now the next instance
        self._tick()

    # -- the person ------------------------------------------------------------------------

    def on_chat_panel_reply_sent(self, event: ChatPanel.ReplySent) -> None:
        event.stop()
        if event.text.strip() == STOP_TOKEN:
            self.action_end_or_next()
            return
        if not self.seat.my_turn:
            self.notify("Wait for the agent's message.", severity="warning")
            return
        try:
            self.seat.say(event.text)
        except CrmtuiError as exc:
            self.notify(str(exc), severity="error", title="Not sent")
            return
        chat = self.query_one(ChatPanel)
        chat.add_message("user", event.text)
        if self.seat.dialogue.ended:
            chat.set_state(False, "Your replies are used up; the agent answers no more.")
            return
        chat.set_state(False, "The agent is working…")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """F9's two bindings: ending the conversation while it goes on, then the next one."""
        if action == "end_conversation":
            return self.seat.outcome is None
        if action == "next_after_end":
            return self.seat.outcome is not None
        return True

    def action_end_conversation(self) -> None:
        """F9 while the conversation goes on: end it (it asks first)."""
        self.action_end_or_next()

    def action_next_after_end(self) -> None:
        """F9 once the conversation is over: the next instance."""
        self._leave(next_one=True)

    def action_end_or_next(self) -> None:
        """End the conversation (it asks first); once ended, the next instance."""
        if self.seat.outcome is not None:
            self._leave(next_one=True)
            return
        if self.seat.dialogue.ended:
            self.notify("The agent is finishing its turn; a moment.")
            return

        def done(confirmed: bool | None) -> None:
            if not confirmed or self.seat.over:
                return
            try:
                self.seat.end()
            except CrmtuiError as exc:
                self.notify(str(exc), severity="error", title="Recording error")
                return
            chat = self.query_one(ChatPanel)
            chat.add_message("user", STOP_TOKEN)
            chat.set_state(False, "You ended the conversation; the agent's episode ends…")

        self.app.push_screen(
            ConfirmScreen(
                "End the conversation now?\n\nThe agent's last message becomes its answer "
                f"(recorded as {escape(STOP_TOKEN)}).",
                yes="End it",
            ),
            done,
        )

    def action_toggle_steps(self) -> None:
        """F3: at 80x24, show the agent's steps instead of the brief (and back)."""
        self.toggle_class("show-steps")

    def action_help(self) -> None:
        self.notify(
            "Enter sends your message · F9 ends the conversation (then: next instance) · "
            "F3 the agent's steps (80x24) · Esc the instance list · Ctrl+Q quit",
            timeout=10,
        )

    def action_leave(self) -> None:
        """Esc: back to the instance list (a conversation still going is abandoned)."""
        if self.seat.outcome is not None:
            self._leave(next_one=False)
            return

        def done(confirmed: bool | None) -> None:
            if confirmed:
                self._leave(next_one=False, reason="abandoned")

        self.app.push_screen(
            ConfirmScreen(
                "Leave this conversation? It is recorded as abandoned.", yes="Leave", safe="no"
            ),
            done,
        )

    def _leave(self, *, next_one: bool, reason: str = "next") -> None:
        if self._stop_agent is not None:
            self._stop_agent()
        self.seat.session.close(reason)
        if next_one and self._next_instance is not None:
            self._next_instance()
        else:
            self.dismiss(None)

    def on_unmount(self) -> None:
        if self._stop_agent is not None:
            self._stop_agent()
