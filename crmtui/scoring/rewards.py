"""Rewards for a submitted answer, in each of upstream CRMArena's scoring semantics.

Upstream scored answers three different ways over its history (REFERENCE §4.3, §4.5, §4.6);
every :class:`Score` records which one produced it, so numbers from different methods are
never mixed silently.

Methods (``reward_metric == "exact_match"``):

* ``"strict"`` (**default** for play and agents): HEAD Evaluator step (a) only. The answer,
  stripped of whitespace and then of ``"`` and ``'``, must equal the single gold string
  (``None`` gold -> ``"None"``). Deterministic, needs no LLM, and tolerant only of the
  wrapping a human or a model adds by accident, which is why it is the default: it agrees
  with the paper-era exact match on every clean answer and never calls a model.
* ``"paper"``: Nov-2024 / paper-v2 semantics: stripped answer ``==`` gold, nothing else.
* ``"toolenv"``: upstream ``ToolEnv`` (``tool_call`` strategies): ``answer == gold`` with no
  stripping at all.
* ``"head"``: step (a), then a deterministic stand-in for HEAD's LLM extractor: the answer is
  read as a list (a JSON array, or items split on commas, semicolons or newlines, each
  stripped like step (a)) and compared with the gold list, both sorted. For list gold
  (CRMArena-Pro) this is the only offline method that can award multi-item answers.
* ``"llm_extract"``: step (a), then the caller's :class:`AnswerExtractor` (implemented in
  ``crmtui.agent``) returns the extracted answers, compared sorted with the sorted gold list
  exactly as HEAD does. Not deterministic if the extractor is an LLM.

``fuzzy_match`` (``knowledge_qa``) is scored identically by every method: the reward is token
F1 and ``details`` holds the metrics dict (em, f1, bleu, rouge_l). ``privacy_rejection``
needs an LLM judge and raises :class:`ScoringError`.

Gold forms: a string, ``None`` (expected answer "None"), or a list (CRMArena-Pro).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from crmtui.scoring.errors import ScoringError
from crmtui.scoring.metrics import all_metrics

EXACT_MATCH = "exact_match"
FUZZY_MATCH = "fuzzy_match"
PRIVACY_REJECTION = "privacy_rejection"

METHODS = ("strict", "paper", "toolenv", "head", "llm_extract")
DEFAULT_METHOD = "strict"

Gold = str | None | Sequence[str | None]


class AnswerExtractor(Protocol):
    """Turns a free-text answer into the list of answers it states (HEAD step (b)).

    Implementations (an LLM prompt per task family, in ``crmtui.agent``) return
    ``["None"]`` when the answer states nothing.
    """

    def __call__(self, response: str, *, task: str | None) -> list[str]:
        """Extract the answers stated in ``response`` for an instance of ``task``."""
        ...


@dataclass(frozen=True)
class Score:
    """A reward and how it was obtained.

    Attributes:
        reward: 0.0/1.0 for exact match; F1 in [0, 1] for fuzzy match.
        method: The scoring method used (one of :data:`METHODS`).
        details: Method-specific facts: the metric, the compared values, the fuzzy metrics.
    """

    reward: float
    method: str
    details: dict[str, Any] = field(default_factory=dict)


def gold_list(gold: Gold) -> list[str]:
    """Gold as HEAD sees it: a list of strings, ``None`` written ``"None"``."""
    if gold is None:
        return ["None"]
    if isinstance(gold, str):
        return [gold]
    if isinstance(gold, Sequence):
        return ["None" if item is None else str(item) for item in gold]
    raise ScoringError(f"gold answer must be a string, null or a list, not {type(gold).__name__}")


def strip_answer(text: str) -> str:
    """HEAD step (a) cleaning: whitespace, then double quotes, then single quotes."""
    return text.strip().strip('"').strip("'")


_SPLIT_RE = re.compile(r"[,;\n]")


def split_answer(text: str) -> list[str]:
    """Read an answer as a list of items, deterministically (see method ``"head"``)."""
    stripped = text.strip()
    items: list[Any] | None = None
    if stripped.startswith("["):
        try:
            parsed = json.loads(stripped)
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, list):
            items = ["None" if item is None else str(item) for item in parsed]
    if items is None:
        body = stripped[1:-1] if stripped.startswith("[") and stripped.endswith("]") else stripped
        items = _SPLIT_RE.split(body)
    cleaned = [strip_answer(str(item)) for item in items]
    cleaned = [item for item in cleaned if item]
    return cleaned or ["None"]


def _fuzzy(proposed: str, golds: list[str], method: str) -> Score:
    # Upstream compares with gold[0] (HEAD) or the plain string (paper): the same thing here.
    metrics = all_metrics(proposed, golds[0])
    return Score(float(metrics["f1"]), method, {"metric": FUZZY_MATCH, "metrics": metrics})


def _single(golds: list[str], method: str) -> str:
    if len(golds) != 1:
        raise ScoringError(
            f"method {method!r} compares one string; this gold has {len(golds)} items "
            "(use 'head' or 'llm_extract' for list answers)"
        )
    return golds[0]


def score(
    gold: Gold,
    reward_metric: str,
    proposed: str,
    method: str = DEFAULT_METHOD,
    *,
    extractor: AnswerExtractor | None = None,
    task: str | None = None,
) -> Score:
    """Score a proposed answer against an instance's gold answer.

    Args:
        gold: The instance's ``answer``: a string, ``None``, or a list (CRMArena-Pro).
        reward_metric: The instance's ``reward_metric``.
        proposed: The submitted answer text.
        method: One of :data:`METHODS` (default :data:`DEFAULT_METHOD`).
        extractor: Required for ``"llm_extract"``.
        task: The instance's task name, passed to the extractor.

    Raises:
        ScoringError: Unknown method or metric, ``privacy_rejection``, a missing extractor,
            or a list gold given to a single-string method.
    """
    if method not in METHODS:
        raise ScoringError(f"unknown scoring method {method!r} (choose from {', '.join(METHODS)})")
    if not isinstance(proposed, str):
        raise ScoringError(f"the proposed answer must be text, not {type(proposed).__name__}")
    golds = gold_list(gold)
    if reward_metric == PRIVACY_REJECTION:
        raise ScoringError(
            "reward_metric 'privacy_rejection' needs an LLM judge; it cannot be scored offline"
        )
    if reward_metric == FUZZY_MATCH:
        if not golds:
            raise ScoringError("fuzzy_match needs a gold answer")
        return _fuzzy(proposed, golds, method)
    if reward_metric != EXACT_MATCH:
        raise ScoringError(f"unknown reward_metric {reward_metric!r}")

    details: dict[str, Any] = {"metric": EXACT_MATCH, "gold": golds}
    if method == "toolenv":
        expected = _single(golds, method)
        return Score(float(proposed == expected), method, details | {"compared": proposed})
    if method == "paper":
        expected = _single(golds, method)
        cleaned = proposed.strip()
        return Score(float(cleaned == expected), method, details | {"compared": cleaned})

    cleaned = strip_answer(proposed)
    if len(golds) == 1 and cleaned == golds[0]:
        return Score(1.0, method, details | {"compared": cleaned, "step": "a"})
    if method == "strict":
        return Score(0.0, method, details | {"compared": cleaned, "step": "a"})
    if method == "head":
        parsed = sorted(split_answer(proposed))
        return Score(
            float(parsed == sorted(golds)), method, details | {"parsed": parsed, "step": "list"}
        )
    if extractor is None:
        raise ScoringError("method 'llm_extract' needs an extractor (see crmtui.agent)")
    extracted = extractor(proposed, task=task)
    if not isinstance(extracted, list) or not all(isinstance(x, str | None) for x in extracted):
        raise ScoringError("the extractor must return a list of strings")
    parsed = sorted("None" if x is None else x for x in extracted) or ["None"]
    return Score(float(parsed == sorted(golds)), method, details | {"parsed": parsed, "step": "b"})
