"""Knowledge reference solvers: policy violation (PVI) and knowledge questions (KQA).

Neither answer can be computed from the tables alone: whether an agent broke a policy is
decided when the generator writes the case's conversation, and a question's answer is written
together with its article. Both solvers therefore read the generator's ``truth`` record.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crmtui.org.solvers.common import SolverError, SolverResult, evidence_list


def policy_violation(truth: Mapping[str, Any], case_id: str) -> SolverResult:
    """The knowledge article the agent on ``case_id`` violated, or None when none was.

    Raises:
        SolverError: When the truth record knows nothing about ``case_id``.
    """
    for entry in truth.get("pvi", ()):
        if entry["case_id"] == case_id:
            article = entry.get("article_id") or None
            evidence = [*entry.get("evidence_ids", ()), case_id, article]
            return SolverResult(article, evidence_list(evidence))
    raise SolverError(f"no policy-violation record for case {case_id!r}")


def knowledge_qa(truth: Mapping[str, Any], question: str) -> SolverResult:
    """The short answer to ``question`` and the article it comes from.

    Raises:
        SolverError: When the truth record has no such question.
    """
    wanted = question.strip()
    for entry in truth.get("kqa", ()):
        if entry["question"].strip() == wanted:
            return SolverResult(entry["answer"], evidence_list([entry.get("article_id")]))
    raise SolverError(f"no knowledge question {question!r}")
