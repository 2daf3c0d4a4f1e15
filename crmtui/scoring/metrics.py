"""Text metrics for ``fuzzy_match`` instances (``knowledge_qa``), after upstream CRMArena.

:func:`normalize_answer`, :func:`exact_match` and :func:`f1_score` follow upstream's
``crm_sandbox/agents/utils.py`` exactly (SQuAD-style normalisation plus underscore and
typographic-quote handling; bag-of-token F1). Upstream also reports BLEU (sacrebleu) and
ROUGE (the ``rouge`` package); neither package is a dependency here, so :func:`bleu_score`
re-implements sacrebleu 2.x sentence BLEU on the normalised text (13a tokenisation reduces
to whitespace splitting once punctuation is gone), and :func:`rouge_n` / :func:`rouge_l`
the ``rouge`` package's ROUGE-N and summary-level ROUGE-L (distinct-word counts, 1e-8 in the
F denominator). The reward is F1 in every mode, so these never change a score, but they are
what upstream's results file shows (checked against the packages in tests).
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from typing import Any

_PUNCTUATION = frozenset(string.punctuation) | {"\u2018", "\u2019", "\u00b4", "`"}
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """Upstream answer normalisation.

    ``_`` -> space, lowercase, every ASCII punctuation character and ‘ ’ ´ ` -> space, the
    words a/an/the removed, whitespace collapsed, stripped.
    """
    text = text.replace("_", " ").lower()
    text = "".join(" " if ch in _PUNCTUATION else ch for ch in text)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split()).strip()


def exact_match(prediction: str, gold: str) -> bool:
    """True when both normalise to the same string."""
    return normalize_answer(prediction) == normalize_answer(gold)


def f1_score(prediction: str, gold: str) -> float:
    """Bag-of-tokens F1 between the normalised strings (0 when nothing overlaps)."""
    pred_tokens = normalize_answer(prediction).split()
    gold_tokens = normalize_answer(gold).split()
    common = Counter(pred_tokens) & Counter(gold_tokens)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision = same / len(pred_tokens)
    recall = same / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def _ngrams(tokens: list[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def bleu_score(prediction: str, gold: str, max_order: int = 4) -> float:
    """Sentence BLEU in [0, 1] as sacrebleu 2.x computes it with its defaults.

    Defaults mirrored: ``exp`` smoothing, effective order off, brevity penalty, one reference.
    With effective order off, a prediction shorter than ``max_order`` tokens scores ~0.
    """
    hyp = normalize_answer(prediction).split()
    ref = normalize_answer(gold).split()
    precisions = [0.0] * max_order
    smooth = 1.0
    for n in range(1, max_order + 1):
        total = max(0, len(hyp) - n + 1)
        if total == 0:
            break
        hyp_counts = _ngrams(hyp, n)
        correct = sum((hyp_counts & _ngrams(ref, n)).values())
        if correct == 0:
            smooth *= 2
            precisions[n - 1] = 100.0 / (smooth * total)
        else:
            precisions[n - 1] = 100.0 * correct / total
    if not hyp:
        return 0.0
    bp = 1.0 if len(hyp) >= len(ref) else math.exp(1 - len(ref) / len(hyp))
    # sacrebleu's my_log(0) is a huge negative number, so any zero precision gives ~0.
    log_sum = sum(math.log(p) if p > 0 else -9999999999 for p in precisions)
    return bp * math.exp(log_sum / max_order) / 100.0  # upstream reports score / 100


def rouge_l(prediction: str, gold: str) -> float:
    """ROUGE-L F as the ``rouge`` package (1.0.1, upstream's pin) computes it.

    Its summary-level ROUGE-L over one sentence (the normalised text has no full stops):
    the distinct words of the longest common subsequence it reconstructs (reference first,
    its tie-breaking kept), over the distinct words of the reference (recall) and of the
    prediction (precision), with 1e-8 added to the F denominator.
    """
    hyp = normalize_answer(prediction).split()
    ref = normalize_answer(gold).split()
    if not hyp or not ref:
        return 0.0
    table = [[0] * (len(hyp) + 1) for _ in range(len(ref) + 1)]
    for i in range(1, len(ref) + 1):
        for j in range(1, len(hyp) + 1):
            if ref[i - 1] == hyp[j - 1]:
                table[i][j] = table[i - 1][j - 1] + 1
            else:
                table[i][j] = max(table[i - 1][j], table[i][j - 1])
    words: set[str] = set()
    i, j = len(ref), len(hyp)
    while i and j:
        if ref[i - 1] == hyp[j - 1]:
            words.add(ref[i - 1])
            i, j = i - 1, j - 1
        elif table[i - 1][j] > table[i][j - 1]:
            i -= 1
        else:
            j -= 1
    recall, precision = len(words) / len(set(ref)), len(words) / len(set(hyp))
    return 2.0 * ((precision * recall) / (precision + recall + 1e-8))


def rouge_n(prediction: str, gold: str, n: int) -> float:
    """ROUGE-N F as the ``rouge`` package computes it: over the sets of n-grams.

    The package counts each distinct n-gram once and adds 1e-8 to the F denominator.
    """
    hyp = normalize_answer(prediction).split()
    ref = normalize_answer(gold).split()
    hyp_grams = {tuple(hyp[i : i + n]) for i in range(len(hyp) - n + 1)}
    ref_grams = {tuple(ref[i : i + n]) for i in range(len(ref) - n + 1)}
    overlap = len(hyp_grams & ref_grams)
    precision = overlap / len(hyp_grams) if hyp_grams else 0.0
    recall = overlap / len(ref_grams) if ref_grams else 0.0
    return 2.0 * (precision * recall) / (precision + recall + 1e-8)


def all_metrics(prediction: str, gold: str) -> dict[str, Any]:
    """The fuzzy-match metrics: ``em``, ``f1``, ``bleu``, ``rouge_1``, ``rouge_2``, ``rouge_l``.

    ``empty_prediction`` is set when the prediction normalises to nothing: upstream's
    ROUGE raises there and run_tasks records reward 0, which F1 = 0 reproduces.
    """
    metrics: dict[str, Any] = {
        "em": exact_match(prediction, gold),
        "f1": f1_score(prediction, gold),
        "bleu": bleu_score(prediction, gold),
        "rouge_1": rouge_n(prediction, gold, 1),
        "rouge_2": rouge_n(prediction, gold, 2),
        "rouge_l": rouge_l(prediction, gold),
    }
    if not normalize_answer(prediction):
        metrics["empty_prediction"] = True
    return metrics
