"""Fuzzing agent replies: hostile model output through the real runner, engine and recorder.

Each case is one agent episode (``crmtui.agent.runner.run_instance``) with a scripted client
whose 1-4 replies are hostile: tagged text around generated queries, bare garbage, lone
surrogates, 300 KB replies, API keys echoed back, native tool calls with broken JSON
arguments or unknown names, and malformed-reply errors. Queries run on a real org through
the agent's executor (with a query budget) and every event goes to a real recorder.

Outcomes: the episode's end (``end:<message>``) when the recording it left verifies and
holds no echoed key; failures are ``crash`` (an exception escaped the runner), ``harness``
(the runner's "Harness error", reserved for bugs), ``lost`` (the recording does not
verify), ``leaked`` (the echoed key reached the recording) and ``slow``.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

from .fuzz_inputs import HOSTILE_CHUNKS, mutate_bytes

#: Outcomes that are failures.
AGENT_FAILURES = ("crash", "harness", "lost", "leaked", "slow")
#: A key-shaped secret the fuzzer makes models echo; it must never be recorded.
ECHOED_KEY = "sk-fuzz" + "Q7x" * 12

_NAMES = ["soql_query", "sosl_search", "respond", "get_cases", "unknown", "", "soql_query\x00"]


class ReplyFuzzer:
    """Hostile model replies (seeded, deterministic).

    Args:
        next_query: Makes a query text (the engine fuzzer's ``next``).
        seed: Random seed.
    """

    def __init__(self, next_query: Any, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.next_query = next_query

    def text(self) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.35:
            return f"Thought: look it up.\n<execute>{self.next_query()}</execute>"
        if roll < 0.5:
            answer = rng.choice(["005Ws000001aaaaIAA", "", "None", "\ud800", "x" * 5000, "[1,"])
            return f"<respond>{answer}</respond>"
        if roll < 0.6:
            return "<execute><execute>SELECT Id FROM Case</execute><respond>a</respond>"
        if roll < 0.7:
            return f"my key is {ECHOED_KEY} <respond>{ECHOED_KEY}</respond>"
        if roll < 0.75:
            return "<execute>" + "z" * 300_000 + "</execute>"
        raw = mutate_bytes(rng, b"<respond>fine</respond>", rng.randint(1, 6))
        return raw.decode("utf-8", "surrogateescape")

    def arguments(self) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.5:
            return json.dumps({"query": self.next_query()})
        if roll < 0.6:
            return json.dumps({"query": rng.choice([5, None, [], "", {"q": 1}])})
        if roll < 0.7:
            return rng.choice(["", "null", "[1]", '"x"', "{", '{"answer": "\\ud800"}'])
        return mutate_bytes(rng, b'{"query": "SELECT Id FROM Case"}').decode("utf-8", "replace")

    def replies(self, native: bool) -> list[Any]:
        """1-4 replies (or malformed-reply errors) for one episode."""
        from crmtui.agent.replies import ModelError, ModelReply, parse_tool_call

        rng = self.rng
        out: list[Any] = []
        for turn in range(rng.randint(1, 4)):
            if rng.random() < 0.08:
                kind = rng.choice(["malformed", "rejected", "unavailable"])
                out.append(ModelError(f"fuzzed {kind} reply", kind=kind))
                continue
            calls = []
            if native and rng.random() < 0.85:
                for n in range(rng.choice([1, 1, 1, 2])):
                    calls.append(
                        parse_tool_call(f"c{turn}{n}", rng.choice(_NAMES), self.arguments())
                    )
            content = self.text() if not calls or rng.random() < 0.2 else ""
            if rng.random() < 0.05:
                content += _pick_chunk(rng)
            out.append(ModelReply(content, calls, rng.choice([0, 10, 2**40]), 5, None, 1.0, "stop"))
        return out


def _pick_chunk(rng: random.Random) -> str:
    return HOSTILE_CHUNKS[rng.randrange(len(HOSTILE_CHUNKS))].decode("utf-8", "surrogateescape")


class _Client:
    def __init__(self, replies: list[Any]) -> None:
        self.replies = replies

    def complete(self, messages: Any, tools: Any = None, **_: Any) -> Any:
        item = self.replies.pop(0)
        if isinstance(item, Exception):
            raise item
        return item


def run_episode(
    fuzzer: ReplyFuzzer,
    instance: Any,
    org: Any,
    root: Path,
    strategy_name: str,
    *,
    slow_ms: float = 60_000.0,
) -> tuple[str, str]:
    """One hostile episode; returns (outcome, detail)."""
    from crmtui.agent.execution import make_query_executor
    from crmtui.agent.runner import EpisodeOptions, run_instance
    from crmtui.agent.strategies import make_strategy
    from crmtui.record import Recorder, verify

    strategy = make_strategy(strategy_name)
    replies = fuzzer.replies(strategy.native_tools)
    recorder = Recorder.create(
        root,
        actor={"kind": "model", "id": "fuzz", "strategy": strategy_name},
        instance=instance.to_row() if hasattr(instance, "to_row") else {"idx": instance.idx},
        org={"path": None, "digest": None, "name": None},
        tasks_source="fuzz",
        fsync=False,
    )
    started = time.process_time()
    try:
        result = run_instance(
            instance,
            _Client(replies),
            strategy,
            make_query_executor(org, instance.today, query_timeout_s=5.0),
            recorder.emit,
            lambda answer: (1 if answer.strip() == str(instance.answer) else 0, "exact_match"),
            EpisodeOptions(max_turns=len(replies), observation_cap=40_000),
        )
        # The runner wrote the end event; release the file as the agent session does.
        recorder.suspend()
    except Exception as exc:  # noqa: BLE001 - what the fuzzer exists to report
        return "crash", f"{type(exc).__name__}: {str(exc)[:300]}"
    elapsed = (time.process_time() - started) * 1000
    message = str(result.end_reason.get("message", ""))
    report = verify(recorder.path)
    if not report.ok:
        return "lost", f"{report.describe()}"
    if ECHOED_KEY in recorder.path.read_text(encoding="utf-8"):
        return "leaked", "the echoed key is in the recording"
    if message == "Harness error":
        return "harness", str(result.end_reason.get("content", ""))[:300]
    if elapsed > slow_ms:
        return "slow", f"{elapsed:.0f} ms ({message})"
    return f"end:{message}", ""
