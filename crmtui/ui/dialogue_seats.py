"""The seats of a conversation (multi-turn play): a mixin of :class:`~crmtui.ui.app.CrmtuiApp`.

Who answers the person, and how they meet: a simulated user (``play --interactive``), the
person who joined the same channel (``--channel``; both sides wait for each other), or a
model agent when the person plays the user (``--as-user``). A conversation that ended
with an outcome counts once, like a submission: it is not had again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from crmtui.errors import CrmtuiError

if TYPE_CHECKING:
    from crmtui.config import PlayConfig
    from crmtui.play.workspace import Workspace


class DialogueSeats:
    """Opens a conversation's seat for the person, with whoever plays the other side."""

    config: PlayConfig
    plan: Any
    workspace: Workspace | None
    #: ``--channel``: the channels whose other person has joined, by instance.
    _met: dict[int, Any]
    clock: Callable[[], float]
    wall: Any
    scorer: Any
    session: Any
    notify: Callable[..., Any]
    push_screen: Callable[..., Any]
    open_instance: Callable[..., bool]
    _next_instance: Callable[[], None]
    _play_ended: Callable[[Any], None]

    def _conversation_over(self, idx: int) -> bool:
        """Whether ``idx``'s conversation already ended with an outcome (said on screen):
        like a submission, it counts once and is not had again."""
        from crmtui.play.progress import conversation_over

        assert self.workspace is not None
        over = conversation_over(
            self.config.recordings, self.config.annotator, self.workspace.tasks_label, idx
        )
        if over is not None:
            self.notify(
                f"This conversation is over ({over.reason}); it counts once.",
                title=f"Instance {idx}",
            )
        return over is not None

    def _open_as_user(self, idx: int) -> bool:
        """``--as-user``: the person plays the user; a model plays the agent (True: opened)."""
        from crmtui.play.session import default_scorer
        from crmtui.ui.as_user_setup import start_as_user, start_as_user_with_person
        from crmtui.ui.screens.as_user import UserScreen

        assert self.workspace is not None
        if self.config.channel is not None and idx not in self._met:
            try:
                return self._meet(self.workspace.tasks.get(idx), None)
            except CrmtuiError as exc:
                self.notify(str(exc), severity="error", title="Cannot open instance")
                return False
        options = dict(
            idle_threshold=self.config.idle_threshold,
            clock=self.clock,
            wall=self.wall,
            scorer=self.scorer or default_scorer,
            fsync=self.config.fsync,
        )
        try:
            instance = self.workspace.tasks.get(idx)
            if self.config.channel is not None:
                start = start_as_user_with_person(
                    instance,
                    self.workspace,
                    annotator=self.config.annotator,
                    channel=self._met.pop(idx),
                    recordings=self.config.recordings,
                    session_options=options,
                )
            else:
                start = start_as_user(
                    instance,
                    self.workspace,
                    annotator=self.config.annotator,
                    agent=self.config.agent,
                    recordings=self.config.recordings,
                    session_options=options,
                )
        except CrmtuiError as exc:
            self.notify(str(exc), severity="error", title="Cannot open instance")
            return False
        self.session = start.seat.session
        screen = UserScreen(
            start.seat,
            start.brief,
            agent_run=start.agent_run,
            agent_feed=start.agent_feed,
            stop_agent=start.stop_agent,
            next_instance=self._next_instance,
        )
        self.push_screen(screen, self._play_ended)
        return True

    def _dialogue_for(self, instance: Any) -> tuple[Any, Any]:
        """The user and the header's dialogue for ``instance`` (``(None, None)``: single-turn).

        ``play --interactive``: a simulated user answers the person, who plays the agent.
        """
        settings = self.config.dialogue
        if settings is None or not settings.interactive:
            return None, None
        from crmtui.play.dialogue import DialogueSpec, Side

        assert self.workspace is not None
        me = Side("human", self.config.annotator)
        if self.config.channel is not None:
            return self._person_user(instance, me, settings)
        client = settings.user_client(timeout=60.0)
        user = settings.simulated_user(instance, self.workspace.org.path, client)
        return user, DialogueSpec("agent", me, user.side, settings.max_user_turns)

    def _person_user(self, instance: Any, me: Any, settings: Any) -> tuple[Any, Any]:
        """``play --interactive --channel NAME``: the user is the person who joined."""
        from crmtui.play.channel_sides import ChannelUser
        from crmtui.play.dialogue import DialogueSpec, Side

        side = self._met.pop(instance.idx)
        user = Side("human", side.partner_name, settings={"channel": self.config.channel})
        spec = DialogueSpec("agent", me, user, side.max_user_turns, side.dialogue_id)
        return ChannelUser(side, user), spec

    def _meet(self, instance: Any, resume_path: Any) -> bool:
        """``--channel``: join the instance's conversation, and open the instance once the
        other person is there too (at once if they were first; else after a wait the
        person may give up). Both headers then name both people."""
        from crmtui.play.channel import PARTNER_TIMEOUT_S, Channel
        from crmtui.ui.screens.waiting import WaitingScreen

        assert self.config.channel is not None and self.config.dialogue is not None
        idx = instance.idx
        try:
            side = Channel.open(
                self.config.recordings,
                self.config.channel,
                idx,
                "user" if self.config.as_user else "agent",
                self.config.annotator,
                max_user_turns=self.config.dialogue.max_user_turns,
                partner_timeout_s=self.config.partner_timeout_s or PARTNER_TIMEOUT_S,
            )
            side.poll()
        except CrmtuiError as exc:
            self.notify(str(exc), severity="error", title="Cannot open instance")
            return False

        def met(name: str | None) -> None:
            if name is not None:
                self._met[idx] = side
                self.open_instance(idx, resume_path)

        if side.partner_name is not None:
            met(side.partner_name)
        else:
            self.push_screen(WaitingScreen(side, self.config.channel, self._joins(idx)), met)
        return True

    def _joins(self, idx: int) -> str | None:
        """How the partner joins, in a study (None: not a study; the command line says)."""
        study = getattr(self.plan, "study", None)
        if study is None:
            return None
        partner = study.partner_of(self.config.annotator) or "your partner"
        return (
            f"by opening instance {idx} in study {study.name}: {partner}'s sign-in link, or "
            f"crmtui play --study {study.name} --annotator {partner}"
        )

    def prepare_models(self) -> None:
        """Load litellm in the background when a model will answer the person (a simulated
        user, or a model agent): seconds of CPU that the first message otherwise waited for
        (docs/performance.md), spent while the list is read."""
        settings = self.config.dialogue
        simulated = (
            settings is not None
            and settings.interactive
            and self.config.channel is None
            and bool(settings.user_model)
        )
        if not simulated and self.config.agent is None:
            return
        import threading

        from crmtui.agent.client import load_litellm

        # Daemon: a quit before it is done does not wait for it. load_litellm holds its own
        # lock, so the first message's worker waits for this import rather than repeating it.
        threading.Thread(target=load_litellm, name="crmtui-load-litellm", daemon=True).start()
