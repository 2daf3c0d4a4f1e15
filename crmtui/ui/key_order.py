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

Repaints do not count (a spinner refreshes many times a second and decides nothing), and
settling is capped at :data:`SETTLE_LIMIT_S` for liveness only. A key lost on its way (its
widget removed before handling it) is noticed within :data:`LOST_CHECK_S`.

One shortcut keeps a burst of typing cheap: once the focused text field has taken (and
stopped) a printable character, the printable characters waiting behind it are handed to it
together, as Textual itself would, without the app settling in between; only the last is
tracked, and when the field is done with it, it is done with all of them. What each one sets
off (the field's ``Changed``, the answer box's ``Edited`` on their way up) is queued ahead of
what the next one sets off, in every node's queue, so the order is the same; and a character
typed into a field moves no focus and opens nothing. Any other key (a binding, Enter, Tab, a
shortcut letter outside a text field) still waits for the app to settle.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections import deque
from collections.abc import Iterable
from typing import Any

from textual import events, messages
from textual.message import Message
from textual.message_pump import MessagePump
from textual.widgets import Input

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
#: The longest a key waits for the app to settle after the previous key: only for liveness
#: (settling takes milliseconds; a loaded machine can stretch a dialog's mount to a second).
SETTLE_LIMIT_S = 5.0
#: Messages that only repaint or scroll (a spinner posts them many times a second): they
#: never decide where a key goes, so they do not hold keys back.
REPAINTS: tuple[type[Message], ...] = (
    messages.Update,
    messages.Layout,
    messages.UpdateScroll,
    messages.ScrollToRegion,
    messages.Prompt,
)
#: How often a key in flight is checked for being lost (its widget gone).
LOST_CHECK_S = 0.25
#: Turns of the event loop a key waits for the app to settle before waiting on a timer.
INLINE_TURNS = 8
#: Delay between two looks at whether the app has settled, once the turns are spent.
RETRY_S = 0.002
#: The module of TextArea, not imported here: it loads tree-sitter, a noticeable part of a
#: cold start before the picker, which has no TextArea (docs/performance.md). No TextArea
#: can exist before its module is loaded.
_TEXT_AREA_MODULE = "textual.widgets._text_area"
#: The most characters handed on together (the screen is drawn between two such runs).
TYPING_RUN = 64


def is_text_field(node: object) -> bool:
    """Whether ``node`` is an Input or a TextArea: widgets whose printable keys may follow
    each other without the app settling in between."""
    if isinstance(node, Input):
        return True
    text_area = sys.modules.get(_TEXT_AREA_MODULE)
    return text_area is not None and isinstance(node, text_area.TextArea)


