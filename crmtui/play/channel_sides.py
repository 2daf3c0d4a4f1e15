"""The two sides of a person-to-person conversation, over a :class:`~crmtui.play.channel.Channel`.

:class:`ChannelUser` is what the agent's play screen talks to when the user is a person in
another process; :class:`ChannelAgent` is what the user's screen talks to when the agent
is. Both only read and append the channel's lines (:mod:`crmtui.play.channel`); the waits
block and belong in worker threads. Nothing here imports textual.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from crmtui.errors import CrmtuiError
from crmtui.play.channel import ABANDONED, Channel, ChannelError
from crmtui.play.dialogue import STOP_TOKEN, Side
from crmtui.play.dialogue_sides import DialogueCancelled, UserReply

__all__ = ["ChannelAgent", "ChannelUser"]


class ChannelUser:
    """The user of a person's dialogue is a person in another process (the agent's side).

    ``side`` names the person who joined (:meth:`Channel.wait_for_partner`). The play
    screen listens all the time (:meth:`listen`, in a worker), so a ``###STOP###``
    sent while the agent is still typing ends the conversation at once; the agent's
    messages go out with :meth:`deliver`.
    """

    #: The play screen listens continuously instead of waiting per message.
    live = True

    def __init__(self, channel: Channel, side: Side) -> None:
        self.channel = channel
        self.side = side

    def listen(self, cancel: threading.Event | None = None) -> UserReply:
        """The user's next message (``###STOP###`` included)."""
        event = self.channel.next_event(cancel)
        if event.kind != "message":
            raise ChannelError(f"the user's side sent {event.kind!r} where a message belongs")
        return UserReply(event.text)

    def opening(
        self, cancel: threading.Event | None = None, timeout: float | None = None
    ) -> UserReply:
        """The user's first message (a person: ``timeout`` does not bound the wait)."""
        return self.listen(cancel)

    def reply(
        self, agent_text: str, cancel: threading.Event | None = None, timeout: float | None = None
    ) -> UserReply:
        """Send ``agent_text`` and wait for the answer (``timeout`` does not bound a person)."""
        self.deliver(agent_text)
        return self.listen(cancel)

    def deliver(self, text: str) -> None:
        """The agent's message to the user."""
        self.channel.say(text)

    def ended_by_user(self) -> bool:
        """The user's ``###STOP###`` arrives as a message: never out of band."""
        return False

    def episode_ended(self, end_reason: dict[str, Any], reward: float | None) -> None:
        """Tell the user how the episode ended (its recording closes with it)."""
        self.channel.post("end", end_reason=end_reason, reward=reward)

    def leave(self, why: str) -> None:
        """The agent leaves before the end."""
        self.channel.leave(why)


class ChannelAgent:
    """The agent of a person's dialogue is a person in another process (the user's side).

    :meth:`send` and :meth:`stop` are the as-user screen's ``send`` and ``stop``;
    :meth:`feed` runs in its worker and hands over the agent's messages and its end.
    """

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.cancel = threading.Event()

    def send(self, text: str) -> None:
        """The person's message to the agent."""
        self.channel.say(text)

    def stop(self) -> None:
        """The end key: ``###STOP###``."""
        self.channel.say(STOP_TOKEN)

    def feed(
        self,
        on_message: Callable[[str], None],
        on_done: Callable[[dict[str, Any], float | None], None],
    ) -> None:
        """Hand over the agent's messages until its episode ends (or it is gone)."""
        while True:
            try:
                event = self.channel.next_event(self.cancel)
            except DialogueCancelled:
                return
            except CrmtuiError as exc:
                on_done({"source": "agent", "message": ABANDONED, "content": str(exc)}, None)
                return
            if event.kind == "message":
                on_message(event.text)
                continue
            reward = event.data.get("reward")
            reason = event.data.get("end_reason")
            on_done(
                dict(reason) if isinstance(reason, dict) else {"message": "finished"},
                float(reward) if isinstance(reward, int | float) else None,
            )
            return

    def leave(self) -> None:
        """The person leaves (a no-op once the agent ended the episode)."""
        self.cancel.set()
        self.channel.leave("the user left")
