"""Headless batch runs: many instances, K in flight at once, resumable, Ctrl-C safe.

:func:`run_batch` picks the instances, skips those already done (see
:mod:`crmtui.agent.batch_files`), runs the rest on a thread pool (each thread keeps its own
model client; queries open per-thread read-only connections), records every attempt through
:class:`~crmtui.agent.session.AgentSession`, and rewrites the results file after each
finished instance. Progress callbacks run on the calling thread only.

Stopping: setting ``stop`` (or Ctrl-C in the calling thread) starts no new instance; the
ones in flight end after their current step with the end reason
``{source: runner, message: Interrupted}`` and their recordings closed. Interrupted
instances are left out of the results file and run again on the next invocation.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import signal
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

from crmtui.agent.batch_files import (
    ResultsFile,
    entry_from_recording,
    find_done,
    is_done_reason,
    results_filename,
    summarize,
)
from crmtui.agent.batch_types import BatchConfig, BatchReport, InstanceOutcome, Tally
from crmtui.agent.replies import ModelError
from crmtui.agent.session import INTERRUPTED, AgentSession, strategy_label
from crmtui.data.tasktypes import resolve_task_type
from crmtui.errors import CrmtuiError

__all__ = ["BatchConfig", "BatchReport", "InstanceOutcome", "Tally", "run_batch"]


def _select(config: BatchConfig, tasks: Any) -> list[Any]:
    chosen = tasks.filter(task=config.task) if config.task else tasks
    # --idx keeps the user's order; each get() names a missing idx with the valid range.
    idxs = dict.fromkeys(config.idxs)
    instances = [chosen.get(i) for i in idxs] if idxs else list(chosen)
    if config.limit is not None:
        instances = instances[: config.limit]
    return instances


def _load(config: BatchConfig) -> tuple[Any, Any]:
    from crmtui.data.loaders import load_tasks
    from crmtui.org.sample import open_org_or_sample, sample_tasks_path

    org = open_org_or_sample(config.org)
    return org, load_tasks(config.tasks, sample_tasks=sample_tasks_path)


class _Worker:
    """What each pool thread needs; clients are built once per thread."""

    def __init__(
        self,
        config: BatchConfig,
        org: Any,
        stop: threading.Event,
        wall: Callable[[], dt.datetime] | None,
        monotonic: Callable[[], float] | None,
    ) -> None:
        from crmtui.agent.strategies import make_strategy

        self.config = config
        self.org = org
        self.stop = stop
        self.wall = wall
        self.monotonic = monotonic
        self.schema_text = org.schema.render_prompt_text()
        self.strategy = make_strategy(config.strategy, toolset=config.toolset, model=config.model)
        self.local = threading.local()
        self._client(config.model)  # fail fast on a bad model name, before any thread starts

    def _client(self, model: str) -> Any:
        """One client per thread and model (clients keep connections open)."""
        clients = self.local.__dict__.setdefault("clients", {})
        if model not in clients:
            clients[model] = self.config.client(model)
        return clients[model]

    def _scorer(self, instance: Any) -> Any:
        return self.config.scorer(instance, client=self._client)

    def __call__(self, instance: Any) -> InstanceOutcome | None:
        if self.stop.is_set():
            return None  # stopping: never start a new instance
        from crmtui.agent.execution import make_query_executor

        config = self.config
        session = AgentSession.begin(
            instance,
            self.org,
            model=config.model,
            strategy=self.strategy,
            tasks_source=config.tasks_label,
            recordings=config.recordings,
            aided=config.aided,
            scorer=self._scorer(instance),
            wall=self.wall,
            monotonic=self.monotonic,
            fsync=config.fsync,
        )
        session.stop_label = INTERRUPTED
        result = session.run(
            self._client(config.model),
            make_query_executor(self.org, instance.today),
            schema_text=self.schema_text,
            max_turns=config.max_turns,
            time_limit_s=config.time_limit_s,
            aided=config.aided,
            should_stop=self.stop.is_set,
        )
        if _fatal_model_error(result.end_reason) is not None:
            self.stop.set()  # at once, so this thread does not start another doomed instance
        done = is_done_reason({"end_reason": result.end_reason})
        return InstanceOutcome(instance.idx, instance.task, result, session.path, done)


def run_batch(
    config: BatchConfig,
    *,
    stop: threading.Event | None = None,
    on_start: Callable[[Tally], None] | None = None,
    on_outcome: Callable[[InstanceOutcome, Tally], None] | None = None,
    org: Any = None,
    tasks: Any = None,
    wall: Callable[[], dt.datetime] | None = None,
    monotonic: Callable[[], float] | None = None,
) -> BatchReport:
    """Run ``config.model`` over the selected instances.

    Args:
        config: The settings.
        stop: Set it to stop cleanly (a Ctrl-C in this thread sets it too).
        on_start: Called once with the tally before the first instance starts.
        on_outcome: Called after each attempt (results file already written).
        org: An opened org (default: from ``config.org``).
        tasks: A loaded task set (default: from ``config.tasks``).
        wall: Wall clock for recordings (tests).
        monotonic: Monotonic clock for recordings (tests).

    Raises:
        CrmtuiError: Bad settings, an unreadable org/task source or results file, or an
            output folder that cannot be written.
    """
    config.check()
    started = time.perf_counter()
    stop = stop or threading.Event()
    if org is None or tasks is None:
        loaded_org, loaded_tasks = _load(config)
        org = org if org is not None else loaded_org
        tasks = tasks if tasks is not None else loaded_tasks
    instances = _select(config, tasks)
    worker = _Worker(config, org, stop, wall, monotonic)
    label = strategy_label(worker.strategy)
    category = resolve_task_type(config.task, tasks.task_codes) if config.task else "all"
    results = ResultsFile(Path(config.out) / results_filename(config.model, label, category))

    _close_abandoned(config.recordings, config.model)
    done = find_done(
        config.recordings, model=config.model, strategy=label, tasks_source=config.tasks_label
    )
    previous = results.load()
    selected = {inst.idx: inst for inst in instances}
    for idx, found in done.items():
        if idx in selected:
            entry = previous.get(idx) or entry_from_recording(found.path, selected[idx].answer)
            results.set(entry)
    todo = [inst for inst in instances if inst.idx not in done]
    tally = Tally(total=len(todo), skipped=len(instances) - len(todo))
    if results.entries:
        results.write()
    if on_start:
        on_start(tally)

    outcomes: list[InstanceOutcome] = []
    failure: CrmtuiError | None = None
    pool = ThreadPoolExecutor(max_workers=config.concurrency, thread_name_prefix="crmtui-run")
    with _ctrl_c_sets(stop), pool:
        pending: set[Future[InstanceOutcome | None]] = {pool.submit(worker, i) for i in todo}
        while pending:
            try:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            except KeyboardInterrupt:
                stop.set()
                continue
            for future in finished:
                try:
                    outcome = future.result()
                except CrmtuiError as exc:  # e.g. the recordings folder is not writable
                    failure = failure or exc
                    stop.set()
                    continue
                if outcome is None:
                    continue
                fatal = _fatal_model_error(outcome.result.end_reason)
                if fatal is not None and failure is None:
                    # Every other instance would fail the same way: stop, say why.
                    failure = ModelError(fatal)
                    stop.set()
                _book(tally, outcome)
                if outcome.done:
                    results.set(outcome.result.to_upstream_result())
                    results.write()
                outcomes.append(outcome)
                if on_outcome:
                    on_outcome(outcome, tally)
    if failure is not None:
        raise failure
    return BatchReport(
        results_path=results.path,
        tally=tally,
        summary=summarize(results.ordered()),
        stopped=stop.is_set(),
        seconds=time.perf_counter() - started,
        outcomes=outcomes,
    )


_FATAL_PREFIXES = ("authentication failed for model", "access to model")


def _fatal_model_error(reason: Mapping[str, Any]) -> str | None:
    """The message of a model failure no retry or other instance can get past, if it is one."""
    if reason.get("source") != "api":
        return None
    content = str(reason.get("content") or "")
    if content.startswith(_FATAL_PREFIXES) or (
        content.startswith("model ") and " not found" in content
    ):
        return content
    return None


def _close_abandoned(recordings: Path, model: str) -> None:
    """End recordings a killed run left open (no ``end``) as ``abandoned``; they are re-run.

    A recording still held by a live process (another ``crmtui run`` on the same folder)
    is locked and left alone.
    """
    from crmtui.record.recorder import close_unfinished
    from crmtui.record.sessions import find_unfinished

    for path in find_unfinished(recordings, actor_id=model):
        with contextlib.suppress(CrmtuiError):
            close_unfinished(path, "abandoned")


@contextlib.contextmanager
def _ctrl_c_sets(stop: threading.Event) -> Any:
    """In the main thread, the first Ctrl-C sets ``stop``; a second one raises as usual.

    A signal handler (rather than catching KeyboardInterrupt) means the interrupt can never
    land in the middle of writing the results file.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)

    def handler(signum: int, frame: Any) -> None:
        if stop.is_set():
            signal.signal(signal.SIGINT, signal.default_int_handler)
            raise KeyboardInterrupt
        stop.set()

    signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _book(tally: Tally, outcome: InstanceOutcome) -> None:
    tally.finished += 1
    costs = outcome.result.costs
    tally.cost += sum(c for c in costs if c is not None)
    tally.unknown_cost = tally.unknown_cost or any(c is None for c in costs)
    if outcome.done:
        tally.scored += 1
        tally.reward_sum += outcome.reward
    else:
        tally.interrupted += 1
