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

:func:`all_metrics` normalises each text once and works on the longest common subsequence
bit-parallel (a Python integer as the bit vector, one per reference token, from which the
dynamic-programming table is read where the traceback needs it), so a long CRMArena-Pro
answer (sales insight mining: up to ~75 tokens) costs well under a millisecond; the results
are those of the plain definitions (``tests/unit/scoring`` compares them).
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from typing import Any

_PUNCTUATION = frozenset(string.punctuation) | {"\u2018", "\u2019", "\u00b4", "`"}
_PUNCTUATION_TO_SPACE = str.maketrans(dict.fromkeys(_PUNCTUATION, " "))
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """Upstream answer normalisation.

    ``_`` -> space, lowercase, every ASCII punctuation character and ‘ ’ ´ ` -> space, the
    words a/an/the removed, whitespace collapsed, stripped.
    """
    text = text.replace("_", " ").lower().translate(_PUNCTUATION_TO_SPACE)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split()).strip()


def exact_match(prediction: str, gold: str) -> bool:
    """True when both normalise to the same string."""
    return normalize_answer(prediction) == normalize_answer(gold)


def _tokens(text: str) -> list[str]:
    return normalize_answer(text).split()


def f1_score(prediction: str, gold: str) -> float:
    """Bag-of-tokens F1 between the normalised strings (0 when nothing overlaps)."""
    return _f1(_tokens(prediction), _tokens(gold))


def _f1(pred_tokens: list[str], gold_tokens: list[str]) -> float:
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
    return _bleu(_tokens(prediction), _tokens(gold), max_order)


def _bleu(hyp: list[str], ref: list[str], max_order: int = 4) -> float:
    if not any(_ngrams(hyp, n) & _ngrams(ref, n) for n in range(1, max_order + 1)):
        return 0.0  # sacrebleu stops early when no n-gram matches: exactly 0
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


def lcs_length(a: list[str], b: list[str]) -> int:
    """Length of the longest common subsequence of two token lists.

    Bit-parallel (Crochemore et al., 2001): bit ``j`` of ``row`` stands for ``b[j]``; one
    addition and a few masks per token of ``a`` replace a row of the dynamic-programming
    table. The answer is the number of zero bits left in the row.
    """
    if not a or not b:
        return 0
    where: dict[str, int] = {}
    for j, token in enumerate(b):
        where[token] = where.get(token, 0) | (1 << j)
    full = (1 << len(b)) - 1
    row = full
    for token in a:
        match = row & where.get(token, 0)
        row = ((row + match) | (row - match)) & full
    return len(b) - row.bit_count()


def rouge_l(prediction: str, gold: str) -> float:
    """ROUGE-L F as the ``rouge`` package (1.0.1, upstream's pin) computes it.

    Its summary-level ROUGE-L over one sentence (the normalised text has no full stops):
    the distinct words of the longest common subsequence it reconstructs (reference first,
    its tie-breaking kept), over the distinct words of the reference (recall) and of the
    prediction (precision), with 1e-8 added to the F denominator.
    """
    return _rouge_l(_tokens(prediction), _tokens(gold))


def _lcs_rows(a: list[str], b: list[str]) -> list[int]:
    """The bit-parallel rows of ``a`` against ``b``: ``rows[i]`` after ``a[:i]``.

    The low ``j`` bits of ``rows[i]`` hold as many zeros as the LCS of ``a[:i]`` and
    ``b[:j]`` is long (see :func:`lcs_length`), so the whole table is there to be read.
    """
    where: dict[str, int] = {}
    for j, token in enumerate(b):
        where[token] = where.get(token, 0) | (1 << j)
    full = (1 << len(b)) - 1
    row = full
    rows = [row]
    for token in a:
        match = row & where.get(token, 0)
        row = ((row + match) | (row - match)) & full
        rows.append(row)
    return rows


def _rouge_l(hyp: list[str], ref: list[str]) -> float:
    if not hyp or not ref:
        return 0.0
    rows = _lcs_rows(ref, hyp)

    def table(i: int, j: int) -> int:  # LCS of ref[:i] and hyp[:j]
        return j - (rows[i] & ((1 << j) - 1)).bit_count()

    # The rouge package's traceback: a match is taken; otherwise up when the cell above is
    # strictly larger, else left.
    words: set[str] = set()
    i, j = len(ref), len(hyp)
    while i and j:
        if ref[i - 1] == hyp[j - 1]:
            words.add(ref[i - 1])
            i, j = i - 1, j - 1
        elif table(i - 1, j) > table(i, j - 1):
            i -= 1
        else:
            j -= 1
    recall, precision = len(words) / len(set(ref)), len(words) / len(set(hyp))
    return 2.0 * ((precision * recall) / (precision + recall + 1e-8))


def rouge_n(prediction: str, gold: str, n: int) -> float:
    """ROUGE-N F as the ``rouge`` package computes it: over the sets of n-grams.

    The package counts each distinct n-gram once and adds 1e-8 to the F denominator.
    """
    return _rouge_n(_tokens(prediction), _tokens(gold), n)


def _rouge_n(hyp: list[str], ref: list[str], n: int) -> float:
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
    pred, ref = normalize_answer(prediction), normalize_answer(gold)
    hyp, gold_tokens = pred.split(), ref.split()
    metrics: dict[str, Any] = {
        "em": pred == ref,
        "f1": _f1(hyp, gold_tokens),
        "bleu": _bleu(hyp, gold_tokens),
        "rouge_1": _rouge_n(hyp, gold_tokens, 1),
        "rouge_2": _rouge_n(hyp, gold_tokens, 2),
        "rouge_l": _rouge_l(hyp, gold_tokens),
    }
    if not pred:
        metrics["empty_prediction"] = True
    return metrics
