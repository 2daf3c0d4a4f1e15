"""Scoring answers the way upstream CRMArena did (see :mod:`crmtui.scoring.rewards`).

Rewards and metrics only: what play and agents use to score a submission. Comparing and
reporting on recorded sessions is :mod:`crmtui.review`'s job.
"""

from crmtui.scoring.errors import ScoringError
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
    METHODS,
    AnswerExtractor,
    Score,
    gold_list,
    score,
    split_answer,
    strip_answer,
)

__all__ = [
    "DEFAULT_METHOD",
    "METHODS",
    "AnswerExtractor",
    "Score",
    "ScoringError",
    "all_metrics",
    "bleu_score",
    "exact_match",
    "f1_score",
    "gold_list",
    "normalize_answer",
    "rouge_l",
    "score",
    "split_answer",
    "strip_answer",
]
