"""Fuzzy-match metrics against hand-computed values."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crmtui.scoring import all_metrics, bleu_score, exact_match, f1_score, normalize_answer, rouge_l


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("The Quick_Brown fox!", "quick brown fox"),
        ("  An apple, a day.  ", "apple day"),
        ("Don’t ‘quote’ me´s `now`", "don t quote me s now"),
        ("theory anthem", "theory anthem"),  # only whole words are articles
        ("A-B", "b"),  # '-' becomes a space, then the article 'a' goes
        ("", ""),
        ("e-mail:\tsupport@acme.com", "e mail support acme com"),
    ],
)
def test_normalize_answer(raw: str, normalized: str) -> None:
    assert normalize_answer(raw) == normalized


def test_exact_match_is_on_normalised_text() -> None:
    assert exact_match("The Answer.", "answer")
    assert not exact_match("answers", "answer")


def test_f1_hand_computed() -> None:
    # pred tokens: reset router first (3); gold: reset router then modem (4); overlap 2.
    # P = 2/3, R = 2/4, F1 = 2PR/(P+R) = (2/3) / (7/6) = 4/7.
    assert f1_score("Reset the router first.", "reset router then modem") == pytest.approx(4 / 7)
    # Repeated tokens count with multiplicity (Counter intersection): overlap min(3,1)=1.
    # P = 1/3, R = 1/1 -> F1 = 0.5
    assert f1_score("ok ok ok", "ok") == pytest.approx(0.5)
    assert f1_score("nothing shared", "other words") == 0.0
    assert f1_score("", "gold") == 0.0
    assert f1_score("The same words", "same WORDS") == 1.0


def test_rouge_l_hand_computed() -> None:
    # hyp: a b c d (normalised: "b c d" because 'a' is an article) -> use non-article tokens.
    # hyp x y z w, ref x z w q: LCS = x z w = 3; P = 3/4, R = 3/4 -> 0.75
    assert rouge_l("x y z w", "x z w q") == pytest.approx(0.75, abs=1e-7)
    assert rouge_l("", "x") == 0.0
    assert rouge_l("p q", "r s") == 0.0


def test_bleu_hand_computed() -> None:
    assert bleu_score("the cat sat on mat today", "the cat sat on mat today") == pytest.approx(1.0)
    # hyp = ref minus its last token: 4 tokens vs 5 (after 'the' is removed: cat sat on mat
    # today vs cat sat on mat today now). precisions all 1 -> BLEU = BP = exp(1 - 6/5).
    assert bleu_score("cat sat on mat today", "cat sat on mat today now") == pytest.approx(
        math.exp(1 - 6 / 5)
    )
    # Fewer than four tokens with effective order off (sacrebleu default) -> ~0.
    assert bleu_score("cat sat", "cat sat") < 1e-6
    assert bleu_score("", "x") == 0.0


def test_bleu_exp_smoothing_for_missing_ngrams() -> None:
    # hyp w1..w4 = "p q r s", ref "p q x s": 1-grams 3/4, 2-grams 1/3 (p q),
    # 3-grams 0 of 2 -> 100/(2*2) %, 4-grams 0 of 1 -> 100/(4*1) %.
    expected = math.exp((math.log(0.75) + math.log(1 / 3) + math.log(1 / 4) + math.log(1 / 4)) / 4)
    assert bleu_score("p q r s", "p q x s") == pytest.approx(expected)


def test_all_metrics_shape_and_empty_prediction_flag() -> None:
    metrics = all_metrics("Reset the router first.", "reset router then modem")
    assert set(metrics) == {"em", "f1", "bleu", "rouge_1", "rouge_2", "rouge_l"}
    assert metrics["em"] is False and metrics["f1"] == pytest.approx(4 / 7)
    assert all_metrics("...", "x")["empty_prediction"] is True


def test_rouge_n_counts_distinct_ngrams_like_the_rouge_package() -> None:
    from crmtui.scoring.metrics import rouge_n

    # hyp 1-grams {x, y}, ref {x, z}: p = r = 1/2 -> F = 0.5 (minus the package's epsilon).
    assert rouge_n("x y y", "x z", 1) == pytest.approx(0.5, abs=1e-6)
    assert rouge_n("p q r", "p q s", 2) == pytest.approx(0.5, abs=1e-6)
    assert rouge_n("", "x", 1) == 0.0


def _lcs_table(a: list[str], b: list[str]) -> int:
    """The textbook dynamic-programming LCS, to check the bit-parallel one against."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a, 1):
        for j, y in enumerate(b, 1):
            table[i][j] = (
                table[i - 1][j - 1] + 1 if x == y else max(table[i - 1][j], table[i][j - 1])
            )
    return table[-1][-1]


