"""Samplers of the task types about one record: wrong stage, activity priority, invalid
config, quote approval and lead qualification.

Answered instances come from the records the generator planted a defect in
(``truth["pro"]["plants"]``, ``truth["pro"]["bant"]``); no-answer ones from ordinary records
of the same kind, chosen so that the question is still a real one (an opportunity with work
recorded, a quote with lines, a lead with qualification calls). Invalid config's come from the
compliant quotes the generator gave decoys (``plants["config_decoys"]``,
:mod:`crmtui.org.generator.pro.misconfig`).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from crmtui.org.pro_tasks import texts
from crmtui.org.pro_tasks.common import ProCandidate, ProFacts
from crmtui.org.solvers.pro import activity_priority, lead_qualification, quote_policy, wrong_stage
from crmtui.org.solvers.pro.stages import NOT_STARTED


def _plants(facts: ProFacts, key: str) -> list[str]:
    return list(facts.truth["pro"]["plants"][key])


def _pick(
    facts: ProFacts,
    rng: random.Random,
    key: str,
    want_none: bool,
    ordinary: Callable[[], list[str]],
) -> str:
    name = f"{key}:{'none' if want_none else 'answered'}"
    return str(facts.draw(name, ordinary if want_none else (lambda: _plants(facts, key)), rng))


def sample_wrong_stage(facts: ProFacts, rng: random.Random, want_none: bool) -> ProCandidate:
    """Is this opportunity's stage right, and if not, which is?"""
    planted = set(_plants(facts, "wrong_stage"))

    def ordinary() -> list[str]:
        return sorted(
            opp_id
            for opp_id, tasks in facts.index.tasks_by_opp.items()
            if opp_id not in planted and sum(status == "Completed" for *_, status in tasks) >= 2
        )

    opp_id = _pick(facts, rng, "wrong_stage", want_none, ordinary)
    result = wrong_stage(facts.index, opp_id)
    return ProCandidate(
        rng.choice(texts.WRONG_STAGE_QUERIES) + texts.STAGE_SUFFIX,
        # Only the record, as in the real file: the stage article states the rule.
        texts.context_line("Opportunity", opp_id),
        result.answer,
        "wrong_stage",
        {"opportunity_id": opp_id},
        result.evidence,
        detail=result.detail,
        facts={"opportunity_id": opp_id},
    )


def sample_activity_priority(facts: ProFacts, rng: random.Random, want_none: bool) -> ProCandidate:
    """Which not-started tasks do not fit the opportunity's stage?"""
    skip = set(_plants(facts, "wrong_stage")) | set(_plants(facts, "activity_priority"))

    def ordinary() -> list[str]:
        return sorted(
            opp_id
            for opp_id, tasks in facts.index.tasks_by_opp.items()
            if opp_id not in skip and any(status == NOT_STARTED for *_, status in tasks)
        )

    opp_id = _pick(facts, rng, "activity_priority", want_none, ordinary)
    result = activity_priority(facts.index, opp_id)
    return ProCandidate(
        rng.choice(texts.ACTIVITY_QUERIES) + texts.TASKS_SUFFIX,
        texts.activity_guide() + "\n" + texts.context_line("Opportunity", opp_id),
        result.answer,
        "activity_priority",
        {"opportunity_id": opp_id},
        result.evidence,
        detail=result.detail,
        facts={"opportunity_id": opp_id},
    )


def _quote_sampler(task: str) -> Callable[[ProFacts, random.Random, bool], ProCandidate]:
    config = task == "invalid_config"
    queries = texts.CONFIG_QUERIES if config else texts.APPROVAL_QUERIES
    suffix = texts.CONFIG_SUFFIX if config else texts.APPROVAL_SUFFIX
    guide = texts.CONFIG_GUIDE if config else texts.APPROVAL_GUIDE

    def sample(facts: ProFacts, rng: random.Random, want_none: bool) -> ProCandidate:
        broken = set(_plants(facts, "invalid_config")) | set(_plants(facts, "quote_approval"))

        def ordinary() -> list[str]:
            decoys = facts.truth["pro"]["plants"].get("config_decoys")
            if config and decoys:
                # Compliant quotes the generator gave decoys (a least over two lines, a kit
                # over its companion's limit, a product at exactly its limit): only the
                # careful reading finds them compliant.
                return list(decoys)
            return sorted(
                q for q, quote in facts.index.quotes.items() if q not in broken and quote.lines
            )

        quote_id = _pick(facts, rng, task, want_none, ordinary)
        result = quote_policy(facts.index, quote_id)
        return ProCandidate(
            rng.choice(queries) + suffix,
            guide + "\n" + texts.context_line("Quote", quote_id),
            result.answer,
            "quote_policy",
            {"quote_id": quote_id},
            result.evidence,
            detail=result.detail,
            facts={"quote_id": quote_id},
        )

    return sample


sample_invalid_config = _quote_sampler("invalid_config")
sample_quote_approval = _quote_sampler("quote_approval")


def sample_lead_qualification(facts: ProFacts, rng: random.Random, want_none: bool) -> ProCandidate:
    """Is this lead qualified, and if not, which BANT factors fail?"""
    bant = facts.truth["pro"]["bant"]
    key = f"bant:{'none' if want_none else 'answered'}"
    lead_id = str(
        facts.draw(
            key, lambda: sorted(k for k, v in bant.items() if bool(v["failed"]) != want_none), rng
        )
    )
    result = lead_qualification(facts.truth, lead_id)
    return ProCandidate(
        rng.choice(texts.BANT_QUERIES) + texts.BANT_SUFFIX,
        texts.BANT_GUIDE + "\n" + texts.context_line("Lead", lead_id),
        result.answer,
        "lead_qualification",
        {"lead_id": lead_id},
        result.evidence,
        detail=result.detail,
        facts={"lead_id": lead_id, **bant[lead_id]["facts"]},
    )
