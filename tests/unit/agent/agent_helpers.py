"""Test doubles for the agent tests: stand-in instances, executor, event sink, client."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from crmtui.agent.client import ModelReply, parse_tool_call
from crmtui.agent.execution import Observation, query_kind


@dataclass
class Meta:
    required: str = ""
    optional: str = ""


@dataclass
class Inst:
    """Stand-in for crmtui.data.instances.Instance."""

    idx: int = 7
    task: str = "best_region_identification"
    query: str = "  Which state has the fastest case closure?  "
    answer: str | None = "CA"
    metadata: Meta = field(
        default_factory=lambda: Meta(
            required="- Today's date: 2024-05-26", optional="# Domain Details\nQ1 is Jan-Mar."
        )
    )
    reward_metric: str = "exact_match"


class FakeExecutor:
    """Maps query text to a canned result; unknown text gives a MALFORMED_QUERY error."""

    def __init__(self, results: dict[str, list[dict[str, Any]]] | None = None) -> None:
        self.results = results or {}
        self.calls: list[str] = []

    def __call__(self, text: str) -> Observation:
        self.calls.append(text)
        if text in self.results:
            rows = self.results[text]
            return Observation(str(rows), query_kind(text), len(rows), 1.5, records=rows)
        message = f"MALFORMED_QUERY: unexpected token in {text[:20]!r}"
        return Observation(message, query_kind(text), None, 0.5, "MALFORMED_QUERY", message)


class Events:
    """An ``emit`` sink that keeps (type, payload) pairs."""

    def __init__(self) -> None:
        self.items: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, kind: str, payload: dict[str, Any]) -> None:
        self.items.append((kind, payload))

    @property
    def types(self) -> list[str]:
        return [kind for kind, _ in self.items]

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [payload for k, payload in self.items if k == kind]


def reply(
    content: str = "", calls: list[tuple[str, str, str]] | None = None, cost: float | None = 0.01
) -> ModelReply:
    """A ModelReply for runner tests that need no HTTP."""
    return ModelReply(
        content=content,
        tool_calls=[parse_tool_call(*c) for c in calls or []],
        prompt_tokens=100,
        completion_tokens=10,
        cost=cost,
        latency_ms=3.0,
        finish_reason="stop",
    )


class ScriptedClient:
    """A model client double returning scripted replies (or raising scripted errors)."""

    def __init__(
        self, replies: list[ModelReply | Exception], on_call: Callable[[], None] | None = None
    ) -> None:
        self.replies = list(replies)
        self.requests: list[list[dict[str, Any]]] = []
        self.timeouts: list[float | None] = []
        self.on_call = on_call

    def complete(
        self, messages: Any, tools: Any = None, *, timeout: float | None = None
    ) -> ModelReply:
        self.requests.append([dict(m) for m in messages])
        self.timeouts.append(timeout)
        if self.on_call:
            self.on_call()
        item = self.replies.pop(0)
        if isinstance(item, Exception):
            raise item
        return item


def exact_score(gold: str | None) -> Callable[[str], tuple[int, str]]:
    expected = "None" if gold is None else gold

    def score(proposed: str) -> tuple[int, str]:
        return (1 if proposed.strip() == expected else 0), "exact_match"

    return score