class OrderedKeys:
    """App mixin (list it before ``App``): keys, pastes and clicks take effect in order."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._keys_waiting: deque[events.Event] = deque()
        self._key_in_flight: events.Event | None = None
        self._key_chain: list[MessagePump] = []
        self._keys_pump_posted = False
        self._keys_retry_armed = False
        #: The key at the head of the line and when it started waiting for the app to settle.
        self._keys_head: tuple[events.Event, float] | None = None
        #: The text field that took (and stopped) the last key, a printable one; else None.
        self._typed_into: MessagePump | None = None

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
        """Keys and pastes not yet finished: still in the app's queue, waiting their turn,
        or in flight (and clicks waiting behind them)."""
        arrived = sum(
            1
            for message in queued(self)
            if isinstance(message, ORDERED)  # type: ignore[arg-type]
        )
        return arrived + len(self._keys_waiting) + (self._key_in_flight is not None)

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
            if app._closing or app._exit or not app.is_running:
                self._keys_waiting.clear()  # the app is ending: nobody to type to
                return
            head = self._keys_waiting[0]
            if self._follows_typing(head):
                await self._dispatch_typing()
            elif not await self._settled(head):
                return  # looked at again later
            else:
                await self._dispatch(self._keys_waiting.popleft())
            if self._key_in_flight is None:
                # Taken at once (a priority binding, a click): what it set off runs first.
                self._post_pump()
                return

    async def _settled(self, head: events.Event) -> bool:
        """Wait for the app to settle, a few turns of the event loop at most.

        The other widgets work through what the last key set off while this yields; if the
        app's own queue gets work (a message bubbling up, a focus change), or it takes
        longer (a screen being mounted), the line is looked at again from the app's queue
        and False is returned.
        """
        app: Any = self
        for _ in range(INLINE_TURNS):
            if self._keys_may_go(head):
                return True
            if _waiting(app):
                self._post_pump()  # behind the app's own work
                return False
            await asyncio.sleep(0)
        self._retry_pump()
        return False

    def _follows_typing(self, head: events.Event) -> bool:
        """Whether ``head`` is a character typed on into the field that took the last one."""
        field = self._typed_into
        if field is None or not (isinstance(head, events.Key) and head.is_printable):
            return False
        app: Any = self
        return app.focused is field and field.is_attached and not _waiting(app)

    def _keys_may_go(self, head: events.Event) -> bool:
        if not self._unsettled():
            return True
        now = time.monotonic()
        if self._keys_head is None or self._keys_head[0] is not head:
            self._keys_head = (head, now)
        return now - self._keys_head[1] >= SETTLE_LIMIT_S

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

    async def _dispatch_typing(self) -> None:
        """Hand the run of printable characters at the head of the line on together."""
        run: list[events.Event] = []
        while self._keys_waiting and len(run) < TYPING_RUN:
            event = self._keys_waiting[0]
            if not (isinstance(event, events.Key) and event.is_printable):
                break
            run.append(self._keys_waiting.popleft())
        for position, event in enumerate(run):
            if position == len(run) - 1:
                await self._dispatch(event)  # the last one is tracked: done means all done
                return
            await super().on_event(event)  # type: ignore[misc]
            if not event.is_forwarded:
                # A priority binding took it: what it set off runs before the rest.
                self._keys_waiting.extendleft(reversed(run[position + 1 :]))
                self._typed_into = None
                return

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
            app: Any = self
            typed = (
                isinstance(message, events.Key)
                and message.is_printable
                and message._stop_propagation
                and node is app.focused
                and is_text_field(node)
            )
            self._key_done(message, typed_into=node if typed else None)

    def _key_done(self, event: events.Event, typed_into: MessagePump | None = None) -> None:
        if self._key_in_flight is not event:
            return
        self._typed_into = typed_into
        app: Any = self
        for node in self._key_chain:
            node.message_signal.unsubscribe(app)
        self._key_chain = []
        self._key_in_flight = None
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

    def _unsettled(self) -> bool:
        """Whether the app is still busy with what came before: a widget being mounted, a
        message waiting in some queue (repaints aside), or callbacks waiting for a refresh."""
        app: Any = self
        if _waiting(app):
            return True
        with contextlib.suppress(Exception):  # no screen yet: nothing to wait for
            if app.screen._callbacks:
                return True
        for node in app._registry:
            # The common case first, cheaply: nothing queued and mounted.
            if node._is_mounted and not (
                node._next_callbacks or node._pending_message or node._message_queue.values
            ):
                continue
            if not (node._closing or node._closed) and (not node._is_mounted or _waiting(node)):
                return True
        return False


def queued(node: MessagePump) -> Iterable[Message | None]:
    """The messages waiting in ``node``'s queue, first first (the one it peeked at too).

    Textual 8.2.8's pumps use their own cut-down queue (``textual._queue.Queue``), whose
    items are its ``values`` deque; tests/ui/test_key_order.py fails if that changes.
    """
    pending = node._pending_message
    if pending is not None:
        yield pending
    yield from node._message_queue.values


def _waiting(node: MessagePump) -> bool:
    """Whether ``node`` has work queued that is more than repainting."""
    if node._next_callbacks:
        return True
    return any(not isinstance(item, REPAINTS) for item in queued(node))


def _holds(node: MessagePump, event: events.Event) -> bool:
    """Whether ``event`` waits in ``node``'s queue (a running node's)."""
    if node._closing or node._closed:
        return False
    return any(item is event for item in queued(node))
