"""Opening a study for one annotator: the play settings, the org and tasks, and the plan."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from crmtui.config import PlayConfig
from crmtui.play.workspace import Workspace, load_workspace
from crmtui.study.definition import Study, StudyError, instances_digest, load_study
from crmtui.study.plan import StudyPlan
from crmtui.study.roles import AGENT, USER, channel_name


@dataclass(frozen=True)
class StudySeat:
    """Everything ``crmtui play --study`` (and each served session) starts the app with."""

    study: Study
    config: PlayConfig
    workspace: Workspace
    plan: StudyPlan


def play_config(study: Study, annotator: str, *, fsync: bool = True) -> PlayConfig:
    """The play settings a study imposes on ``annotator``'s sessions (in a multi-turn
    study, their seat: see :func:`seat_settings`)."""
    return PlayConfig(
        tasks=None if study.tasks == "sample" else study.tasks,
        org=study.org,
        annotator=annotator,
        recordings=study.recordings,
        aided=study.settings.aided,
        idle_threshold=study.settings.idle_s,
        fsync=fsync,
        **seat_settings(study, annotator),
    )


def seat_settings(study: Study, annotator: str) -> dict[str, Any]:
    """The conversation side of ``annotator``'s :class:`PlayConfig` in a multi-turn study.

    * agent, no partner: the simulated user (``dialogue``);
    * agent with a person partner: ``dialogue`` with a person user, met on the pair's channel;
    * user, no partner: the study's model agent (``agent``);
    * user with a person partner: ``as_user`` on the pair's channel.
    """
    conversation = study.conversation
    if conversation is None:
        return {}
    role, partner = study.role_of(annotator), study.partner_of(annotator)
    if partner is not None:
        agent, user = (annotator, partner) if role == AGENT else (partner, annotator)
        return {
            "dialogue": conversation.dialogue(person_user=True),
            "channel": channel_name(study.name, agent, user),
            "as_user": role == USER,
        }
    if role == USER:
        return {"agent": conversation.agent()}
    return {"dialogue": conversation.dialogue(person_user=False)}


def check_models(study: Study, annotators: Iterable[str]) -> None:
    """The preflight of the models these annotators' seats talk to (keys, then servers),
    each model once.

    Raises:
        ConfigError: Naming the variable or the URL (one ``Error:`` line).
    """
    from crmtui.agent.preflight import check_agent_settings, check_user_model

    checked: set[str] = set()
    for annotator in annotators:
        settings = seat_settings(study, annotator)
        # The errors name the study's [dialogue] keys: the person typed no flag.
        if settings.get("agent") is not None and "agent" not in checked:
            check_agent_settings(
                settings["agent"],
                flags=("the study's agent_model", "the study's agent_api_base"),
            )
            checked.add("agent")
        elif "channel" not in settings and settings.get("dialogue") and "user" not in checked:
            check_user_model(
                settings["dialogue"],
                flags=("the study's user_model", "the study's user_api_base"),
            )
            checked.add("user")


def check_instances(study: Study, tasks: Any) -> None:
    """Make sure the task source still holds the study's instances, unchanged.

    Raises:
        StudyError: An instance is missing, or one's type or text changed.
    """
    wanted = [*study.design.types, *study.practice]
    missing = [idx for idx in wanted if idx not in tasks]
    if missing:
        raise StudyError(
            f"the study's task source {study.tasks} no longer has instance {missing[0]}"
        )
    if instances_digest(tasks.get(idx) for idx in wanted) != study.instances_digest:
        raise StudyError(
            f"the study's instances in {study.tasks} changed since the study was created "
            "(their type or text differs); annotators must see what the study assigned"
        )


def load_study_workspace(name: str) -> tuple[Study, Workspace]:
    """Load the study and, for any of its annotators, the org and the tasks, checked.

    What every session of the study shares: a served study's pre-started processes load
    it once, before they know whom they will serve (:mod:`crmtui.ui.standby`).

    Raises:
        StudyError: Unknown study, or changed instances.
        CrmtuiError: The org or tasks cannot be loaded.
    """
    study = load_study(name)
    workspace = load_workspace(play_config(study, ""))
    check_instances(study, workspace.tasks)
    return study, workspace


def seat_in(study: Study, annotator: str, workspace: Workspace, *, fsync: bool = True) -> StudySeat:
    """``annotator``'s seat in ``study``, on an already loaded (and checked) workspace.

    Raises:
        StudyError: ``annotator`` is not one of the study's annotators.
    """
    study.assignment(annotator)  # raises StudyError naming the study's annotators
    return StudySeat(
        study, play_config(study, annotator, fsync=fsync), workspace, StudyPlan(study, annotator)
    )


def open_seat(name: str, annotator: str, *, fsync: bool = True) -> StudySeat:
    """Load the study, check the annotator and the instances, and load the org and tasks.

    Raises:
        StudyError: Unknown study or annotator, or changed instances.
        CrmtuiError: The org or tasks cannot be loaded.
    """
    study = load_study(name)
    study.assignment(annotator)  # before the (slower) org and tasks
    plan = StudyPlan(study, annotator)
    config = play_config(study, annotator, fsync=fsync)
    workspace = load_workspace(config)
    check_instances(study, workspace.tasks)
    return StudySeat(study, config, workspace, plan)
