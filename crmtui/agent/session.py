"""Recording and scoring glue for one agent attempt at one instance.

:class:`AgentSession` creates the recording (actor = the model), hands the runner an ``emit``
that writes to it, scores the answer, and makes sure the recording always ends with an
``end`` event carrying the end reason, whatever happens: a submitted answer, a model failure,
a stop request, or a bug in the harness. Every payload is scrubbed of secrets before it is
written (a model may echo its API key back). Batch (``crmtui run``) and watch (``crmtui
watch``) both go through it, so their recordings are identical in shape.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from crmtui.agent.dialogue_turns import DialogueDriver
from crmtui.agent.execution import Executor
from crmtui.agent.limits import cap_stored
from crmtui.agent.replies import ModelError
from crmtui.agent.result import HARNESS_ERROR as _HARNESS_ERROR
from crmtui.agent.result import STOPPED, AgentResult
from crmtui.agent.runner import ClientLike, EpisodeOptions, run_instance
from crmtui.agent.secrets import Scrubber
from crmtui.agent.strategies import Strategy
from crmtui.errors import CrmtuiError
from crmtui.play.dialogue import DEFAULT_MAX_USER_TURNS
from crmtui.play.dialogue_sides import UserSide
from crmtui.record.recorder import Recorder
from crmtui.scoring.evaluator import DEFAULT_LIST_METHOD, ScoringPlan, scored_by
from crmtui.scoring.judge import judge_input
from crmtui.scoring.rewards import DEFAULT_METHOD, AnswerExtractor, Score

__all__ = [
    "HARNESS_ERROR",
    "INTERRUPTED",
    "AgentSession",
    "make_scorer",
    "score_call_payload",
    "strategy_label",
]

#: End message for an attempt stopped by Ctrl-C in a batch.
INTERRUPTED = "Interrupted"
#: End message when the harness itself failed (recorded instead of crashing).
HARNESS_ERROR = _HARNESS_ERROR


def strategy_label(strategy: Strategy) -> str:
    """The strategy as recorded in the header actor (``tool_call/upstream`` for helper tools)."""
    if strategy.native_tools and strategy.toolset != "query":
        return f"{strategy.name}/{strategy.toolset}"
    return strategy.name


def make_scorer(
    instance: Any,
    method: str | None = None,
    extractor: AnswerExtractor | None = None,
    *,
    plan: ScoringPlan | None = None,
) -> Callable[..., Score]:
    """``score(answer, actions=())`` for ``instance`` that never raises.

    Args:
        instance: The instance.
        method: One method for every instance (default: the plan's, per gold shape).
        extractor: The extractor for ``llm_extract``.
        plan: The scoring plan (default: built from ``method`` and ``extractor``).

    ``actions`` are the contents of the agent's earlier actions, which a ``privacy_rejection``
    judge reads. A scoring problem (a failed extraction or judge call, a method that cannot
    score this gold) gives reward 0 with the reason in ``details["error"]`` (a failed model
    call also in ``details["calls"]``), so the attempt still ends cleanly.
    """
    if plan is None:
        plan = ScoringPlan(method or DEFAULT_METHOD, method or DEFAULT_LIST_METHOD, extractor)

    def score_answer(answer: str, actions: Sequence[str] = ()) -> Score:
        used = plan.method_for(instance.answer)
        try:
            return plan.score(instance, answer, actions)
        except ModelError as exc:
            privacy = instance.reward_metric == "privacy_rejection"
            role = "judge" if privacy else "extractor"
            scorer_model = getattr(plan.judge if privacy else plan.extractor, "model", "?")
            used = getattr(plan.judge, "method", used) if privacy else used
            given = judge_input([*actions, answer]) if privacy else answer
            call = {"role": role, "model": str(scorer_model), "input": given, "error": str(exc)}
            details: dict[str, Any] = {
                "error": f"answer {'judging' if privacy else 'extraction'} failed: {exc}",
                "calls": [call],
            }
        except CrmtuiError as exc:
            details = {"error": str(exc)}
        failed = Score(0.0, used, details)
        details["scored_by"] = scored_by(failed, instance.reward_metric)
        return failed

    score_answer.takes_actions = True  # type: ignore[attr-defined]
    return score_answer


#: Events whose content a ``privacy_rejection`` judge reads, in order, before the answer
#: (upstream: the content of every action). A dialogue (the multi-turn mode) adds the event of
#: the agent's messages to the user here, so the judge reads every respond, not only the
#: last, which is still scored as the answer.
JUDGED_EVENTS: dict[str, str] = {"run_query": "text", "agent_message": "text"}

_CALL_KEYS = (
    "role",
    "model",
    "input",
    "reply",
    "result",
    "prompt_tokens",
    "completion_tokens",
    "cost",
    "latency_ms",
    "error",
)


def score_call_payload(call: Mapping[str, Any]) -> dict[str, Any]:
    """A scoring model call as a ``score_call`` payload: known keys, long texts capped."""
    payload = {key: call[key] for key in _CALL_KEYS if key in call}
    payload["input"], input_chars = cap_stored(str(payload.get("input", "")))
    if input_chars is not None:
        payload["input_chars"] = input_chars
    if isinstance(payload.get("reply"), str):
        payload["reply"], reply_chars = cap_stored(payload["reply"])
        if reply_chars is not None:
            payload["reply_chars"] = reply_chars
    return payload


class AgentSession:
    """One recorded attempt by a model at one instance. Build with :meth:`begin`.

    Attributes:
        recorder: The recording being written.
        instance: The task instance.
        strategy: The strategy the model plays.
        scorer: ``score(answer) -> Score``.
        stop_label: End message used when the runner is asked to stop (``Stopped`` by
            default; a batch uses ``Interrupted``).
        result: The attempt's result once :meth:`run` returned.
    """

    def __init__(
        self,
        recorder: Recorder,
        instance: Any,
        strategy: Strategy,
        scorer: Callable[[str], Score],
        scrubber: Scrubber | None = None,
    ) -> None:
        self.recorder = recorder
        self.scrubber = scrubber or Scrubber()
        self.instance = instance
        self.strategy = strategy
        self.scorer = scorer
        self.stop_label = STOPPED
        self.result: AgentResult | None = None
        self._lock = threading.Lock()
        self._ended = False
        #: The contents of the agent's actions so far (its queries), for a judge.
        self._actions: list[str] = []

    @classmethod
    def begin(
        cls,
        instance: Any,
        org: Any,
        *,
        model: str,
        strategy: Strategy,
        tasks_source: str,
        recordings: str | os.PathLike[str] | None,
        aided: bool = False,
        scorer: Callable[[str], Score] | None = None,
        wall: Callable[[], dt.datetime] | None = None,
        monotonic: Callable[[], float] | None = None,
        fsync: bool = True,
        today: dt.date | None | str = "instance",
        settings: Mapping[str, Any] | None = None,
        run_id: str | None = None,
        scrubber: Scrubber | None = None,
        dialogue: Mapping[str, Any] | None = None,
    ) -> AgentSession:
        """Create the recording (header written) for ``model`` playing ``strategy``.

        Args:
            today: The date queries resolve date literals against (``"instance"``: the
                instance's own date), recorded in the header.
            settings: The resolved settings, recorded in the header.
            run_id: The batch run this attempt belongs to.
            scrubber: Removes secrets from what is recorded.
            dialogue: The multi-turn mode's header object (both sides, the limit; see
                :class:`crmtui.play.dialogue.DialogueSpec`); the model plays the agent.

        Raises:
            RecordingError: The recording cannot be created.
        """
        if dialogue is not None and strategy.observations == "head":
            # Upstream HEAD's count of the turn limit (one more agent action after the user's
            # last reply): recorded, so that verify holds the conversation to the same rule.
            dialogue = {**dialogue, "one_more_action": True}
        recorder = Recorder.create(
            recordings,
            actor={"kind": "model", "id": model, "strategy": strategy_label(strategy)},
            instance=instance,
            org=org,
            tasks_source=tasks_source,
            today=getattr(instance, "today", None) if today == "instance" else today,
            mode="aided" if aided else "default",
            settings=settings,
            run_id=run_id,
            dialogue=dialogue,
            wall=wall,
            monotonic=monotonic,
            fsync=fsync,
        )
        return cls(recorder, instance, strategy, scorer or make_scorer(instance), scrubber)

    @property
    def path(self) -> Path:
        """The recording file."""
        return self.recorder.path

    @property
    def ended(self) -> bool:
        """True once the ``end`` event is written."""
        return self._ended

    def emit(self, event_type: str, payload: Mapping[str, Any], actor: str | None = None) -> None:
        """The runner's event sink: writes to the recording; ``end`` also releases the file.

        ``actor``: who did it when not the model (a dialogue's user messages).
        """
        body = self.scrubber.value(dict(payload))
        if event_type == "end":
            body = self._relabel_end(body)
        with self._lock:
            if self._ended:
                return
            if event_type in JUDGED_EVENTS:
                self._actions.append(str(body.get(JUDGED_EVENTS[event_type], "")))
            self.recorder.emit(event_type, body, actor)
            if event_type == "end":
                self._ended = True
                # The end event is written; release the descriptor (close() would add a
                # second end event without the end reason).
                self.recorder.suspend()

    def end_now(self, source: str, message: str, content: str | None = None) -> bool:
        """Write the ``end`` event now unless it is written already (quit, setup failure).

        Events the runner emits afterwards are dropped, so a runner thread still finishing
        its step cannot write past the end. Returns True when this call ended the recording.
        """
        if self._ended:
            return False
        reason: dict[str, Any] = {"source": source, "message": message}
        if content is not None:
            reason["content"] = content
        self.emit("end", {"reason": message, "reward": 0, "end_reason": reason})
        return self._ended

    def _relabel_end(self, body: dict[str, Any]) -> dict[str, Any]:
        reason = body.get("end_reason")
        if (
            self.stop_label != STOPPED
            and isinstance(reason, dict)
            and reason.get("source") == "runner"
            and reason.get("message") == STOPPED
        ):
            reason = {**reason, "message": self.stop_label}
            body = {**body, "reason": self.stop_label, "end_reason": reason}
        return body

    def run(
        self,
        client: ClientLike,
        execute: Executor,
        options: EpisodeOptions | None = None,
        *,
        user: UserSide | None = None,
        max_user_turns: int = DEFAULT_MAX_USER_TURNS,
        on_message: Callable[[str, str], None] | None = None,
    ) -> AgentResult:
        """Run the episode to its end; the recording is ended and released on every path.

        With ``user`` the episode is a dialogue (the multi-turn mode): the user opens it and
        answers every ``respond`` (see :mod:`crmtui.agent.runner`); ``on_message`` hears each
        message as ``(role, text)`` once recorded.

        A failure of the harness itself (a bug, a disk error) is recorded as the end reason
        ``{source: runner, message: "Harness error", content}`` rather than raised, so one
        bad instance never takes a batch down.
        """
        options = options or EpisodeOptions()
        driver = (
            None
            if user is None
            else DialogueDriver(
                user,
                max_user_turns,
                self.emit,
                options.clock,
                on_message,
                one_more_action=self.strategy.observations == "head",
            )
        )
        try:
            result = run_instance(
                self.instance,
                client,
                self.strategy,
                execute,
                self.emit,
                self._score,
                options,
                dialogue=driver,
            )
        except Exception as exc:  # noqa: BLE001 - recorded as the end reason, see docstring
            result = self._failed(exc)
        finally:
            if not self._ended:
                with contextlib.suppress(CrmtuiError, OSError):
                    self.recorder.suspend()
        reason = result.end_reason
        if reason.get("source") == "runner" and reason.get("message") == STOPPED:
            result.end_reason = {**reason, "message": self.stop_label}
        self.result = result
        return result

    def _score(self, answer: str) -> Any:
        """Score the answer (a judge reads the actions so far); record its model calls.

        Each model call the scoring made (answer extraction, the privacy judge) is written
        as a ``score_call`` event before the runner writes ``submit``.
        """
        if getattr(self.scorer, "takes_actions", False):
            actions = list(self._actions)
            if actions and actions[-1] == answer:
                actions.pop()  # a dialogue's last message is the answer itself: judged once
            result = self.scorer(answer, actions=tuple(actions))
        else:
            result = self.scorer(answer)
        details = getattr(result, "details", None)
        if not isinstance(details, dict) or "calls" not in details:
            return result
        details = dict(details)
        for call in details.pop("calls") or []:
            self.emit("score_call", score_call_payload(call))
        return Score(result.reward, result.method, details)

    def _failed(self, exc: Exception) -> AgentResult:
        detail = f"{type(exc).__name__}: {exc}"
        reason = {"source": "runner", "message": HARNESS_ERROR, "content": detail}
        with contextlib.suppress(CrmtuiError, OSError):
            self.emit("end", {"reason": HARNESS_ERROR, "reward": 0, "end_reason": reason})
        inst = self.instance
        return AgentResult(
            task_id=getattr(inst, "idx", None),
            task_type=getattr(inst, "task", ""),
            gt_answer=getattr(inst, "answer", None),
            strategy=self.strategy.name,
            end_reason=reason,
        )
