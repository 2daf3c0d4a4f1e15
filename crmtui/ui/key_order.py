"""Keys in the order they were pressed: each key finishes before the next one starts.

Textual 8.2.8 handles a key in steps that overlap with the next key's. The app takes a key
off its queue, runs its *priority* bindings at once, otherwise posts the key to the focused
widget's queue and takes the next key; the widget handles the key later, and the key's
ordinary bindings run only when it has bubbled back up to the app. So:

* a priority binding (Ctrl+T insert, Ctrl+S submit, F5 run, F4 focus) pressed after some
  letters ran *before* them: Ctrl+T put the copied Id inside the sentence being typed;
* a letter shortcut that moves focus (``a``, ``f``, ``/``) moved it after the letters typed
  next had already been posted to the old widget;
* keys pressed while a screen was being built reached a half-built screen (``a`` asked for
  the answer box before it existed: ``NoMatches``).

:class:`OrderedKeys`, an app mixin, makes key handling sequential, as a terminal's own line
discipline is. Keys and pastes (and, while keys wait, mouse buttons and the wheel) queue in
arrival order; the next one is dispatched, exactly as Textual would dispatch it, only when

1. the previous one is *done*: taken by a priority binding, or stopped by the widget that
   handled it, or handled by the app's bindings after bubbling up (each node's
   ``message_signal`` says when it has finished with a message); and
2. the app has *settled*: no node has a message queued (the dialog a key asked for, a focus
   change, a copied value on its way to the register), no screen waits to run callbacks
   after its refresh, and every widget is mounted (a screen being built).

Settling is capped (:data:`SETTLE_LIMIT_S`) so a busy app (a spinner refreshing many times
a second) delays a key by at most that; a screen still mounting is waited for longer
(:data:`MOUNT_LIMIT_S`). A key lost on its way (its widget removed before handling it) is
noticed within :data:`LOST_CHECK_S`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Iterable
from typing import Any

from textual import events
from textual.message import Message
from textual.message_pump import MessagePump

#: Events that always wait their turn: what a person types or pastes.
ORDERED = (events.Key, events.Paste)
#: Events that wait their turn only while keys are waiting (a click moves the cursor).
ORDERED_WHILE_BUSY = (
    events.MouseDown,
    events.MouseUp,
    events.MouseScrollDown,
    events.MouseScrollUp,
    events.MouseScrollLeft,
    events.MouseScrollRight,
)
#: The longest a key waits for the app to settle after the previous key (busy app).
SETTLE_LIMIT_S = 0.1
#: The longest a key waits for a screen (or any widget) still being mounted.
MOUNT_LIMIT_S = 5.0
#: How often a key in flight is checked for being lost (its widget gone).
LOST_CHECK_S = 0.25
#: Delay between two looks at whether the app has settled.
RETRY_S = 0.002


class OrderedKeys:
    """App mixin (list it before ``App``): keys, pastes and clicks take effect in order."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._keys_waiting: deque[events.Event] = deque()
        self._key_in_flight: events.Event | None = None
        self._key_chain: list[MessagePump] = []
        self._keys_pump_posted = False
        self._keys_retry_armed = False
        #: When the line became free (the previous key done): settling is measured from it.
        self._keys_free_since = time.monotonic()

    # -- arrival ---------------------------------------------------------------------------

    async def on_event(self, event: events.Event) -> None:
        if not getattr(event, "is_forwarded", True) and (
            isinstance(event, ORDERED)
            or (isinstance(event, ORDERED_WHILE_BUSY) and self._keys_busy)
        ):
            self._keys_waiting.append(event)
            self._post_pump()
            return
        if event is self._key_in_flight and event.is_forwarded:
            # The key bubbled back up to the app: its ordinary bindings run now.
            try:
                await super().on_event(event)  # type: ignore[misc]
            finally:
                self._key_done(event)
            return
        await super().on_event(event)  # type: ignore[misc]

    @property
    def _keys_busy(self) -> bool:
        return bool(self._keys_waiting) or self._key_in_flight is not None

    @property
    def keys_pending(self) -> int:
        """Keys (and queued clicks) received but not yet finished: waiting plus in flight."""
        return len(self._keys_waiting) + (self._key_in_flight is not None)

    # -- dispatch --------------------------------------------------------------------------

    def _post_pump(self) -> None:
        """Look at the line again from the app's own queue, behind what is already there."""
        if not self._keys_pump_posted:
            self._keys_pump_posted = True
            app: Any = self
            app.call_later(self._pump_keys)

    def _retry_pump(self) -> None:
        if self._keys_retry_armed:
            return
        self._keys_retry_armed = True

        def retry() -> None:
            self._keys_retry_armed = False
            self._post_pump()

        asyncio.get_running_loop().call_later(RETRY_S, retry)

    async def _pump_keys(self) -> None:
        self._keys_pump_posted = False
        app: Any = self
        while self._keys_waiting and self._key_in_flight is None:
            if app._closing or app._exit:
                self._keys_waiting.clear()
                return
            if not self._keys_may_go():
                self._retry_pump()
                return
            event = self._keys_waiting.popleft()
            await self._dispatch(event)
            if self._key_in_flight is None:
                # Taken at once (a priority binding, a click): what it set off runs first.
                self._keys_free_since = time.monotonic()
                self._post_pump()
                return

    def _keys_may_go(self) -> bool:
        waited = time.monotonic() - self._keys_free_since
        mounting, busy = self._unsettled()
        if mounting:
            return waited >= MOUNT_LIMIT_S
        if busy:
            return waited >= SETTLE_LIMIT_S
        return True

    async def _dispatch(self, event: events.Event) -> None:
        app: Any = self
        tracked = isinstance(event, ORDERED)
        if tracked:
            target = app.focused or app.screen
            self._key_in_flight = event
            self._key_chain = [node for node in target.ancestors_with_self if node is not app]
            for node in self._key_chain:
                node.message_signal.subscribe(
                    app, lambda message, node=node: self._key_seen(node, message), immediate=True
                )
        try:
            await super().on_event(event)  # type: ignore[misc]
        except BaseException:
            if tracked:
                self._key_done(event)
            raise
        if not tracked:
            return
        if not event.is_forwarded:
            self._key_done(event)  # a priority binding took it (or Escape un-maximised)
        elif self._key_in_flight is event:
            asyncio.get_running_loop().call_later(LOST_CHECK_S, self._check_lost, event)

    def _key_seen(self, node: MessagePump, message: Message) -> None:
        """``node`` finished handling ``message``: the key is done if it goes no further."""
        if message is not self._key_in_flight:
            return
        goes_on = (
            message.bubble
            and not message._stop_propagation
            and node._parent is not None
            and node.is_parent_active
            and node.is_attached
        )
        if not goes_on:
            assert isinstance(message, events.Event)
            self._key_done(message)

    def _key_done(self, event: events.Event) -> None:
        if self._key_in_flight is not event:
            return
        app: Any = self
        for node in self._key_chain:
            node.message_signal.unsubscribe(app)
        self._key_chain = []
        self._key_in_flight = None
        self._keys_free_since = time.monotonic()
        if self._keys_waiting:
            self._post_pump()

    def _check_lost(self, event: events.Event) -> None:
        """A key in flight for a while: still queued somewhere, or lost with its widget?"""
        if self._key_in_flight is not event:
            return
        app: Any = self
        if any(_holds(node, event) for node in [*self._key_chain, app]):
            asyncio.get_running_loop().call_later(LOST_CHECK_S, self._check_lost, event)
            return
        # Not queued anywhere: its widget went away (or a handler is still awaiting
        # something): let the next key go rather than hold every key after it.
        self._key_done(event)

    # -- settling --------------------------------------------------------------------------

    def _unsettled(self) -> tuple[bool, bool]:
        """(a widget is still being mounted, some message is still waiting somewhere)."""
        app: Any = self
        busy = not app._message_queue.empty()
        with contextlib.suppress(Exception):  # no screen yet: nothing to wait for
            busy = busy or bool(app.screen._callbacks)
        mounting = False
        for node in _live(app._registry):
            if not node._is_mounted:
                mounting = True
                break
            if not busy and (
                not node._message_queue.empty()
                or node._next_callbacks
                or node._pending_message is not None
            ):
                busy = True
        return mounting, busy


def _live(nodes: Iterable[MessagePump]) -> Iterable[MessagePump]:
    for node in list(nodes):
        if not (node._closing or node._closed):
            yield node


def _holds(node: MessagePump, event: events.Event) -> bool:
    """Whether ``event`` waits in ``node``'s queue (a running node's)."""
    if node._closing or node._closed:
        return False
    if node._pending_message is event:
        return True
    queued: Iterable[Any] = getattr(node._message_queue, "_queue", ())
    return any(item is event for item in queued)
