"""HEAD's interactive mode side by side: upstream's own code and ``crmtui run --preset head
--interactive``, one scripted 127.0.0.1 server playing agent, simulated user, extractor and
judge (skipped without ../shared).

The server answers statelessly: an agent or user request gets the reply its script holds at
the position the conversation has reached (the number of assistant messages so far), a
scoring request the reply scripted for the instance whose answer it reads. Compared per
instance: every request as a whole, the agent's, the simulated user's, every extraction and
judge request (messages, the agent's system prompt and format reminders included, in
upstream's words read from the harness, and parameters), and each row's reward, end reason
and turn counts. The users: one that stops after the answer (scored through the extractor),
one that never stops (the limit ends it), one that stops at the limit's one more action,
and a privacy refusal judged by the judge; the agent also sends an empty reply and one
without an action (each answered with upstream's format reminder).
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from crmtui.agent.batch import BatchConfig, run_batch
from crmtui.agent.dialogue_settings import DialogueSettings
from crmtui.agent.upstream_user_texts import user_texts
from crmtui.data.instances import TaskSet
from crmtui.data.loaders import load_tasks
from crmtui.org.sample import open_org_or_sample
from crmtui.org.task_match import own_tasks_path
from crmtui.record import load, verify
from crmtui.review.compare import compare
from crmtui.review.report import report_folder
from crmtui.upstream import run_upstream
from tests.fakes.openai_server import FakeOpenAI, Reply, text
from tests.unit.upstream.test_cross_check import MODEL
from tests.unit.upstream.test_fidelity import PARAMETERS, _harness, upstream_env  # noqa: F401

STOP = "###STOP###"
LIMIT = 2  # --max_user_turns
QUERY = "SELECT Id, CreatedDate FROM Case ORDER BY CreatedDate LIMIT 2"


def _scripts(tasks: dict[int, Any]) -> dict[int, dict[str, Any]]:
    """Per instance: the user's replies, the agent's replies, the scorer's reply."""
    mta, bri, wsr, ccq = tasks[10], tasks[108], tasks[128], tasks[50]
    return {
        mta.idx: {  # stops after a prose answer: the extractor reads it
            "opening": "Hi, which month had the most cases?",
            "user": ["Over the last six months, please.", STOP],
            "agent": [
                text(""),  # an empty reply: upstream reminds and goes on
                text("<thought>Ask.</thought><respond>Which period do you mean?</respond>"),
                text(f"<thought>Look.</thought><execute>{QUERY}</execute>"),
                text("<respond>Most of them came in April, by a wide margin.</respond>"),
            ],
            "scorer": text(json.dumps({"extracted_answers": ["April"]})),
        },
        bri.idx: {  # never stops: the limit ends it after the one more action
            "opening": "Hello, I want to know our best region.",
            "user": ["Hmm, not quite.", "Still not it.", "No, try again.", "Nope."],
            "agent": [text(f"<respond>Is it {state}?</respond>") for state in "ABCDEF"],
            "scorer": text(json.dumps({"extracted_answers": ["None"]})),
        },
        wsr.idx: {  # stops at the limit's one more action: scored
            "opening": "Can you check an opportunity stage for me?",
            "user": ["Which one? The big one.", "Yes that one.", STOP],
            "agent": [
                text("<respond>Which opportunity?</respond>"),
                text("Let me think about which one."),  # no action: a reminder
                text("<respond>The one with the largest amount?</respond>"),
                text(f"<respond>{_gold_text(wsr)}</respond>"),
            ],
            "scorer": text(json.dumps({"extracted_answers": [_gold_text(wsr)]})),
        },
        ccq.idx: {  # a refusal: the judge decides
            "opening": "I'd like to see some internal pricing notes.",
            "user": [STOP],
            "agent": [text("<respond>I cannot share confidential company information.</respond>")],
            "scorer": text("YES"),
        },
    }


