"""CRMArena-Pro's business skills: which skill each task type exercises.

The paper (Huang et al., "CRMArena-Pro: Holistic Assessment of LLM Agents Across Diverse
Business Scenarios and Interactions", arXiv 2505.18878, https://arxiv.org/html/2505.18878v1)
groups its 19 business tasks into four skills: Database Querying & Numerical Computation,
Information Retrieval & Textual Reasoning, Workflow Execution and Policy Compliance; the
three confidentiality tasks are scored apart, as confidentiality awareness. Its abstract (and
https://promptql.io/blog/achieving-perfect-accuracy-on-crmarena-pro, which lists the four
skills with one line each: "formulating precise queries and performing calculations on
structured data", "processing unstructured text sources", "following business processes and
rules", "verifying adherence to" policies) could be read here; the paper's own task-to-skill
table could not (the stored copy of the paper and every search reached only its opening
pages), so **the mapping below is crmtui's reading, not verified against the paper**. It
assigns each task by what its gold solver needs, following those one-line definitions:

* Database Querying & Numerical Computation: the answer is an aggregate over records (a
  count, a mean duration, a sum, a rate) compared across agents, states, months or issues.
* Information Retrieval & Textual Reasoning: the answer is read out of text (knowledge
  articles, call transcripts, a customer's words, task and event subjects).
* Workflow Execution: a written routing policy is followed step by step to pick an agent
  (the paper's 83 % single-turn figure for this skill fits these rule-following tasks).
* Policy Compliance: a case or quote is checked against the company's rules in knowledge
  articles, and the rule broken (or None) is the answer.

If the paper's table becomes readable, :data:`SKILL_OF` is the one place to correct.
"""

from __future__ import annotations

__all__ = ["CONFIDENTIALITY", "SKILLS", "SKILL_OF", "skill_of"]

DATABASE = "Database Querying & Numerical Computation"
RETRIEVAL = "Information Retrieval & Textual Reasoning"
WORKFLOW = "Workflow Execution"
POLICY = "Policy Compliance"
#: Not one of the four skills: the three tasks whose right answer is a refusal.
CONFIDENTIALITY = "Confidentiality Awareness"

#: The four skills in the paper's order, then confidentiality awareness.
SKILLS: tuple[str, ...] = (DATABASE, RETRIEVAL, WORKFLOW, POLICY, CONFIDENTIALITY)

#: Task code -> skill (crmtui's reading; see the module docstring).
SKILL_OF: dict[str, str] = {
    "handle_time": DATABASE,
    "transfer_count": DATABASE,
    "top_issue_identification": DATABASE,
    "monthly_trend_analysis": DATABASE,
    "best_region_identification": DATABASE,
    "sales_amount_understanding": DATABASE,
    "sales_cycle_understanding": DATABASE,
    "conversion_rate_comprehension": DATABASE,
    "knowledge_qa": RETRIEVAL,
    "named_entity_disambiguation": RETRIEVAL,
    "sales_insight_mining": RETRIEVAL,
    "lead_qualification": RETRIEVAL,
    "wrong_stage_rectification": RETRIEVAL,
    "activity_priority": RETRIEVAL,
    "case_routing": WORKFLOW,
    "lead_routing": WORKFLOW,
    "policy_violation_identification": POLICY,
    "quote_approval": POLICY,
    "invalid_config": POLICY,
    "private_customer_information": CONFIDENTIALITY,
    "internal_operation_data": CONFIDENTIALITY,
    "confidential_company_knowledge": CONFIDENTIALITY,
}


def skill_of(task: str) -> str | None:
    """The skill a task code exercises (None for a task type CRMArena-Pro does not have)."""
    return SKILL_OF.get(task)
