"""Replay reproduces the final state of a real play session and of an agent session."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from crmtui.agent.execution import make_query_executor
from crmtui.data.loaders import load_tasks
from crmtui.errors import CrmtuiError
from crmtui.play.browser import fetch_page, load_record
from crmtui.play.session import PlaySession
from crmtui.play.views import Condition, RecordView, TableView, equivalent_query
from crmtui.query import run
from crmtui.record import events as ev
from crmtui.record.verify import load
from crmtui.review.replay import replay
from crmtui.review.replay_org import check_org, prepare_replay


class Tick:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def _instance(org_path: Path, task: str | None = None) -> Any:
    tasks = load_tasks(str(org_path.with_suffix(".tasks.json")))
    if task is not None:
        tasks = tasks.filter(task=task)
    return next(iter(tasks))


def _run_console(session: PlaySession, org: Any, text: str) -> None:
    """What the console does: run through the engine, then record the outcome."""
    try:
        result = run(org, text, today=session.today)
    except CrmtuiError as exc:
        session.record_query(text, "soql", 0, 1.0, getattr(exc, "code", "ERROR"), str(exc))
        return
    session.record_query(text, "soql", result.total_size, 1.0, None, None)


def test_replay_reproduces_a_play_session(tmp_path, org, org_path):
    instance = _instance(org_path)
    tick = Tick()
    session = PlaySession.begin(
        instance,
        org,
        actor={"kind": "human", "id": "ann"},
        tasks_source=str(org_path.with_suffix(".tasks.json")),
        recordings=tmp_path,
        clock=tick,
        fsync=False,
    )
    session.start()
    schema, today = org.schema, session.today

    def browse(kind: str, view: Any, **payload: Any) -> None:
        tick.now += 1.5
        session.record_browse(kind, {**payload, "query": equivalent_query(schema, view)})

    # Drive the session the way the record browser would.
    cases = TableView("Case")
    browse("open_object", cases, object="Case")
    by_date = TableView("Case", sort_field="CreatedDate", sort_desc=True)
    browse("sort", by_date, object="Case", field="CreatedDate", descending=True)
    closed = replace(by_date, conditions=(Condition("Status", "=", "Closed"),))
    browse("filter", closed, object="Case", field="Status", op="=", value="Closed")
    case_id = fetch_page(org, closed, 0, 5, today).ids[0]
    case = RecordView("Case", case_id)
    browse("open_record", case, object="Case", id=case_id)
    detail = load_record(org, case, today)
    account = RecordView(*next(f.link for f in detail.fields if f.name == "AccountId"))
    browse(
        "follow_link",
        account,
        from_object="Case",
        from_id=case_id,
        field="AccountId",
        to_object=account.object,
        to_id=account.record_id,
    )
    browse("back", case)
    browse("back", closed)
    browse("forward", case)
    browse("back", closed)
    browse("filter", by_date, object="Case", field="*", op="clear", value=None)
    searched = replace(by_date, search="refund")
    browse("search", searched, text="refund")
    _run_console(session, org, "SELECT Id, Subject FROM Case WHERE Status = 'Closed' LIMIT 7")
    _run_console(session, org, "SELECT Nope FROM Case")
    wanted = instance.answer if isinstance(instance.answer, str) else "None"
    for i in range(1, len(wanted) + 1):
        session.answer_edited(wanted[:i])
        tick.now += 0.2
    tick.now += 5
    session.flush_pending()
    score = session.submit(wanted)
    session.close()

    result = replay(load(session.path))
    final = result.frames[-1]
    assert final.view == searched
    assert final.answer == wanted
    assert final.submission is not None and final.submission.reward == score.reward
    assert final.submission.gold == instance.answer and final.ended == "finished"
    assert final.query is not None and final.query.error_code == "INVALID_FIELD"
    # Every rebuilt view is equivalent to the query recorded with its browse action.
    for frame in result.frames:
        if frame.event.type in ev.BROWSE_TYPES:
            assert equivalent_query(schema, frame.view) == frame.event.payload["query"]
    # The last good query re-runs to the same row count on the same org.
    good = next(f.query for f in result.frames if f.query and not f.query.failed)
    assert run(org, good.text, today=today).total_size == good.rows == 7
    assert check_org(result.recording, org).ok


def test_replay_reproduces_an_agent_session(make_recording, org, org_path):
    instance = _instance(org_path, task="knowledge_qa")
    execute = make_query_executor(org, instance.today)
    rec = make_recording(
        actor={"kind": "model", "id": "scripted", "strategy": "react"},
        instance=instance,
        org=org,
        today=instance.today,
    )
    steps = [
        ("Find the article.", "SELECT Id, Title FROM Knowledge__kav LIMIT 2"),
        ("Try a bad field.", "SELECT Nope FROM Knowledge__kav"),
    ]
    observations = []
    for thought, query in steps:
        rec.emit(
            "model_call",
            {
                "prompt_tokens": 300,
                "completion_tokens": 40,
                "cost": 0.002,
                "latency_ms": 12.0,
                "content": f"Thought: {thought}\nAction: execute\n{query}",
            },
        )
        rec.emit("thought", {"text": thought})
        observation = execute(query)
        observations.append(observation)
        rec.emit("run_query", observation.event_payload(query))
    rec.emit(
        "model_call",
        {
            "prompt_tokens": 400,
            "completion_tokens": 10,
            "cost": 0.003,
            "latency_ms": 9.0,
            "content": "done",
        },
    )
    rec.emit("answer_edit", {"text": "42"})
    rec.emit("submit", {"answer": "42", "reward": 0.0, "scoring": "fuzzy_match", "gold": "x"})
    rec.close("agent submitted", 0.0)

    source = prepare_replay(rec.path)
    assert source.check.ok and source.org is not None
    assert source.instance is not None and source.instance.idx == instance.idx
    result = source.replay
    final = result.frames[-1]
    assert result.is_model and final.answer == "42" and final.submission.reward == 0.0
    assert final.tokens == 300 + 40 + 300 + 40 + 410
    assert final.queries == 2 and final.errors == 1
    assert final.query.error_code == observations[1].error_code == "INVALID_FIELD"
    texts = [line.text for line in result.transcript]
    assert observations[0].text in texts and observations[1].text in texts
    assert [line.role for line in result.transcript if line.role != "model"] == [
        "thought",
        "query",
        "observation",
        "thought",
        "query",
        "error",
        "submit",
        "end",
    ]
    # The first query's recorded row count is what the engine returns today.
    first = next(f.query for f in result.frames if f.query)
    assert run(org, first.text, today=instance.today).total_size == first.rows == 2