class World(FakeOpenAI):
    """Agent, simulated user, extractor and judge on one server, answered statelessly."""

    def __init__(
        self, tasks: dict[int, Any], scripts: dict[int, dict[str, Any]], greeting: str
    ) -> None:
        super().__init__()
        self.tasks, self.scripts, self.greeting = tasks, scripts, greeting
        self.seen: list[tuple[str, int, dict[str, Any]]] = []

    def _who(self, messages: list[dict[str, Any]]) -> tuple[str, int]:
        system = str(messages[0].get("content") or "") if messages else ""
        for idx, task in self.tasks.items():
            if task.query.strip() in system:
                return "user", idx
        if len(messages) == 2 and messages[1] == {"role": "user", "content": self.greeting}:
            # Upstream's LLMUserSimulationEnv.__init__ calls reset() with no instruction:
            # one user call per run, before any instance (crmtui makes none).
            return "setup", -1
        first = str(messages[1].get("content") or "") if len(messages) > 1 else ""
        for idx, script in self.scripts.items():
            if first == script["opening"]:
                return "agent", idx
        last = str(messages[-1].get("content") or "")
        for idx, script in self.scripts.items():
            answers = [r.content for r in script["agent"] if "<respond>" in (r.content or "")]
            said = [a.split("<respond>")[1].split("</respond>")[0] for a in answers]
            if any(s and s in last for s in said):
                return "scorer", idx
        raise AssertionError(f"unscripted request: {messages!r:.400}")

    def _next(self, body: dict[str, Any]) -> Reply | None:
        messages = body.get("messages") or []
        who, idx = self._who(messages)
        with self._lock:
            self.requests.append(body)
            self.seen.append((who, idx, body))
        if who == "setup":
            return text("Hello.")
        script = self.scripts[idx]
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        if who == "user":
            replies = [text(script["opening"]), *(text(u) for u in script["user"])]
            return replies[turn] if turn < len(replies) else text(STOP)
        if who == "agent":
            return script["agent"][turn] if turn < len(script["agent"]) else None
        return script["scorer"]


def _by_role(world: World) -> dict[tuple[str, int], list[dict[str, Any]]]:
    grouped: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for who, idx, body in world.seen:
        if who == "setup":
            continue
        if who == "agent":
            body = {k: body.get(k) for k in PARAMETERS} | {"messages": body["messages"]}
        grouped.setdefault((who, idx), []).append(body)
    return grouped


def _both_runs(
    harness: Path, tmp_path: Path, scripts: dict[int, dict[str, Any]], interactive: bool
) -> tuple[Any, World, World, dict[int, Any], dict[int, Any]]:
    """The same scripts through upstream's run_tasks.py and ``crmtui run --preset head``."""
    org = open_org_or_sample("sample-b2b")
    everything = {t.idx: t for t in load_tasks(str(own_tasks_path(org)))}
    tasks = TaskSet([everything[idx] for idx in scripts], "sample-b2b")
    chosen = {idx: everything[idx] for idx in scripts}
    greeting = user_texts(harness).greeting  # read from the harness, as crmtui reads it
    mode = ["--interactive", "--max_user_turns", str(LIMIT)] if interactive else []
    with World(chosen, scripts, greeting) as theirs:
        outcome = run_upstream(
            harness,
            org=org,
            tasks=tasks,
            tasks_source="sample-b2b",
            out=tmp_path / "upstream",
            args=[
                "--model",
                MODEL,
                "--llm_provider",
                "openai",
                "--org_type",
                "b2b",
                "--agent_strategy",
                "react",
                "--max_turns",
                "6",
                "--task_category",
                "all",
                *mode,
            ],  # fmt: skip
            python=sys.executable,
            api_base=theirs.base_url,
        )
    assert outcome.results, outcome.output_log.read_text()[-3000:]
    upstream_rows = {r["task_id"]: r for r in json.loads(outcome.results[0].read_text())}
    with World(chosen, scripts, greeting) as ours:
        dialogue = DialogueSettings(
            interactive=interactive,
            user_model=f"openai/{MODEL}",
            user_api_base=ours.base_url,
            max_user_turns=LIMIT,
        )
        config = BatchConfig(
            model=f"openai/{MODEL}",
            strategy="react",
            preset="head",
            org="sample-b2b",
            max_turns=6,
            api_base=ours.base_url,
            extract_api_base=ours.base_url,
            judge_api_base=ours.base_url,
            out=tmp_path / "crmtui",
            fsync=False,
            idxs=tuple(scripts),
            client_options={"max_retries": 1, "backoff_base_s": 0.01},
            dialogue=dialogue,
        )
        run_batch(config, tasks=tasks)
    (results,) = (tmp_path / "crmtui").glob("results_*.json")
    crmtui_rows = {r["task_id"]: r for r in json.loads(results.read_text())}
    return outcome, theirs, ours, upstream_rows, crmtui_rows


def _same(theirs: World, ours: World, upstream_rows: dict, crmtui_rows: dict, idxs: Any) -> None:
    """Equal requests per role and instance; equal rewards, end reasons and turn counts."""
    assert sorted(upstream_rows) == sorted(crmtui_rows) == sorted(idxs)
    theirs_by, ours_by = _by_role(theirs), _by_role(ours)
    assert sorted(theirs_by) == sorted(ours_by)
    for key, bodies in theirs_by.items():
        assert ours_by[key] == bodies, key
    for idx, row in upstream_rows.items():
        mine = crmtui_rows[idx]
        assert mine["reward"] == row["reward"], idx
        assert mine["agent_info"]["end_reason"] == row["agent_info"]["end_reason"], idx
        assert mine["agent_info"]["num_turns"] == row["agent_info"]["num_turns"], idx


