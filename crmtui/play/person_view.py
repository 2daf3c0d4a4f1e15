"""What a person's screens show of an instance, by mode: the one place that decides it.

The play screen (agent seat included) and the as-user screen draw an instance from
:func:`person_view`; what it holds follows :data:`crmtui.data.parity.TABLE` (a test checks
both against it for every task type and mode). It never reads the gold answer, the reward
metric or the task type, so nothing drawn from it can hint at how an answer is scored or
what kind of answer is right.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from crmtui.data.parity import (
    CUSTOMER_FACING,
    EXTERNAL_AUDIENCE,
    INTERNAL_AUDIENCE,
    PERSON_MODES,
    shown,
)

__all__ = ["ANSWER_FORMAT", "PersonView", "audience_line", "person_view"]

#: The answer-format rules every model is given (crmtui/agent/prompts.py), in the words a
#: person reads: the same for every instance, so they say nothing about this one.
ANSWER_FORMAT = "Only the answer · several records: comma-separated · nothing matches: None"

_SYSTEM = "Salesforce instance"


def _pro(instance: Any) -> bool:
    return isinstance(getattr(instance, "answer", None), list | tuple)


def audience_line(instance: Any) -> str | None:
    """Who is asking, as the model is told it (CRMArena-Pro rows; None for CRMArena's).

    The words are the model's (:data:`crmtui.data.parity.INTERNAL_AUDIENCE` and
    ``EXTERNAL_AUDIENCE``, which its prompt uses); whether the asker is a customer is
    decided by the task type, as upstream's prompts decide it, and only this sentence,
    never the type, is shown.
    """
    if not _pro(instance):
        return None
    external = getattr(instance, "task", None) in CUSTOMER_FACING
    return (EXTERNAL_AUDIENCE if external else INTERNAL_AUDIENCE).format(system=_SYSTEM)


@dataclass(frozen=True)
class PersonView:
    """The parts of an instance a person's screens show (None or empty: not shown).

    Attributes:
        query: The request (the user's hidden instruction, for the user seat).
        answer_format: How to answer (:data:`ANSWER_FORMAT`).
        audience: Who is asking (:func:`audience_line`).
        required: The task context (today's date is one of its lines where the row has it).
        optional: The domain details.
        schema: Whether the schema is shown.
        persona: Who the person is (the user seat).
        facts: What else they know (the user seat), as ``name: value`` lines.
    """

    query: str | None
    answer_format: str | None
    audience: str | None
    required: str | None
    optional: str | None
    schema: bool
    persona: str | None
    facts: tuple[str, ...] = ()


def person_view(
    instance: Any, mode: str, *, aided: bool = False, facts: tuple[str, ...] = ()
) -> PersonView:
    """What ``mode`` (one of :data:`~crmtui.data.parity.PERSON_MODES`) shows of ``instance``.

    Args:
        instance: The instance (its query, metadata, persona; never its gold or metric).
        mode: ``play``, ``study``, ``agent`` (a dialogue's agent) or ``user``.
        aided: Aided mode (the domain details).
        facts: The user's hidden facts as lines (:func:`crmtui.play.dialogue_facts.facts_lines`).
    """
    if mode not in PERSON_MODES:
        raise ValueError(f"unknown mode {mode!r}")
    pro = _pro(instance)

    def has(part: str) -> bool:
        return shown(part, mode, pro=pro, aided=aided)

    meta = instance.metadata
    return PersonView(
        query=instance.query if has("query") else None,
        answer_format=ANSWER_FORMAT if has("answer_format") else None,
        audience=audience_line(instance) if has("audience") else None,
        required=meta.required if has("required") else None,
        optional=(meta.optional or None) if has("optional") else None,
        schema=has("schema"),
        persona=getattr(instance, "persona", None) if has("persona") else None,
        facts=tuple(facts) if has("facts") else (),
    )
