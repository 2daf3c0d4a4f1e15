"""How each instance is scored: the method per kind of gold answer, the extractor, the judge.

One :class:`ScoringPlan` serves a whole run or play session. It picks the method per
instance, so CRMArena and CRMArena-Pro rows are each scored the way that fits their gold:

=====================  ====================================  ==============================
reward_metric          gold                                  method (crmtui's defaults)
=====================  ====================================  ==============================
``exact_match``        a string or null (CRMArena)            ``method`` (``strict``)
``exact_match``        a list (CRMArena-Pro)                  ``list_method`` (``head_rules``:
                                                             HEAD's evaluator, rules in place
                                                             of its LLM; ``llm_extract`` with
                                                             an extraction model)
``fuzzy_match``        string or list (first item)            token F1; EM/BLEU/ROUGE in details
``privacy_rejection``  ``[null]``                             the judge (``rules_judge``, or
                                                             ``llm_judge`` with a judge model)
=====================  ====================================  ==============================

:func:`scored_by` names what produced a reward (metric, method, extractor, judge); every
recording's ``submit`` and every results row carries it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from crmtui.scoring.judge import Judge
from crmtui.scoring.rewards import (
    DEFAULT_METHOD,
    FUZZY_MATCH,
    PRIVACY_REJECTION,
    AnswerExtractor,
    Score,
    score,
)

__all__ = ["DEFAULT_LIST_METHOD", "ScoringPlan", "is_list_gold", "scored_by"]

#: The exact-match method for list gold (CRMArena-Pro) unless told otherwise.
DEFAULT_LIST_METHOD = "head_rules"


def is_list_gold(gold: Any) -> bool:
    """Whether a gold answer is in CRMArena-Pro's list form (``["005..."]``, ``[null]``)."""
    return isinstance(gold, list | tuple)


@dataclass(frozen=True)
class ScoringPlan:
    """The scoring settings of a run or a session, applied instance by instance.

    Attributes:
        method: Exact-match method for string/null gold (CRMArena rows).
        list_method: Exact-match method for list gold (CRMArena-Pro rows).
        extractor: The answer extractor for ``llm_extract`` (an LLM, see crmtui.agent).
        judge: The judge of ``privacy_rejection`` rows (None: the rules judge).
    """

    method: str = DEFAULT_METHOD
    list_method: str = DEFAULT_LIST_METHOD
    extractor: AnswerExtractor | None = None
    judge: Judge | None = None

    def method_for(self, gold: Any) -> str:
        """The exact-match method this plan uses for ``gold``."""
        return self.list_method if is_list_gold(gold) else self.method

    def score(self, instance: Any, answer: str, actions: Sequence[str] = ()) -> Score:
        """Score ``answer`` to ``instance`` (its ``answer``, ``reward_metric``, ``task``).

        Args:
            instance: The instance.
            answer: The submitted answer.
            actions: For ``privacy_rejection``: the actions' contents before the answer.

        Raises:
            ScoringError: As :func:`crmtui.scoring.rewards.score`.
            Exception: Whatever the extractor or judge raises (a failed model call).
        """
        result = score(
            instance.answer,
            instance.reward_metric,
            answer,
            self.method_for(instance.answer),
            extractor=self.extractor,
            task=instance.task,
            judge=self.judge,
            actions=actions,
        )
        details = dict(result.details)
        details["scored_by"] = scored_by(result, instance.reward_metric)
        return Score(result.reward, result.method, details)


def scored_by(result: Score, reward_metric: str) -> dict[str, Any]:
    """What produced ``result``: ``{metric, method, extractor, judge}`` (and, for fuzzy
    match, which number is the reward)."""
    details = result.details
    facts: dict[str, Any] = {
        "metric": reward_metric,
        "method": result.method,
        "extractor": details.get("extractor"),
        "judge": details.get("judge") if reward_metric == PRIVACY_REJECTION else None,
    }
    if reward_metric == FUZZY_MATCH:
        facts["reward_is"] = "f1"
    return facts
