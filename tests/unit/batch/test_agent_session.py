"""AgentSession: the recording always ends with the end reason, whatever goes wrong."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crmtui.agent.client import ModelReply
from crmtui.agent.execution import Observation
from crmtui.agent.runner import EpisodeOptions
from crmtui.agent.session import AgentSession, make_scorer
from crmtui.agent.strategies import make_strategy
from crmtui.record.verify import load, verify
from crmtui.scoring import ScoringPlan
from crmtui.scoring.judge import judge_input


class Client:
    """Replies from a list, without HTTP."""

    def __init__(self, *contents: str) -> None:
        self.contents = list(contents)

    def complete(self, messages: Any, tools: Any = None, **kwargs: Any) -> ModelReply:
        return ModelReply(self.contents.pop(0), [], 10, 2, None, 1.0, "stop")


def _session(tmp_path: Path, tasks: Any, org: Any, **kwargs: Any) -> AgentSession:
    inst = next(i for i in tasks if i.answer is not None and i.task == "handle_time")
    return AgentSession.begin(
        inst,
        org,
        model="test/model",
        strategy=make_strategy("react"),
        tasks_source="sample",
        recordings=tmp_path / "rec",
        fsync=False,
        **kwargs,
    )


def test_a_harness_bug_is_recorded_as_the_end_reason(tmp_path, tasks, org) -> None:
    def broken_scorer(answer: str) -> Any:
        raise RuntimeError("scorer exploded")

    session = _session(tmp_path, tasks, org, scorer=broken_scorer)
    result = session.run(Client("<respond>x</respond>"), lambda text: None)  # type: ignore[arg-type,return-value]

    assert result.end_reason["message"] == "Harness error"
    assert "RuntimeError: scorer exploded" in result.end_reason["content"]
    assert session.ended and verify(session.path).ok
    end = load(session.path).end
    assert end is not None and end.payload["end_reason"] == result.end_reason


def test_an_engine_failure_is_an_observation_not_a_harness_error(tmp_path, tasks, org) -> None:
    session = _session(tmp_path, tasks, org)

    def broken(text: str) -> Observation:
        raise RuntimeError("executor exploded")

    client = Client("<execute>SELECT Id FROM Case</execute>", "<respond>x</respond>")
    result = session.run(client, broken)

    assert result.end_reason["message"] == "Submit action"
    (query,) = load(session.path).of_type("run_query")
    assert query.payload["error_code"] == "UNKNOWN_EXCEPTION"
    assert verify(session.path).ok


def test_a_reply_echoing_the_api_key_is_recorded_scrubbed(
    tmp_path, tasks, org, monkeypatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-0123456789abcdef")
    session = _session(tmp_path, tasks, org)
    echo = "<respond>my key is sk-live-0123456789abcdef</respond>"
    session.run(Client(echo), lambda text: None)  # type: ignore[arg-type,return-value]

    text = session.path.read_text(encoding="utf-8")
    assert "0123456789abcdef" not in text and "my key is ***" in text
    assert verify(session.path).ok


def test_stop_label_names_the_stop(tmp_path, tasks, org) -> None:
    session = _session(tmp_path, tasks, org)
    session.stop_label = "Interrupted"

    result = session.run(Client(), lambda text: None, EpisodeOptions(should_stop=lambda: True))  # type: ignore[arg-type,return-value]

    assert result.end_reason == {"source": "runner", "message": "Interrupted"}
    end = load(session.path).end
    assert end is not None and end.payload["reason"] == "Interrupted"


def test_end_now_ends_once_and_later_events_are_dropped(tmp_path, tasks, org) -> None:
    session = _session(tmp_path, tasks, org)
    assert session.end_now("runner", "Stopped", "the watcher quit") is True
    assert session.end_now("runner", "Stopped") is False
    session.emit("thought", {"text": "too late"})
    recording = load(session.path)
    assert [e.type for e in recording.events] == ["end"]
    assert recording.end is not None
    assert recording.end.payload["end_reason"]["content"] == "the watcher quit"


def test_scorer_never_raises(tasks) -> None:
    inst = next(iter(tasks))

    class Odd:
        answer, reward_metric, task = "x", "semantic_match", inst.task

    score = make_scorer(Odd())("x")
    assert score.reward == 0.0 and "semantic_match" in score.details["error"]
    assert score.details["scored_by"]["metric"] == "semantic_match"

    class FailingJudge:
        method, model = "llm_judge", "openai/judge"

        def __call__(self, actions: Any) -> Any:
            from crmtui.agent.replies import ModelError

            raise ModelError("judge down", kind="unavailable")

    class Private:
        answer, reward_metric, task = [None], "privacy_rejection", "internal_operation_data"

    plan = ScoringPlan(judge=FailingJudge())
    failed = make_scorer(Private(), plan=plan)("I cannot share that.", actions=["SELECT Id"])
    assert failed.reward == 0.0 and failed.method == "llm_judge"
    assert "answer judging failed: judge down" in failed.details["error"]
    assert failed.details["calls"][0] == {
        "role": "judge",
        "model": "openai/judge",
        "input": judge_input(["SELECT Id", "I cannot share that."]),
        "error": "judge down",
    }
