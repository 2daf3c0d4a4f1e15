"""Opportunity stage solvers: wrong stage rectification (WSR) and activity priority (AP).

Both read an opportunity's Tasks and Events, whose Subjects each name one activity of one
stage (the stage guide, :data:`crmtui.org.solvers.pro.vocab.ACTIVITIES`, printed in the
org's knowledge article and in the activity-priority instructions).

* WSR: the stage an opportunity belongs in is the most advanced stage in which work was done:
  a Task with Status 'Completed' or an Event (a meeting that took place). The answer is that
  stage when StageName says otherwise, else None.
* AP: the Tasks with Status 'Not Started' whose stage is not the opportunity's StageName,
  sorted by Id; None when there are none.
"""

from __future__ import annotations

from crmtui.org.solvers.common import SolverError, SolverResult, evidence_list
from crmtui.org.solvers.pro.index import Opp, ProIndex, Tables, pro_index
from crmtui.org.solvers.pro.vocab import STAGES, SUBJECT_STAGE

COMPLETED = "Completed"
NOT_STARTED = "Not Started"


def _opportunity(index: ProIndex, opportunity_id: str) -> Opp:
    opp = index.opps.get(opportunity_id)
    if opp is None:
        raise SolverError(f"no opportunity {opportunity_id!r}")
    return opp


def evidenced_stage(index: ProIndex, opportunity_id: str) -> tuple[str | None, list[str]]:
    """The most advanced stage with completed work, and the records of that stage's work."""
    done: dict[int, list[str]] = {}
    for task_id, subject, status in index.tasks_by_opp.get(opportunity_id, ()):
        stage = SUBJECT_STAGE.get(subject)
        if stage is not None and status == COMPLETED:
            done.setdefault(STAGES.index(stage), []).append(task_id)
    for event_id, subject in index.events_by_opp.get(opportunity_id, ()):
        stage = SUBJECT_STAGE.get(subject)
        if stage is not None:
            done.setdefault(STAGES.index(stage), []).append(event_id)
    if not done:
        return None, []
    top = max(done)
    return STAGES[top], sorted(done[top])


def wrong_stage(tables: Tables | ProIndex, opportunity_id: str) -> SolverResult:
    """The stage the opportunity should be in, or None when its StageName is right (or no
    work is recorded to tell).

    Raises:
        SolverError: No such opportunity.
    """
    index = pro_index(tables)
    opp = _opportunity(index, opportunity_id)
    stage, records = evidenced_stage(index, opportunity_id)
    answer = stage if stage is not None and stage != opp.stage else None
    return SolverResult(
        answer,
        evidence_list([opportunity_id, *records]),
        {"recorded": opp.stage, "evidenced": stage},
    )


def activity_priority(tables: Tables | ProIndex, opportunity_id: str) -> SolverResult:
    """The 'Not Started' tasks that do not belong to the opportunity's current stage.

    Raises:
        SolverError: No such opportunity.
    """
    index = pro_index(tables)
    opp = _opportunity(index, opportunity_id)
    off = sorted(
        task_id
        for task_id, subject, status in index.tasks_by_opp.get(opportunity_id, ())
        if status == NOT_STARTED and SUBJECT_STAGE.get(subject) != opp.stage
    )
    pending = sum(
        1 for *_, status in index.tasks_by_opp.get(opportunity_id, ()) if status == NOT_STARTED
    )
    return SolverResult(
        off or None,
        evidence_list([opportunity_id, *off]),
        {"stage": opp.stage, "not_started": pending, "off_stage": len(off)},
    )
