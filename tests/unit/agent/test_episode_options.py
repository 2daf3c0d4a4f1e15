"""An episode's options travel as one object from the caller to ``run_instance`` (#33).

``AgentSession.run`` used to re-declare run_instance's fourteen keyword arguments and pass
each through by hand, so a new option meant three edits that could drift. Now the options
are one :class:`EpisodeOptions`: no layer re-declares its fields, and the object a caller
builds is the object the runner reads.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

from crmtui.agent import runner, session
from crmtui.agent.runner import EpisodeOptions, run_instance
from crmtui.agent.session import AgentSession

FIELDS = {field.name for field in dataclasses.fields(EpisodeOptions)}


def test_no_layer_redeclares_an_option() -> None:
    for function in (run_instance, AgentSession.run):
        params = set(inspect.signature(function).parameters)
        assert params & FIELDS == set(), function.__qualname__
        assert "options" in params


def test_run_instance_reads_every_option() -> None:
    source = inspect.getsource(runner.run_instance)
    unread = sorted(name for name in FIELDS if f"options.{name}" not in source)
    assert unread == []


def test_the_session_hands_the_callers_object_through(monkeypatch: Any) -> None:
    seen: list[Any] = []

    def fake_run_instance(*args: Any, **kwargs: Any) -> Any:
        seen.append(args[6])
        raise RuntimeError("stop here")  # recorded as a harness error, see AgentSession.run

    monkeypatch.setattr(session, "run_instance", fake_run_instance)
    options = EpisodeOptions(max_turns=3, observation_cap=10)
    fake = AgentSession.__new__(AgentSession)
    fake.instance, fake.strategy, fake._ended = object(), object(), True
    fake.emit = lambda *a: None  # type: ignore[method-assign]
    fake._failed = lambda exc: session.AgentResult(  # type: ignore[method-assign]
        task_id=None, task_type="", gt_answer=None, strategy="react"
    )
    fake.stop_label = "Stopped"
    fake.run(object(), lambda text: None, options)  # type: ignore[arg-type]
    assert seen == [options] and seen[0] is options
