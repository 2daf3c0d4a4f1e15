"""The play screen's conversation, when a person plays the agent of a dialogue.

A mixin for :class:`~crmtui.ui.screens.play.PlayScreen`. The instance's query is not shown
(the agent of CRMArena-Pro's multi-turn mode never sees it): the chat region takes the
query's place, the user's first message arrives as the instance opens, and each message the
person sends (Enter in the reply box) goes to the user, whose reply comes back in a worker.
The person's last message before the user ends the conversation is the scored answer; the
answer box is not used. The recording is done by :class:`~crmtui.play.dialogue_session.AgentSeat`.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from textual import work
from textual.message import Message

from crmtui.errors import CrmtuiError
from crmtui.play.channel import PartnerGone
from crmtui.play.dialogue import ACCEPTED, GREETING, MAX_USER_TURNS
from crmtui.play.dialogue_session import AgentSeat
from crmtui.play.dialogue_sides import DialogueCancelled, UserReply
from crmtui.ui.widgets.chat import ChatPanel


class UserAnswered(Message):
    """The user's message arrived (the opening, or a reply)."""

    def __init__(self, reply: UserReply) -> None:
        self.reply = reply
        super().__init__()


class UserFailed(Message):
    """The user side failed (a simulated user's model error)."""

    def __init__(self, error: str) -> None:
        self.error = error
        super().__init__()


class UserLeft(Message):
    """The user (a person elsewhere) left, or stopped answering."""

    def __init__(self, why: str) -> None:
        self.why = why
        super().__init__()


class PlayChat:
    """The conversation of a play screen whose session has an :class:`AgentSeat`."""

    #: The agent's seat of the dialogue; None for a single-turn instance.
    seat: AgentSeat | None = None
    _chat_cancel: threading.Event | None = None

    @property
    def in_dialogue(self) -> bool:
        """Whether this instance is a conversation with a user."""
        return self.seat is not None

    def start_dialogue(self: Any) -> None:
        """Show the greeting and wait for the user's opening message."""
        seat = self.seat
        assert seat is not None
        self._chat_cancel = threading.Event()
        chat = self.query_one(ChatPanel)
        chat.border_title = f"Conversation with the user ({seat.spec.user.label})"
        chat.add_note(f"You greet the user: {GREETING}")
        channel = (seat.spec.user.settings or {}).get("channel")
        if channel:
            chat.add_note(f"The user is a person (channel {channel}): they see what you send.")
        chat.set_state(False, "Waiting for the user's first message…")
        chat.focus_reply()
        self._wait_for_user(None)

    @work(thread=True, exclusive=True, group="dialogue")
    def _wait_for_user(self: Any, text: str | None) -> None:
        seat = self.seat
        try:
            if text is None:
                reply = seat.fetch_opening(self._chat_cancel)
            else:
                reply = seat.fetch_reply(text, self._chat_cancel)
        except DialogueCancelled:
            return
        except PartnerGone as exc:
            self.post_message(UserLeft(str(exc)))
            return
        except CrmtuiError as exc:  # a model error of the simulated user, a channel error
            self.post_message(UserFailed(str(exc)))
            return
        self.post_message(UserAnswered(reply))

    def on_user_answered(self: Any, event: UserAnswered) -> None:
        seat = self.seat
        chat = self.query_one(ChatPanel)
        try:
            message = seat.user_said(event.reply)
        except CrmtuiError as exc:
            self.notify(str(exc), severity="error", title="Recording error")
            return
        chat.add_message("user", message.text)
        if seat.end is not None:
            self._dialogue_over()
            return
        left = seat.dialogue.replies_left
        chat.set_state(True, f"Your turn · the user replies {left} more time(s) at most")
        if seat.live:  # a person elsewhere may end it while you type: keep listening
            self._wait_for_user(None)

    def on_user_left(self: Any, event: UserLeft) -> None:
        chat = self.query_one(ChatPanel)
        chat.add_note(f"The conversation ended: {event.why} (recorded as abandoned).")
        chat.close("Ended (abandoned) · F9: next instance")
        self.seat.user_left(event.why)
        self.notify(event.why, severity="warning", title="The user is gone")
        self._tick()

    def on_user_failed(self: Any, event: UserFailed) -> None:
        chat = self.query_one(ChatPanel)
        chat.add_note(f"The user could not answer: {event.error}")
        chat.close("The conversation ended (the user model failed).")
        self.seat.user_failed(event.error)
        self.notify(event.error, severity="error", title="The user model failed")
        self._tick()

    def on_chat_panel_reply_sent(self: Any, event: ChatPanel.ReplySent) -> None:
        event.stop()
        seat = self.seat
        if seat is None:
            return
        if not seat.my_turn:
            self.notify("Wait for the user's message first.", severity="warning")
            return
        try:
            seat.send(event.text)
        except CrmtuiError as exc:
            self.notify(str(exc), severity="error", title="Not sent")
            return
        chat = self.query_one(ChatPanel)
        chat.add_message("agent", event.text)
        chat.set_state(False, "Waiting for the user's reply…")
        if not seat.live:  # a live user is listened to already (and got the message)
            self._wait_for_user(event.text)

    def _dialogue_over(self: Any) -> None:
        """The user ended the conversation: show how, and the score of an accepted answer."""
        seat = self.seat
        end = seat.end
        chat = self.query_one(ChatPanel)
        if end.message == ACCEPTED and seat.score is not None:
            chat.add_note("The user ended the conversation: your last message is your answer.")
            chat.close("Ended · your last message was scored · F9: next instance")
            self.show_score(seat.score)
            return
        why = (
            "the user's replies ran out"
            if end.message == MAX_USER_TURNS
            else "the user ended it before you said anything"
        )
        chat.add_note(f"The conversation ended without an answer: {why} (reward 0).")
        chat.close("Ended without an answer · F9: next instance")
        self._tick()

    def stop_dialogue(self) -> None:
        """Stop waiting for the user (the screen is closing)."""
        if self._chat_cancel is not None:
            self._chat_cancel.set()
        if self.seat is not None:
            with contextlib.suppress(CrmtuiError):  # leaving anyway: the user's side times out
                self.seat.leave("the agent left")
