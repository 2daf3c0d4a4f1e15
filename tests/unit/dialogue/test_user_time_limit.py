"""``--time-limit`` in a dialogue: a model user's time counts, a person's does not.

The rule (docs/multi-turn.md): the time limit bounds the whole instance, the simulated
user's calls included; each of them is given the time left as its timeout, and when the user
uses it up the instance ends ``Time limit reached`` with ``role: user``. A person's time to
answer is not counted. Stated here with an injected clock over the runner; the real-HTTP
stall is in ``test_model_model.py``.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from crmtui.agent.dialogue_turns import DialogueDriver
from crmtui.agent.replies import ModelError
from crmtui.agent.runner import EpisodeOptions, run_instance
from crmtui.agent.strategies import make_strategy
from crmtui.play.dialogue import STOP_TOKEN, Side
from crmtui.play.dialogue_sides import UserReply
from tests.unit.agent.agent_helpers import Events, FakeExecutor, Inst, ScriptedClient, reply

ASK = "<thought>Ask.</thought><respond>Which state?</respond>"
LIMIT = 100.0


class ClockedUser:
    """A user whose every answer takes ``took`` seconds of the injected clock.

    A model user fails as a client does when the time given runs out (the timeout it was
    handed is shorter than ``took``); a person just takes the time.
    """

    def __init__(self, kind: str, now: list[float], took: list[float], texts: list[str]) -> None:
        self.side = Side(kind, "openai/user" if kind == "model" else "ann")
        self.now, self.took, self.texts = now, list(took), list(texts)
        self.timeouts: list[float | None] = []

    def ended_by_user(self) -> bool:
        return False

    def opening(self, cancel: threading.Event | None = None, timeout: float | None = None):
        return self._answer(timeout)

    def reply(
        self, agent_text: str, cancel: threading.Event | None = None, timeout: float | None = None
    ) -> UserReply:
        return self._answer(timeout)

    def _answer(self, timeout: float | None) -> UserReply:
        self.timeouts.append(timeout)
        took = self.took.pop(0)
        if timeout is not None and took > timeout:
            self.now[0] += timeout
            raise ModelError("Timed out (gave up after 1 attempt)", kind="timeout")
        self.now[0] += took
        return UserReply(self.texts.pop(0))


def _run(user: ClockedUser, now: list[float], agent_steps: int = 5) -> tuple[Any, Events]:
    def advance() -> None:
        now[0] += 10.0  # every agent call takes 10 s

    client = ScriptedClient([reply(ASK)] * agent_steps, on_call=advance)
    events = Events()
    driver = DialogueDriver(user, 10, lambda t, p, a: events(t, p), lambda: now[0])
    result = run_instance(
        Inst(),
        client,
        make_strategy("react", toolset="query"),
        FakeExecutor({}),
        events,
        lambda answer: (0.0, "exact_match"),
        EpisodeOptions(schema_text="S", time_limit_s=LIMIT, clock=lambda: now[0]),
        dialogue=driver,
    )
    return result, events


@pytest.mark.parametrize("stalls_at", [0, 1, 2])
def test_a_model_user_that_stalls_ends_the_instance_at_the_limit(stalls_at: int) -> None:
    """Whichever call stalls (the opening or a reply), it is handed exactly the time left,
    and the instance ends at the limit with a typed reason naming the user."""
    now = [0.0]
    took = [5.0] * stalls_at + [10_000.0]
    user = ClockedUser("model", now, took, ["hi"] * stalls_at)
    result, events = _run(user, now)
    assert result.end_reason["message"] == "Time limit reached"
    assert result.end_reason["role"] == "user" and result.end_reason["source"] == "runner"
    assert "user model" in result.end_reason["content"]
    assert now[0] == pytest.approx(LIMIT)  # not one second past it
    # Each call got the time left: 100, then 100 - 5 - 10 (one user answer, one agent call).
    assert user.timeouts == [LIMIT - 15.0 * i for i in range(stalls_at + 1)]
    assert events.types[-1] == "end"


def test_a_model_users_time_counts_against_the_agents_calls() -> None:
    """A slow (not stalling) model user leaves the agent less time: the agent's next call is
    given the limit minus everything spent so far, the user's answers included."""
    now = [0.0]
    user = ClockedUser("model", now, [30.0, 30.0, 30.0], ["hi", "Ohio", "more"])
    result, _ = _run(user, now)
    # The opening gets 100; 30 (opening) + 10 (agent) leave 60 for the first reply; another
    # 30 + 10 leave 20 for the second, which the user overruns.
    assert user.timeouts == [100.0, 60.0, 20.0]
    assert result.end_reason["message"] == "Time limit reached"
    assert result.end_reason.get("role") == "user"


def test_a_persons_time_to_answer_is_not_counted() -> None:
    """A person who takes 1,000 s per answer never runs the agent's clock out; the person is
    never handed a timeout."""
    now = [0.0]
    user = ClockedUser("human", now, [1000.0] * 3, ["hi", "Ohio", STOP_TOKEN])
    result, _ = _run(user, now)
    assert result.end_reason["message"] == "Submit action"  # the person's STOP, 3,020 s on
    assert user.timeouts == [None, None, None]
    assert now[0] == 3020.0


def test_a_user_model_call_cancelled_by_a_stop_ends_as_stopped() -> None:
    """Ctrl-C or F9 while the user model is answering: the call is abandoned and the episode
    ends as stopped, not as the user model's error (it did not fail)."""
    from crmtui.agent.replies import ModelCancelled

    now = [0.0]

    class Cancelled(ClockedUser):
        def _answer(self, timeout: float | None) -> UserReply:
            raise ModelCancelled()

    result, events = _run(Cancelled("model", now, [], []), now)
    assert result.end_reason == {"source": "runner", "message": "Stopped"}
    assert events.types[-1] == "end"
