"""Method ``head_as_is``: upstream HEAD's ChatEnv evaluator, applied as it is to any gold.

HEAD's ``Evaluator.evaluate`` (crm_sandbox/env/env.py at commit 32b609a) was written for
CRMArena-Pro's list gold; run_tasks.py at HEAD also hands it CRMArena's string and null
gold unchanged, and then:

* a ``None`` gold raises (``gold[0]`` on null: ``'NoneType' object is not subscriptable``),
  an empty string gold too (``string index out of range``): run_tasks.py writes its
  exception row;
* a string gold is indexed as a sequence of characters: exact match compares the cleaned
  answer with the gold's first character when the gold is one character long, else the
  extracted answers, sorted, with the gold's characters, sorted (so a multi-character
  string gold is almost never matched);
* fuzzy match scores against the gold's first character (its ROUGE raises on an answer
  that normalises to nothing, ``Hypothesis is empty.``, and on a first character that
  does, ``Reference is empty.``).

List gold is scored as HEAD scores it (the same as ``llm_extract``, or ``head_rules``
without an extractor). This reproduces HEAD's numbers on CRMArena rows for those who want
them; ``paper`` is what the CRMArena paper's code did and what ``--preset head`` uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from crmtui.scoring.families import extract_by_rules, family_for
from crmtui.scoring.metrics import all_metrics, normalize_answer

__all__ = ["HEAD_AS_IS", "head_as_is"]

HEAD_AS_IS = "head_as_is"


def _first(gold: Any) -> tuple[Any, str | None]:
    """``gold[0]`` as Python evaluates it, or the exception text it raises."""
    if gold is None:
        return None, "'NoneType' object is not subscriptable"
    if isinstance(gold, str | Sequence) and len(gold) == 0:
        what = "string" if isinstance(gold, str) else "list"
        return None, f"{what} index out of range"
    return gold[0], None


def head_as_is(
    gold: Any, reward_metric: str, proposed: str, *, extractor: Any, task: str | None
) -> tuple[float, dict[str, Any]]:
    """HEAD's ``evaluate`` on ``gold`` as given: ``(reward, details)``.

    ``details["upstream_raised"]`` holds the exception text where HEAD's evaluator raises
    for a reason other than the answer (the agent's run then ends as upstream's exception
    row); an answer that normalises to nothing keeps the metrics' ``empty_prediction``.
    ``privacy_rejection`` is not handled here (the judge decides, as in every method).
    """
    first, raised = _first(gold)
    if raised is not None:
        return 0.0, {"metric": reward_metric, "upstream_raised": raised}
    golds: Any = ["None"] if first is None else gold
    if reward_metric == "fuzzy_match":
        reference = str(golds[0])
        metrics = all_metrics(proposed, reference)
        details: dict[str, Any] = {"metric": reward_metric, "metrics": metrics}
        if normalize_answer(proposed) and not normalize_answer(reference):
            details["upstream_raised"] = "Reference is empty."
            return 0.0, details
        return float(metrics["f1"]), details
    shown = list(golds) if isinstance(golds, str) else ["None" if g is None else g for g in golds]
    details = {"metric": reward_metric, "gold": shown}
    cleaned = proposed.strip().strip('"').strip("'")
    if len(golds) == 1 and cleaned == golds[0]:
        return 1.0, details | {"compared": cleaned, "step": "a"}
    if extractor is not None:
        extracted = extractor(proposed, task=task)
        parsed = sorted("None" if x is None else str(x) for x in extracted) or ["None"]
        name = str(getattr(extractor, "model", None) or type(extractor).__name__)
        call = getattr(extractor, "last_call", None)
        if isinstance(call, dict):
            details["calls"] = [{"role": "extractor", **call}]
    else:
        parsed, name = sorted(extract_by_rules(proposed, task)), "rules"
    found = {"parsed": parsed, "step": "b", "family": family_for(task), "extractor": name}
    # sorted() of a string gold is its characters, as HEAD compares them.
    return float(parsed == sorted(shown)), details | found
