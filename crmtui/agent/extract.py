"""LLM answer extraction for ``--llm-extract`` (upstream HEAD's evaluator, step (b)).

Upstream asks an LLM to pull the answers out of a free-text response, with one prompt family
per kind of answer: record Ids (the default), month names (``monthly_trend_analysis``),
two-letter US states (``best_region_identification``) and, for CRMArena-Pro, unmet BANT
factors and an opportunity stage. The extractor answers with a JSON list, ``["None"]`` when
the response states no answer. The prompts here are our own words with that structure.

Parsing is forgiving (code fences, an ``{"extracted_answers": [...]}`` object, text around the
list); when nothing parses, the stripped raw reply becomes the single answer, which is what
upstream ends up doing.
"""

from __future__ import annotations

import json
import re
from typing import Any

from crmtui.agent.client import ModelClient
from crmtui.scoring.families import family_for

__all__ = ["LLMExtractor", "call_facts", "extraction_messages", "family_for", "parse_extracted"]

_COMMON = """\
You read the final answer an assistant gave to a CRM question and extract the {what} it \
states as its answer.

Rules:
- Output only a JSON list of strings, for example {example}, and nothing else.
- Copy each {item} exactly as written in the answer; do not invent or correct any.
- Leave out {item_plural} that the answer mentions only as context, not as its answer.
- If the answer gives no {item} (or says None / no result), output ["None"].
"""

_FAMILIES: dict[str, dict[str, str]] = {
    "ids": {
        "what": "Salesforce record Ids",
        "example": '["005Ws000003wMzsIAE"]',
        "item": "Id",
        "item_plural": "Ids",
    },
    "months": {
        "what": "month names",
        "example": '["June"]',
        "item": "month (written as its full English name, e.g. March)",
        "item_plural": "months",
    },
    "states": {
        "what": "US states",
        "example": '["CA", "NY"]',
        "item": "state (written as its two-letter abbreviation, e.g. TX)",
        "item_plural": "states",
    },
    "bant": {
        "what": "unmet BANT factors (Budget, Authority, Need, Timeline)",
        "example": '["Budget", "Timeline"]',
        "item": "factor (one of Budget, Authority, Need, Timeline)",
        "item_plural": "factors",
    },
    "stage": {
        "what": "opportunity stage",
        "example": '["Qualification"]',
        "item": "stage name",
        "item_plural": "stages",
    },
}

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
_LIST = re.compile(r"\[.*?\]", re.DOTALL)


def extraction_messages(response: str, task: str | None) -> list[dict[str, str]]:
    """The chat messages asking the extractor model about ``response``."""
    system = _COMMON.format(**_FAMILIES[family_for(task)])
    user = f"The assistant's answer:\n<answer>\n{response}\n</answer>\n\nJSON list:"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _as_list(value: Any) -> list[str] | None:
    if isinstance(value, dict):
        value = value.get("extracted_answers", value.get("answers"))
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(
        isinstance(x, str | int | float) or x is None for x in value
    ):
        return ["None" if x is None else str(x).strip() for x in value]
    return None


def _try_json(text: str) -> list[str] | None:
    try:
        return _as_list(json.loads(text))
    except (json.JSONDecodeError, ValueError):
        return None


def parse_extracted(text: str) -> list[str]:
    """Read the extractor's reply as a list of answers.

    Tries, in order: the whole reply as JSON (a list or ``{"extracted_answers": [...]}``),
    the body of a code fence, the first ``[...]`` in the text (JSON, then with single quotes
    made double). Falls back to the stripped reply as one answer (``"None"`` when empty).

    Examples:
        >>> parse_extracted('```json\\n["CA", "NY"]\\n```')
        ['CA', 'NY']
        >>> parse_extracted("The answer is ['June'].")
        ['June']
    """
    stripped = (text or "").strip()
    if not stripped:
        return ["None"]
    candidates = [stripped]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(stripped)]
    candidates += [m.group(0) for m in _LIST.finditer(stripped)]
    for candidate in candidates:
        parsed = _try_json(candidate)
        if parsed is None and candidate.startswith("["):
            parsed = _try_json(candidate.replace("'", '"'))
        if parsed is not None:
            cleaned = [item for item in parsed if item]
            return cleaned or ["None"]
    return [stripped]


class LLMExtractor:
    """An :class:`~crmtui.scoring.rewards.AnswerExtractor` asking a model through litellm.

    Args:
        client: The model client (its own model, e.g. ``--extract-model``).

    Attributes:
        calls: Number of extraction calls made (for cost reports).
        cost: Sum of the known costs of those calls.
    """

    def __init__(self, client: ModelClient) -> None:
        self.client = client
        self.calls = 0
        self.cost = 0.0
        #: The last call, for the recording's ``score_call`` event (see crmtui.scoring).
        self.last_call: dict[str, Any] | None = None

    @property
    def model(self) -> str:
        """The extractor model's name."""
        return self.client.model

    def __call__(self, response: str, *, task: str | None) -> list[str]:
        """Extract the answers in ``response``.

        Raises:
            ModelError: The extractor model failed after retries.
        """
        reply = self.client.complete(extraction_messages(response, task))
        self.calls += 1
        if reply.cost is not None:
            self.cost += reply.cost
        parsed = parse_extracted(reply.content)
        self.last_call = call_facts(self.model, response, reply, parsed)
        return parsed


def call_facts(model: str, given: str, reply: Any, result: Any) -> dict[str, Any]:
    """A scoring model call as recorded (``score_call``): who, what it read, what it said."""
    return {
        "model": model,
        "input": given,
        "reply": reply.content,
        "result": result,
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "cost": reply.cost,
        "latency_ms": round(reply.latency_ms, 3),
    }
