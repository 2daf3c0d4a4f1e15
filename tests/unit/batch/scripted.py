"""Scripted agents for batch tests and benchmarks: a routing fake server and solving scripts.

The routing server answers each request with the next reply scripted for the instance it
belongs to (found through the user message and the task context in the prompt), so several
instances can run concurrently against one server and still get their own script.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.fakes.openai_server import FakeOpenAI, Reply, text, tool_call

#: A real query per task type (SOQL and SOSL) run by the scripted agent before it answers.
QUERIES = {
    "knowledge_qa": "SELECT Id, Title FROM Knowledge__kav LIMIT 3",
    "monthly_trend_analysis": "SELECT Id, CreatedDate FROM Case ORDER BY CreatedDate DESC LIMIT 5",
    "top_issue_identification": "SELECT Id, Name FROM Issue__c",
    "case_routing": "SELECT Id, Name FROM User LIMIT 5",
    "named_entity_disambiguation": "FIND {shirt} IN ALL FIELDS RETURNING Product2(Id, Name)",
    "handle_time": "SELECT OwnerId, CreatedDate, ClosedDate FROM Case WHERE ClosedDate != NULL "
    "LIMIT 5",
    "transfer_count": "SELECT OldValue__c, NewValue__c FROM CaseHistory__c LIMIT 5",
    "policy_violation_identification": "SELECT Id, Subject FROM Case LIMIT 3",
    "best_region_identification": "SELECT ShippingState, COUNT(Id) n FROM Account "
    "GROUP BY ShippingState",
}


def gold_text(answer: Any) -> str:
    """What a perfect agent submits: the gold answer, ``None`` for a null gold."""
    return "None" if answer is None else str(answer)


def solving_script(instance: Any, strategy: str, steps: int = 2) -> list[Reply]:
    """``steps - 1`` real queries, then the gold answer, in the strategy's protocol."""
    query = QUERIES[instance.task]
    answer = gold_text(instance.answer)
    if strategy == "tool_call":
        tool = "sosl_search" if query.startswith("FIND") else "soql_query"
        replies = [tool_call(tool, {"query": query}, call_id=f"c{i}") for i in range(steps - 1)]
        return [*replies, tool_call("respond", {"content": answer}, call_id="c-end")]
    thought = "<thought>Look at the data first.</thought>" if strategy == "react" else ""
    replies = [text(f"{thought}<execute>{query}</execute>") for _ in range(steps - 1)]
    return [*replies, text(f"<thought>Done.</thought><respond>{answer}</respond>")]


class RoutingFake(FakeOpenAI):
    """A fake server whose replies are scripted per instance.

    Args:
        scripts: Instance -> the replies for steps 1, 2, ... (several instances share a
            query text, so the instance is told apart by its task context too).
        extractor: Reply for requests that are not agent turns (answer extraction).
    """

    def __init__(
        self,
        scripts: dict[Any, list[Reply]],
        extractor: Callable[[dict[str, Any]], Reply] | None = None,
    ) -> None:
        super().__init__()
        self.routes = [
            (inst.query.strip(), inst.metadata.required.strip(), list(script))
            for inst, script in scripts.items()
        ]
        self.extractor = extractor

    def script_for(self, messages: list[dict[str, Any]]) -> list[Reply] | None:
        """The script of the instance these messages belong to."""
        users = [m for m in messages if m.get("role") == "user"]
        first_user = str(users[0].get("content", "")).strip() if users else ""
        prompt = " ".join(str(m.get("content") or "") for m in messages[:2])
        for query, required, script in self.routes:
            if first_user.endswith(query) and required in prompt:
                return script
        return None

    def _next(self, body: dict[str, Any]) -> Reply | None:
        messages = body.get("messages") or []
        with self._lock:
            self.requests.append(body)
        script = self.script_for(messages)
        if script is None:
            return self.extractor(body) if self.extractor else None
        # Replies are consumed in order per instance, so a retried request gets the next
        # scripted item (a 429 then the real answer).
        with self._lock:
            return script.pop(0) if script else None
