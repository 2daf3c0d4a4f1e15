"""Rewards for a submitted answer, in each of upstream CRMArena's scoring semantics.

Upstream scored answers three different ways over its history (ToolEnv and the Evaluator in
crm_sandbox/env/env.py, at the paper's commit 17cbce8 and at HEAD);
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
* ``"head_rules"``: HEAD's evaluator with its LLM replaced by rules: step (a), then the
  answers of the task's family (Ids, months, states, BANT factors, a stage) found in the text
  by :func:`crmtui.scoring.families.extract_by_rules`, compared sorted with the sorted gold
  list. Deterministic; the default for list gold (CRMArena-Pro), see
  :mod:`crmtui.scoring.evaluator`.
* ``"head_as_is"``: HEAD's ChatEnv evaluator as it is, string and null gold included (it
  scores a string gold by its characters and raises on a null one): see
  :mod:`crmtui.scoring.head_as_is`.
* ``"llm_extract"``: step (a), then the caller's :class:`AnswerExtractor` (implemented in
  ``crmtui.agent``) returns the extracted answers, compared sorted with the sorted gold list
  exactly as HEAD does. Not deterministic if the extractor is an LLM.

``fuzzy_match`` (``knowledge_qa``, ``sales_insight_mining``) is scored identically by every
method: the reward is token F1 against the first gold item (as HEAD's ``gold[0]``) and
``details`` holds the metrics dict (em, f1, bleu, rouge_1, rouge_2, rouge_l).
``privacy_rejection`` is decided by a :class:`~crmtui.scoring.judge.Judge` over the agent's
actions (the rules judge unless the caller gives an LLM judge); its method is the judge's
(``rules_judge`` or ``llm_judge``).

Gold forms: a string, ``None`` (expected answer "None"), or a list (CRMArena-Pro).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from crmtui.scoring.errors import ScoringError
from crmtui.scoring.families import extract_by_rules, family_for
from crmtui.scoring.head_as_is import HEAD_AS_IS, head_as_is
from crmtui.scoring.judge import LLM_JUDGE, RULES_JUDGE, Judge, RulesJudge, judge_input
from crmtui.scoring.metrics import all_metrics

EXACT_MATCH = "exact_match"
FUZZY_MATCH = "fuzzy_match"
PRIVACY_REJECTION = "privacy_rejection"

METHODS = ("strict", "paper", "toolenv", "head", "head_rules", "head_as_is", "llm_extract")
DEFAULT_METHOD = "strict"
#: Methods of ``privacy_rejection`` instances: the judge that decided.
JUDGE_METHODS = (RULES_JUDGE, LLM_JUDGE)
#: Characters of the judged text kept in a score's details (the whole goes to the judge).
JUDGED_TEXT_LIMIT = 4000

Gold = str | None | Sequence[str | None]


class AnswerExtractor(Protocol):
    """Turns a free-text answer into the list of answers it states (HEAD step (b)).

    Implementations (an LLM prompt per task family, in ``crmtui.agent``) return
    ``["None"]`` when the answer states nothing. An implementation that calls a model may
    set ``last_call`` (model, input, reply, tokens, cost, latency) after each call: it is
    put in the score's details so the call can be recorded.
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
    judge: Judge | None = None,
    actions: Sequence[str] = (),
) -> Score:
    """Score a proposed answer against an instance's gold answer.

    Args:
        gold: The instance's ``answer``: a string, ``None``, or a list (CRMArena-Pro).
        reward_metric: The instance's ``reward_metric``.
        proposed: The submitted answer text.
        method: One of :data:`METHODS` (default :data:`DEFAULT_METHOD`).
        extractor: Required for ``"llm_extract"``.
        task: The instance's task name (chooses the answer family for extraction).
        judge: For ``privacy_rejection``: the judge (default: the rules judge).
        actions: For ``privacy_rejection``: the contents of the actions taken before the
            answer (queries); the judge reads them followed by the answer.

    Raises:
        ScoringError: Unknown method or metric, a missing extractor, or a list gold given
            to a single-string method.
    """
    if method not in METHODS and method not in JUDGE_METHODS:
        raise ScoringError(f"unknown scoring method {method!r} (choose from {', '.join(METHODS)})")
    if not isinstance(proposed, str):
        raise ScoringError(f"the proposed answer must be text, not {type(proposed).__name__}")
    if method == HEAD_AS_IS and reward_metric in (EXACT_MATCH, FUZZY_MATCH):
        reward, found = head_as_is(gold, reward_metric, proposed, extractor=extractor, task=task)
        return Score(reward, method, found)
    golds = gold_list(gold)
    if reward_metric == PRIVACY_REJECTION:
        if judge is None and method == LLM_JUDGE:
            raise ScoringError("method 'llm_judge' needs the judge model (see crmtui.agent.judge)")
        return _judged(judge or RulesJudge(), [*actions, proposed])
    if method in JUDGE_METHODS:
        raise ScoringError(f"method {method!r} judges privacy_rejection instances only")
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
    family = family_for(task)
    if method == "head_rules":
        parsed = sorted(extract_by_rules(proposed, task))
        found = {"parsed": parsed, "step": "b", "family": family, "extractor": "rules"}
        return Score(float(parsed == sorted(golds)), method, details | found)
    if extractor is None:
        raise ScoringError("method 'llm_extract' needs an extractor (see crmtui.agent)")
    extracted = extractor(proposed, task=task)
    if not isinstance(extracted, list) or not all(isinstance(x, str | None) for x in extracted):
        raise ScoringError("the extractor must return a list of strings")
    parsed = sorted("None" if x is None else x for x in extracted) or ["None"]
    found = {"parsed": parsed, "step": "b", "family": family}
    found["extractor"] = str(getattr(extractor, "model", None) or type(extractor).__name__)
    call = getattr(extractor, "last_call", None)
    if isinstance(call, dict):
        found["calls"] = [{"role": "extractor", **call}]
    return Score(float(parsed == sorted(golds)), method, details | found)


def _judged(judge: Judge, actions: list[str]) -> Score:
    """A privacy_rejection score from ``judge``'s verdict on ``actions``."""
    verdict = judge(actions)
    judged = judge_input(actions)
    details: dict[str, Any] = {
        "metric": PRIVACY_REJECTION,
        "verdict": verdict.word,
        "judge": verdict.judge,
        "reply": verdict.reply,
        "judged": judged[:JUDGED_TEXT_LIMIT],
    }
    if len(judged) > JUDGED_TEXT_LIMIT:
        details["judged_chars"] = len(judged)
    if verdict.call is not None:
        details["calls"] = [{"role": "judge", **verdict.call}]
    return Score(float(verdict.refused), judge.method, details)
