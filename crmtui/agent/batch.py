"""Headless batch runs: many instances, K in flight at once, resumable, Ctrl-C safe.

:func:`run_batch` checks the configuration before any instance (credentials, ``--api-base``,
tasks against the org), takes the output folder for itself (:mod:`crmtui.agent.out_lock`),
resumes the run the folder holds only if every setting matches (:mod:`crmtui.agent.run_state`),
skips instances already done (:mod:`crmtui.agent.batch_files`), runs the rest on a thread
pool (each thread keeps its own model client; queries open per-thread read-only
connections), records every attempt through :class:`~crmtui.agent.session.AgentSession`, and
merges each finished instance into the results file. Progress callbacks run on the calling
thread only.

Failing loudly: a model error of kind ``config`` (bad key, unknown model, refused access)
stops the batch at once and raises it, writing no result for that instance; when the first
``max_initial_errors`` instances all end in model errors the batch stops too, voids them (a
resumed run runs them again) and raises.

Stopping: setting ``stop`` (or Ctrl-C in the calling thread) starts no new instance and
abandons the model calls in flight at once; those instances end with
``{source: runner, message: Interrupted}``, their recordings closed, and are run again on
the next invocation.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

from crmtui.agent.batch_files import (
    NO_ROW_KINDS,
    ResultsFile,
    find_done,
    is_done_reason,
    rebuild_row,
    results_filename,
    summarize,
)
from crmtui.agent.batch_types import BatchConfig, BatchReport, InstanceOutcome, Tally
from crmtui.agent.ctrl_c import ctrl_c_sets
from crmtui.agent.out_lock import OutLock
from crmtui.agent.replies import ModelError
from crmtui.agent.run_state import RunState, open_run
from crmtui.agent.runner import EpisodeOptions
from crmtui.agent.secrets import Scrubber
from crmtui.agent.selection import select_instances, task_category
from crmtui.agent.session import INTERRUPTED, AgentSession, strategy_label
from crmtui.agent.upstream_rows import upstream_row
from crmtui.errors import ConfigError, CrmtuiError

__all__ = ["BatchConfig", "BatchReport", "InstanceOutcome", "Tally", "run_batch", "tasks_digest"]


def tasks_digest(tasks: Any) -> str:
    """A digest of every instance of a task set (its rows), for the resume check."""
    digest = hashlib.sha256()
    for inst in tasks:
        row = json.dumps(inst.to_row(), sort_keys=True, ensure_ascii=False, default=str)
        digest.update(row.encode("utf-8", "surrogatepass"))
        digest.update(b"\n")
    return digest.hexdigest()[:16]


class _Worker:
    """What each pool thread needs; clients are built once per thread."""

    def __init__(
        self,
        config: BatchConfig,
        org: Any,
        stop: threading.Event,
        run: RunState,
        scrubber: Scrubber,
        wall: Callable[[], dt.datetime] | None,
        monotonic: Callable[[], float] | None,
    ) -> None:
        self.config = config
        self.org = org
        self.stop = stop
        self.run = run
        self.scrubber = scrubber
        self.wall = wall
        self.monotonic = monotonic
        self.strategy = config.strategy_object()
        self.schema_text = self.strategy.schema_text(org.schema)
        self.local = threading.local()
        self._first: list[str] = []  # outcomes of the first attempts, in finishing order
        self._first_lock = threading.Lock()
        self._client(config.model)  # fail fast on a bad model name, before any thread starts
        from crmtui.agent.client import load_litellm

        # Seconds on a slow machine: paid here, before the progress bar and the first
        # instance's clock start, rather than inside the first call's deadline.
        load_litellm()

    def _client(self, model: str) -> Any:
        """One client per thread and model (clients keep connections open)."""
        clients = self.local.__dict__.setdefault("clients", {})
        if model not in clients:
            clients[model] = self.config.client(model)
        return clients[model]

    def _user_client(self) -> Any:
        """The simulated user's client, one per thread (its own settings, even when the
        user model is the agent's model)."""
        clients = self.local.__dict__.setdefault("clients", {})
        key = ("user", self.config.dialogue.user_model)
        if key not in clients:
            clients[key] = self.config.user_client()
        return clients[key]

    def _watch_first(self, model_error: bool) -> None:
        """Stop at once when the first ``max_initial_errors`` attempts all failed at the model
        (the main thread then says so); no other instance may start in between."""
        limit = self.config.max_initial_errors
        with self._first_lock:
            if not limit or len(self._first) >= limit:
                return
            self._first.append("model_error" if model_error else "other")
            if len(self._first) == limit and set(self._first) == {"model_error"}:
                self.stop.set()

    def __call__(self, instance: Any) -> InstanceOutcome | None:
        if self.stop.is_set():
            return None  # stopping: never start a new instance

        config = self.config
        today = config.today(instance)
        user = dialogue = None
        if config.dialogue.interactive:
            from crmtui.play.dialogue import Side

            agent = Side("model", config.model, strategy_label(self.strategy))
            user, dialogue = config.start_dialogue(
                instance, self.org.path, agent, self._user_client()
            )
        session = AgentSession.begin(
            instance,
            self.org,
            model=config.model,
            strategy=self.strategy,
            tasks_source=self.run.settings.get("tasks", config.tasks_label),
            recordings=config.recordings,
            aided=config.aided,
            scorer=config.scorer(instance, client=self._client),
            wall=self.wall,
            monotonic=self.monotonic,
            fsync=config.fsync,
            today=today,
            settings=self.run.settings,
            run_id=self.run.run_id,
            scrubber=self.scrubber,
            dialogue=dialogue,
        )
        session.stop_label = INTERRUPTED
        result = session.run(
            self._client(config.model),
            config.executor(self.org, today),
            EpisodeOptions(
                schema_text=self.schema_text,
                max_turns=config.max_turns,
                time_limit_s=config.time_limit_s,
                aided=config.aided,
                should_stop=self.stop.is_set,
                cancel=self.stop,
                observation_cap=config.resolved.observation_chars,
            ),
            user=user,
            max_user_turns=config.dialogue.max_user_turns,
        )
        if result.end_reason.get("kind") in NO_ROW_KINDS:
            self.stop.set()  # at once, so this thread does not start another doomed instance
        self._watch_first(result.end_reason.get("source") == "api")
        done = is_done_reason({"end_reason": result.end_reason})
        session_id = str(session.recorder.header.get("session_id", ""))
        return InstanceOutcome(instance.idx, instance.task, result, session.path, done, session_id)