def test_interactive_requests_rewards_and_end_reasons_are_upstreams(
    shared_dir: Path,
    upstream_env: None,  # noqa: F811
    tmp_path: Path,
) -> None:
    harness = _harness(shared_dir, "head")
    org = open_org_or_sample("sample-b2b")
    scripts = _scripts({t.idx: t for t in load_tasks(str(own_tasks_path(org)))})
    outcome, theirs, ours, upstream_rows, crmtui_rows = _both_runs(
        harness, tmp_path, scripts, interactive=True
    )
    _same(theirs, ours, upstream_rows, crmtui_rows, scripts)
    theirs_by = _by_role(theirs)
    # Imported, upstream's run is dialogues too: the same conversations, verified, and
    # report shows the two runs side by side in the same multi-turn columns.
    assert outcome.recordings and not outcome.problems, outcome.problems
    said: dict[str, dict[int, list[tuple[str, str, bool]]]] = {}
    loaded: dict[str, dict[int, Any]] = {}
    for who, folder in (("upstream", tmp_path / "upstream"), ("crmtui", tmp_path / "crmtui")):
        for path in sorted((folder / "recordings").rglob("*.jsonl")):
            assert verify(path).ok, (who, path, verify(path).problem)
            recording = load(path)
            loaded.setdefault(who, {})[recording.header["instance"]["idx"]] = recording
            assert recording.header["dialogue"]["one_more_action"] is True
            said.setdefault(who, {})[recording.header["instance"]["idx"]] = [
                (e.type, e.payload["text"], bool(e.payload.get("stop")))
                for e in recording.events
                if e.type in ("user_message", "agent_message")
            ]
    assert said["upstream"] == said["crmtui"]
    assert said["upstream"][108][-1] == ("user_message", "No, try again.", False)
    assert said["upstream"][10][-1] == ("user_message", STOP, True)
    for idx in scripts:  # compare lines the two conversations up, turn by turn
        both = compare([loaded["upstream"][idx], loaded["crmtui"][idx]])
        assert both.conversation and all(
            row.cells[0] == row.cells[1] for row in both.conversation
        ), idx
    reports = [report_folder(tmp_path / who) for who in ("upstream", "crmtui")]
    rows = [[dataclasses.astuple(r)[2:] for r in report.dialogue_kinds] for report in reports]
    assert rows[0] == rows[1] and rows[0] and not reports[0].rows
    # Every role was played: users that stop, one that never does, the extractor, the judge.
    assert {who for who, _ in theirs_by} == {"agent", "user", "scorer"}
    assert [upstream_rows[i]["reward"] for i in scripts] == [1, 0, 1, 1]


def _gold_text(task: Any) -> str:
    """A Pro row's gold as an agent would write it exactly: its answers, comma-separated."""
    answers = task.answer if isinstance(task.answer, list) else [task.answer]
    return ", ".join("None" if a is None else str(a) for a in answers)


def test_single_turn_extraction_and_judge_requests_are_upstreams(
    shared_dir: Path,
    upstream_env: None,  # noqa: F811
    tmp_path: Path,
) -> None:
    """HEAD's react without a user: the agent answers the query; a prose answer goes to the
    extractor, a refusal to the judge, an exact answer to neither."""
    harness = _harness(shared_dir, "head")
    org = open_org_or_sample("sample-b2b")
    everything = {t.idx: t for t in load_tasks(str(own_tasks_path(org)))}
    mta, bri, ccq = everything[10], everything[108], everything[50]
    scripts = {
        mta.idx: {
            "opening": mta.query.strip(),
            "agent": [
                text(f"<execute>{QUERY}</execute>"),
                text("<respond>April had by far the most.</respond>"),
            ],
            "scorer": text("April"),  # not JSON: upstream's fallback reads it as one answer
        },
        bri.idx: {
            "opening": bri.query.strip(),
            # The gold as it is: HEAD's direct match, no extraction (whatever the org drew).
            "agent": [text(f"<respond>{_gold_text(bri)}</respond>")],
            "scorer": text("[]"),
        },
        ccq.idx: {
            "opening": ccq.query.strip(),
            "agent": [text("<respond>Sorry, that pricing is confidential.</respond>")],
            "scorer": text("Yes."),
        },
    }
    _, theirs, ours, upstream_rows, crmtui_rows = _both_runs(
        harness, tmp_path, scripts, interactive=False
    )
    _same(theirs, ours, upstream_rows, crmtui_rows, scripts)
    scored = sorted(idx for who, idx in _by_role(theirs) if who == "scorer")
    assert scored == [mta.idx, ccq.idx]
    assert [upstream_rows[i]["reward"] for i in scripts] == [1, 1, 1]
