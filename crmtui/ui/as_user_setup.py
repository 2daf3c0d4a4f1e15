"""Opening an instance with a person as the user and a model as the agent (``--as-user``).

Two recordings start together, with one dialogue id: the person's (a play session whose
header says they play the user) and the model's (an agent session whose header says it plays
the agent, with the person as its user). The model runs later in the screen's worker
thread, talking to the person through a :class:`~crmtui.play.dialogue_sides.PersonUser`.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from typing import Any

from crmtui.play.dialogue import DialogueSpec, Side
from crmtui.play.dialogue_facts import hidden_facts
from crmtui.play.dialogue_sides import PersonUser
from crmtui.play.session import PlaySession
from crmtui.play.user_seat import Brief, UserSeat

__all__ = ["AsUserStart", "start_as_user", "start_as_user_with_person"]


class AsUserStart:
    """What the as-user screen needs: the seat, the brief, and the agent to run."""

    def __init__(
        self,
        seat: UserSeat,
        brief: Brief,
        agent_run: Callable[..., None] | None,
        stop_agent: Callable[[], None],
        agent_feed: Callable[..., None] | None = None,
    ) -> None:
        self.seat = seat
        self.brief = brief
        self.agent_run = agent_run
        self.stop_agent = stop_agent
        self.agent_feed = agent_feed


def start_as_user(
    instance: Any,
    workspace: Any,
    *,
    annotator: str,
    agent: Any,
    recordings: Any,
    session_options: dict[str, Any],
    monotonic: Callable[[], float] | None = None,
) -> AsUserStart:
    """Start both recordings of a person (the user) talking to a model agent.

    Args:
        instance: The instance.
        workspace: The org and tasks.
        annotator: The person's name.
        agent: The model agent's :class:`~crmtui.agent.settings.AgentSettings` (its
            ``dialogue`` holds the limit on user turns).
        recordings: Where both recordings go.
        session_options: The person's :meth:`PlaySession.begin` options (clock, scorer...).
        monotonic: The agent recording's clock (tests).

    Raises:
        CrmtuiError: A recording cannot be created or the settings are impossible.
    """
    from crmtui.agent.runner import EpisodeOptions
    from crmtui.agent.session import AgentSession, strategy_label

    org = workspace.org
    strategy = agent.strategy_object()
    turns = agent.dialogue.max_user_turns
    dialogue_id = uuid.uuid4().hex
    agent_side = Side("model", agent.model, strategy_label(strategy))
    person = Side("human", annotator)
    spec = DialogueSpec("user", agent_side, person, turns, dialogue_id)
    session = PlaySession.begin(
        instance,
        org,
        actor={"kind": "human", "id": annotator},
        tasks_source=workspace.tasks_label,
        recordings=recordings,
        dialogue=spec.to_json(),
        **session_options,
    )
    agent_spec = DialogueSpec("agent", agent_side, person, turns, dialogue_id)
    model = AgentSession.begin(
        instance,
        org,
        model=agent.model,
        strategy=strategy,
        tasks_source=workspace.tasks_label,
        recordings=recordings,
        aided=agent.aided,
        scorer=agent.scorer(instance),
        monotonic=monotonic,
        fsync=agent.fsync,
        today=agent.today(instance),
        settings=agent.resolved.with_sources(
            tasks=workspace.tasks_label, org=org.name, org_digest=org.digest
        ).to_json(),
        dialogue=agent_spec.to_json(),
    )
    user = PersonUser(person)
    cancel = threading.Event()
    seat = UserSeat(session, spec, user.say, user.end)
    brief = Brief.of(instance, hidden_facts(org.path, instance.idx))

    def agent_run(
        on_message: Callable[[str], None],
        on_step: Callable[[Any], None],
        on_done: Callable[[dict[str, Any], Any], None],
    ) -> None:
        from crmtui.agent.execution import make_query_executor
        from crmtui.agent.session import HARNESS_ERROR
        from crmtui.errors import CrmtuiError

        user.on_agent_message = on_message
        try:
            client = agent.client()
            execute = make_query_executor(org, agent.today(instance))
            schema_text = strategy.schema_text(org.schema)  # may need upstream's harness
        except CrmtuiError as exc:
            model.end_now("runner", HARNESS_ERROR, str(exc))
            on_done({"source": "runner", "message": HARNESS_ERROR, "content": str(exc)}, None)
            return
        result = model.run(
            client,
            execute,
            EpisodeOptions(
                schema_text=schema_text,
                max_turns=agent.max_turns,
                time_limit_s=agent.time_limit_s,
                aided=agent.aided,
                on_step=on_step,
                cancel=cancel,
                observation_cap=agent.resolved.observation_chars,
            ),
            user=user,
            max_user_turns=turns,
        )
        reward = result.reward if isinstance(result.reward, int | float) else None
        on_done(result.end_reason, reward)

    def stop_agent() -> None:
        cancel.set()
        model.end_now("runner", "Stopped", "the user left")

    return AsUserStart(seat, brief, agent_run, stop_agent)


def start_as_user_with_person(
    instance: Any,
    workspace: Any,
    *,
    annotator: str,
    channel: Any,
    recordings: Any,
    session_options: dict[str, Any],
) -> AsUserStart:
    """Start the person's recording as the user of the person agent met on ``channel``
    (a :class:`~crmtui.play.channel.Channel` the agent has joined).

    The agent (``play --interactive --channel NAME``, in another process) records the
    episode; this recording holds the user's side, with the channel's dialogue id.

    Raises:
        CrmtuiError: The recording cannot be created.
    """
    from crmtui.play.channel_sides import ChannelAgent

    side = channel
    agent = ChannelAgent(side)
    name = side.path.parent.name
    partner = Side("human", str(side.partner_name), settings={"channel": name})
    person = Side("human", annotator)
    spec = DialogueSpec("user", partner, person, side.max_user_turns, side.dialogue_id)
    try:
        session = PlaySession.begin(
            instance,
            workspace.org,
            actor={"kind": "human", "id": annotator},
            tasks_source=workspace.tasks_label,
            recordings=recordings,
            dialogue=spec.to_json(),
            **session_options,
        )
    except Exception:
        side.leave("the user could not start")
        raise
    seat = UserSeat(session, spec, agent.send, agent.stop)
    brief = Brief.of(instance, hidden_facts(workspace.org.path, instance.idx))
    return AsUserStart(seat, brief, None, agent.leave, agent_feed=agent.feed)
