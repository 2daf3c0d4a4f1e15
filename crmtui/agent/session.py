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
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from crmtui.agent.execution import Executor
from crmtui.agent.replies import ModelError
from crmtui.agent.result import HARNESS_ERROR as _HARNESS_ERROR
from crmtui.agent.result import STOPPED, AgentResult, StepInfo
from crmtui.agent.runner import ClientLike, run_instance
from crmtui.agent.secrets import Scrubber
from crmtui.agent.strategies import Strategy
from crmtui.errors import CrmtuiError
from crmtui.record.recorder import Recorder
from crmtui.scoring.rewards import DEFAULT_METHOD, AnswerExtractor, Score, score

__all__ = [
    "HARNESS_ERROR",
    "INTERRUPTED",
    "AgentSession",
    "make_scorer",
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
    method: str = DEFAULT_METHOD,
    extractor: AnswerExtractor | None = None,
) -> Callable[[str], Score]:
    """``score(answer)`` for ``instance`` that never raises.

    A scoring problem (``privacy_rejection`` needs a judge, a failed extraction call) gives
    reward 0 with the reason in ``details["error"]``, so the attempt still ends cleanly.
    """

    def score_answer(answer: str) -> Score:
        try:
            return score(
                instance.answer,
                instance.reward_metric,
                answer,
                method,
                extractor=extractor,
                task=instance.task,
            )
        except ModelError as exc:
            return Score(0.0, method, {"error": f"answer extraction failed: {exc}"})
        except CrmtuiError as exc:
            return Score(0.0, method, {"error": str(exc)})

    return score_answer


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
    ) -> AgentSession:
        """Create the recording (header written) for ``model`` playing ``strategy``.

        Args:
            today: The date queries resolve date literals against (``"instance"``: the
                instance's own date), recorded in the header.
            settings: The resolved settings, recorded in the header.
            run_id: The batch run this attempt belongs to.
            scrubber: Removes secrets from what is recorded.

        Raises:
            RecordingError: The recording cannot be created.
        """
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

    def emit(self, event_type: str, payload: Mapping[str, Any]) -> None:
        """The runner's event sink: writes to the recording; ``end`` also releases the file."""
        body = self.scrubber.value(dict(payload))
        if event_type == "end":
            body = self._relabel_end(body)
        with self._lock:
            if self._ended:
                return
            self.recorder.emit(event_type, body)
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
        *,
        schema_text: str | None = None,
        max_turns: int = 20,
        time_limit_s: float = 600,
        aided: bool = False,
        clock: Callable[[], float] = time.monotonic,
        on_step: Callable[[StepInfo], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
        on_delta: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
        observation_cap: int | None = None,
    ) -> AgentResult:
        """Run the episode to its end; the recording is ended and released on every path.

        A failure of the harness itself (a bug, a disk error) is recorded as the end reason
        ``{source: runner, message: "Harness error", content}`` rather than raised, so one
        bad instance never takes a batch down.
        """
        try:
            result = run_instance(
                self.instance,
                client,
                self.strategy,
                execute,
                self.emit,
                self.scorer,
                schema_text=schema_text,
                max_turns=max_turns,
                time_limit_s=time_limit_s,
                aided=aided,
                clock=clock,
                on_step=on_step,
                should_stop=should_stop,
                on_delta=on_delta,
                cancel=cancel,
                observation_cap=observation_cap,
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
