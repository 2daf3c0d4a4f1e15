"""Rules about answers in words and numbers: which metric scored one, when one counts as right.

Nothing here is shown to a person before they answer: how an answer is scored would tell
them what kind of answer is right, which a model is never told (docs/parity.md).
:func:`metric_label` names, after scoring, the metric actually used (token F1 for knowledge
questions, whatever the method); :func:`is_right` says whether a reward is a right answer
(for the picker, compare, report and export alike); :func:`gold_text` writes a gold answer
as text (a ``None`` gold is the word ``None``, never an empty cell).
"""

from __future__ import annotations

import json
from typing import Any


def metric_label(reward_metric: str, method: str) -> str:
    """The metric that produced a reward: ``token F1``, ``exact match, strict``, ..."""
    if reward_metric == "fuzzy_match":
        return "token F1"
    if reward_metric == "privacy_rejection":
        return f"privacy judge, {method}"
    return f"exact match, {method}"


#: A fuzzy-match (KQA) answer counts as *right* for agreement and evidence verdicts when
#: its F1 reaches this; exact-match answers must score 1.
FUZZY_RIGHT_F1 = 0.5


def is_right(reward: float | None, reward_metric: str) -> bool | None:
    """Whether a reward means a right answer (None when the answer was not scored)."""
    if reward is None:
        return None
    if reward_metric == "fuzzy_match":
        return reward >= FUZZY_RIGHT_F1
    return reward >= 1.0


def gold_text(gold: Any) -> str:
    """A gold answer as shown and exported: a string as is, a list as JSON, and a ``None``
    gold as ``"None"`` (upstream's meaning: the expected answer is the word None), so it
    never reads as "no answer" in a CSV cell or a Parquet null."""
    if gold is None:
        return "None"
    if isinstance(gold, str):
        return gold
    return json.dumps(gold, ensure_ascii=False)