def _sources(config: BatchConfig, org: Any, tasks: Any) -> tuple[Any, Any, str, list[str]]:
    """The org and tasks (loaded and checked together unless given), label, notes."""
    from crmtui.org.task_match import check_task_ids, load_sources, refusal

    notes: list[str] = []
    if org is None or tasks is None:
        sources = load_sources(config.org, config.tasks, force=config.force)
        org = org if org is not None else sources.org
        tasks = tasks if tasks is not None else sources.tasks
        label, check = sources.tasks_label, sources.check
    else:
        label = config.tasks_label
        check = check_task_ids(tasks, org)
        if check.mostly_missing and not config.force:
            raise ConfigError(refusal(check, org, label))
    if check is not None and check.mostly_missing:
        notes.append(
            f"--force: {check.missing:,} of {check.mentioned:,} record Ids the tasks mention "
            f"are not in org {org.name!r}; scores on these tasks mean little"
        )
    return org, tasks, label, notes


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
        tasks: A loaded task set (default: from ``config.tasks``, or the org's own).
        wall: Wall clock for recordings (tests).
        monotonic: Monotonic clock for recordings (tests).

    Raises:
        ConfigError: Bad settings, a missing key or unreachable server, tasks that belong to
            another org, an output folder in use, or a resume with other settings.
        ModelError: A configuration failure at the model (kind ``config``), or the first
            instances all ended in model errors.
        CrmtuiError: An unreadable org/task source or results file, or an output folder
            that cannot be written.
    """
    from crmtui.agent.preflight import (
        check_agent_settings,
        check_scoring_models,
        check_toolset_fits,
    )

    config.check()
    started = time.perf_counter()
    stop = stop or threading.Event()
    check_agent_settings(config)
    org, tasks, label, notes = _sources(config, org, tasks)
    instances = select_instances(tasks, config.task_types, config.idxs, config.limit)
    check_scoring_models(config, instances)
    check_toolset_fits(config, instances)
    resolved = config.resolved.with_sources(
        tasks=label,
        tasks_digest=tasks_digest(tasks),
        org=org.name,
        org_digest=org.digest,
    )
    settings = resolved.to_json()
    if config.deployments is not None:  # recorded, not part of the resume check
        settings["deployments"] = config.deployments.to_json()
    evaluator = config.evaluator_digest()
    if evaluator is not None:  # upstream HEAD's own extraction and judge requests
        settings["evaluator"] = evaluator
    category = task_category(tasks, config.task_types)
    strategy = strategy_label(config.strategy_object())
    scrubber = Scrubber([str(config.client_options.get("api_key") or "")])
    results = ResultsFile(
        Path(config.out) / results_filename(config.model, strategy, category), scrubber
    )
    with OutLock(Path(config.out)):
        keys = (*resolved.RESUME_KEYS, "evaluator")
        run = open_run(results.path, settings, keys, fresh=config.fresh)
        return _run_locked(
            config,
            org,
            instances,
            results,
            run,
            scrubber,
            stop=stop,
            started=started,
            notes=notes,
            on_start=on_start,
            on_outcome=on_outcome,
            wall=wall,
            monotonic=monotonic,
        )


def _run_locked(
    config: BatchConfig,
    org: Any,
    instances: list[Any],
    results: ResultsFile,
    run: RunState,
    scrubber: Scrubber,
    *,
    stop: threading.Event,
    started: float,
    notes: list[str],
    on_start: Callable[[Tally], None] | None,
    on_outcome: Callable[[InstanceOutcome, Tally], None] | None,
    wall: Callable[[], dt.datetime] | None,
    monotonic: Callable[[], float] | None,
) -> BatchReport:
    """The batch proper, with the output folder held."""
    _close_abandoned(config.recordings, config.model)
    worker = _Worker(config, org, stop, run, scrubber, wall, monotonic)
    done = find_done(config.recordings, run_id=run.run_id, voided=run.voided)
    results.load()  # every earlier row stays: results are merged, never rebuilt
    selected = {inst.idx: inst for inst in instances}
    rebuilt = False
    for idx, found in done.items():
        if idx not in results.entries and idx in selected:
            facts = _facts(config, found.path, run)
            results.set(rebuild_row(found.path, selected[idx].answer, facts))
            rebuilt = True
    todo = [inst for inst in instances if inst.idx not in done]
    tally = Tally(
        total=len(todo), skipped=len(instances) - len(todo), selected=[i.idx for i in instances]
    )
    if rebuilt:
        results.write()
    if on_start:
        on_start(tally)

    outcomes: list[InstanceOutcome] = []
    failure: CrmtuiError | None = None
    pool = ThreadPoolExecutor(max_workers=config.concurrency, thread_name_prefix="crmtui-run")
    with ctrl_c_sets(stop), pool:
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
                reason = outcome.result.end_reason
                if reason.get("kind") in NO_ROW_KINDS and failure is None:
                    # Every other instance would fail the same way: stop, say why.
                    failure = _stopping_error(reason)
                    stop.set()
                tally.book(outcome)
                outcomes.append(outcome)
                if outcome.done:
                    facts = _facts(config, outcome.path, run)
                    results.set(upstream_row(outcome.result, facts))
                    results.write()
                initial = _initial_failure(config, outcomes)
                if initial is not None and failure is None:
                    failure = initial
                    stop.set()
                    _void(run, results, outcomes[: config.max_initial_errors])
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
        settings=dict(run.settings),
        resumed=run.resumed,
        notes=notes,
    )


def _facts(config: BatchConfig, recording: Path, run: RunState) -> dict[str, Any]:
    """The ``crmtui`` key's run facts: where the recording is, the run and its settings."""
    try:
        where = str(Path(recording).relative_to(Path(config.out)))
    except ValueError:
        where = str(recording)
    return {"recording": where, "run_id": run.run_id, "settings": dict(run.settings)}


def _stopping_error(reason: dict[str, Any]) -> ModelError:
    """The error a batch stops with when a model error says no instance can succeed."""
    kind = str(reason.get("kind"))
    message = str(reason.get("content"))
    if kind == "unreachable":
        message += "; stopped (run again to resume once the server answers)"
    return ModelError(message, kind=kind)


def _initial_failure(config: BatchConfig, outcomes: list[InstanceOutcome]) -> ModelError | None:
    """An error when the first ``max_initial_errors`` attempts all ended in model errors."""
    count = config.max_initial_errors
    if not count or len(outcomes) != count:
        return None
    if not all(o.outcome == "model_error" for o in outcomes):
        return None
    last = outcomes[-1].result.end_reason.get("content")
    error = ModelError(
        f"the first {count} instances all ended in model errors (last: {last}); stopped. "
        "Their results are not kept: fix the model settings and run again",
        kind="malformed",
    )
    error.exit_code = 3
    return error


def _void(run: RunState, results: ResultsFile, outcomes: list[InstanceOutcome]) -> None:
    """Drop these attempts from the results and the run (they are run again on resume)."""
    for outcome in outcomes:
        results.remove(outcome.idx)
    results.write()
    run.void([o.session_id for o in outcomes])


def _close_abandoned(recordings: Path, model: str) -> None:
    """End recordings a killed run left open (no ``end``) as ``abandoned``; they are re-run.

    Recordings without a whole header (a disk that filled) are removed first. A recording
    still held by a live process (another ``crmtui run`` on the same folder) is locked and
    left alone.
    """
    from crmtui.record.recorder import close_unfinished
    from crmtui.record.sessions import discard_unwritten_in, find_unfinished

    # Files whose header a full disk cut off hold nothing; their instances run again.
    discard_unwritten_in(recordings)
    for path in find_unfinished(recordings, actor_id=model):
        with contextlib.suppress(CrmtuiError):
            close_unfinished(path, "abandoned")
