"""Scoring answers the way upstream CRMArena did (see :mod:`crmtui.scoring.rewards`).

Rewards and metrics only: what play and agents use to score a submission. Comparing and
reporting on recorded sessions is :mod:`crmtui.review`'s job.

* :func:`score`: one answer, one method (:mod:`crmtui.scoring.rewards`);
* :class:`ScoringPlan`: the method per instance, CRMArena and CRMArena-Pro rows alike, with
  the extractor and the judge (:mod:`crmtui.scoring.evaluator`);
* :func:`extract_by_rules`: HEAD's answer families without an LLM
  (:mod:`crmtui.scoring.families`);
* :class:`RulesJudge`, :class:`Verdict`: ``privacy_rejection`` (:mod:`crmtui.scoring.judge`).
"""

from crmtui.scoring.errors import ScoringError
from crmtui.scoring.evaluator import DEFAULT_LIST_METHOD, ScoringPlan, is_list_gold, scored_by
from crmtui.scoring.families import extract_by_rules, family_for
from crmtui.scoring.judge import Judge, RulesJudge, Verdict
from crmtui.scoring.metrics import (
    all_metrics,
    bleu_score,
    exact_match,
    f1_score,
    normalize_answer,
    rouge_l,
)
from crmtui.scoring.rewards import (
    DEFAULT_METHOD,
    JUDGE_METHODS,
    METHODS,
    AnswerExtractor,
    Score,
    gold_list,
    score,
    split_answer,
    strip_answer,
)

__all__ = [
    "DEFAULT_LIST_METHOD",
    "DEFAULT_METHOD",
    "JUDGE_METHODS",
    "METHODS",
    "AnswerExtractor",
    "Judge",
    "RulesJudge",
    "Score",
    "ScoringError",
    "ScoringPlan",
    "Verdict",
    "all_metrics",
    "bleu_score",
    "exact_match",
    "extract_by_rules",
    "f1_score",
    "family_for",
    "gold_list",
    "is_list_gold",
    "normalize_answer",
    "rouge_l",
    "score",
    "scored_by",
    "split_answer",
    "strip_answer",
]
