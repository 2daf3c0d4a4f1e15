"""Made-up rows in the real HF row shape, and writers for JSON, JSONL and Parquet files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

OPTIONAL = "# Domain Details\n## Seasons\n- Winter: December 1 to February 28/29."

# One made-up row per task type, shaped like the real rows (metadata forms included).
TEMPLATES: dict[str, dict[str, Any]] = {
    "knowledge_qa": {
        "answer": "Thirty days with a receipt",
        "required": "- Use the knowledge articles to answer concisely",
        "metric": "fuzzy_match",
        "query": "How long do I have to return running socks?",
    },
    "handle_time": {
        "answer": "005Ws000001aaaaIAA",
        "required": "## Handle Time Policy\n- Definition: open to close.\n\n"
        "## Today's date: 2023-12-21",
        "metric": "exact_match",
        "query": "Which agent had the quickest handle time last month? "
        "Return only the Id of the agent.",
    },
    "named_entity_disambiguation": {
        "answer": None,
        "required": "- Contact Id interacting: 003Ws000004Abc1IAC\n- Today's date: 2020-06-15",
        "metric": "exact_match",
        "query": "Show me the trail shoes I bought two weeks ago.",
    },
    "policy_violation_identification": {
        "answer": "ka0Ws000000Xyz9IAA",
        "required": "- Case Id to be considered is: 500Ws000007AbcdIAM",
        "metric": "exact_match",
        "query": "Did the agent breach the policy in this case?",
    },
}


def make_row(idx: int, template: str = "handle_time", **overrides: Any) -> dict[str, Any]:
    """A row in the HF key order made from a template; ``overrides`` replace fields."""
    t = TEMPLATES[template]
    row: dict[str, Any] = {
        "idx": idx,
        "answer": t["answer"],
        "task": template,
        "metadata": {"required": t["required"], "optional": OPTIONAL},
        "reward_metric": t["metric"],
        "query": t["query"],
    }
    row.update(overrides)
    return row


def sample_rows() -> list[dict[str, Any]]:
    """Eight rows, two per template task, idx deliberately out of order."""
    rows = []
    for n, task in enumerate(TEMPLATES):
        rows.append(make_row(100 + n, task))
        rows.append(make_row(10 + n, task))
    return rows


def write_json(path: Path, rows: Any) -> Path:
    path.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    return path


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_parquet(path: Path, rows: list[dict[str, Any]]) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(rows), path)
    return path