_WORDS = st.lists(st.sampled_from(["a", "b", "c", "d", "e", "x", "y"]), max_size=40)


@settings(max_examples=300, deadline=None)
@given(a=_WORDS, b=_WORDS)
def test_bit_parallel_lcs_is_the_lcs(a: list[str], b: list[str]) -> None:
    from crmtui.scoring.metrics import lcs_length

    assert lcs_length(a, b) == _lcs_table(a, b)


@settings(max_examples=150, deadline=None)
@given(
    p=st.text(alphabet="ab cd_The,.’x", max_size=60), g=st.text(alphabet="ab cd_the!x", max_size=60)
)
def test_all_metrics_agrees_with_each_metric(p: str, g: str) -> None:
    from crmtui.scoring.metrics import rouge_n

    metrics = all_metrics(p, g)
    assert metrics["em"] == exact_match(p, g) and metrics["f1"] == f1_score(p, g)
    assert metrics["bleu"] == bleu_score(p, g) and metrics["rouge_l"] == rouge_l(p, g)
    assert metrics["rouge_1"] == rouge_n(p, g, 1) and metrics["rouge_2"] == rouge_n(p, g, 2)


def test_rouge_equals_the_rouge_package_upstream_uses() -> None:
    """ROUGE-1/2/L as upstream's results show them (``rouge`` 1.0.1 on normalised text)."""
    import random

    from crmtui.scoring.metrics import rouge_n

    rouge = pytest.importorskip("rouge")
    scorer = rouge.Rouge()
    rng = random.Random(23)
    words = ["a", "the", "shoe", "strap", "polyester", "webbing", "rubber", "footbed", "x", "y"]
    for _ in range(500):
        hyp = " ".join(rng.choice(words) for _ in range(rng.randint(1, 9)))
        ref = " ".join(rng.choice(words) for _ in range(rng.randint(1, 9)))
        if not normalize_answer(hyp) or not normalize_answer(ref):
            continue
        theirs = scorer.get_scores(hyps=normalize_answer(hyp), refs=normalize_answer(ref))[0]
        assert rouge_l(hyp, ref) == theirs["rouge-l"]["f"], (hyp, ref)
        assert rouge_n(hyp, ref, 1) == theirs["rouge-1"]["f"], (hyp, ref)
        assert rouge_n(hyp, ref, 2) == theirs["rouge-2"]["f"], (hyp, ref)


def test_bleu_is_sacrebleus_on_generated_pairs() -> None:
    """Upstream's BLEU: sacrebleu's ``sentence_score`` on the normalised texts, / 100 (0 when
    no word overlaps, as sacrebleu stops early)."""
    import random

    sacrebleu = pytest.importorskip("sacrebleu.metrics")
    from crmtui.scoring.metrics import normalize_answer

    scorer = sacrebleu.BLEU()
    rng = random.Random(31)
    words = ["the", "case", "policy", "agent", "return", "30", "days", "a", "mat", "yoga"]
    pairs = [("Thirty", "30 days"), ("completely different", "return policy")]
    for _ in range(300):
        pairs.append(
            (
                " ".join(rng.choices(words, k=rng.randint(1, 9))),
                " ".join(rng.choices(words, k=rng.randint(1, 9))),
            )
        )
    for prediction, gold in pairs:
        expected = scorer.sentence_score(
            hypothesis=normalize_answer(prediction), references=[normalize_answer(gold)]
        ).score
        assert bleu_score(prediction, gold) == pytest.approx(expected / 100, abs=1e-9), (
            prediction,
            gold,
        )
    assert bleu_score("completely different", "return policy") == 0.0
