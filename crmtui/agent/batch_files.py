"""Files of a batch run: which instances are done (from recordings), the results file, summary.

The recordings are the source of truth: an instance is done when a recording of the same run
(its header's ``run_id``, see :mod:`crmtui.agent.run_state`) ends with a real outcome (an
answer, the turn budget, a query error on the last turn, the time limit, or a model reply
that could not be read or was refused). Attempts that were interrupted, stopped, broke in
the harness, could not reach the model or were voided run again.

The results file (upstream ``run_tasks.py`` shape, see :mod:`crmtui.agent.upstream_rows`) is
rewritten atomically after every finished instance, sorted by ``task_id``, so it is the same
for any concurrency and never half-written. Rows of earlier invocations are kept: a run over
``--idx 30`` and then one over ``--idx 40`` leave both.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crmtui.agent.result import AgentResult, LastStep
from crmtui.agent.secrets import Scrubber
from crmtui.agent.upstream_rows import outcome_of, upstream_row
from crmtui.errors import CrmtuiError
from crmtui.record.format import FORMAT_NAME, slugify
from crmtui.sanitise import encodable

__all__ = [
    "NO_ROW_KINDS",
    "RERUN_KINDS",
    "RERUN_MESSAGES",
    "DoneRecording",
    "ResultsFile",
    "SummaryRow",
    "find_done",
    "is_done_reason",
    "result_from_recording",
    "results_filename",
    "summarize",
]

#: End messages (source ``runner``) that do not count as an outcome: run the instance again.
RERUN_MESSAGES = frozenset({"Interrupted", "Stopped", "Harness error"})
#: Model error kinds that say nothing about the model: run the instance again on resume.
RERUN_KINDS = frozenset({"unavailable", "unreachable", "config", "cancelled"})
#: Model error kinds of attempts that never reached a model: no results row at all.
NO_ROW_KINDS = frozenset({"unreachable", "config"})


class BatchFileError(CrmtuiError):
    """A batch output file cannot be read or written."""


def results_filename(model: str, strategy: str, task_category: str) -> str:
    """``results_{model-slug}_{strategy}_{task_category}.json`` (upstream's naming)."""
    return f"results_{slugify(model)}_{slugify(strategy)}_{slugify(task_category)}.json"


def is_done_reason(end_payload: Mapping[str, Any] | None, *, resume: bool = False) -> bool:
    """Whether an ``end`` event's payload records a real outcome (see module docstring).

    Args:
        end_payload: The ``end`` event's payload.
        resume: Ask whether a resumed run may skip the instance. A model failure of a kind
            in :data:`RERUN_KINDS` is an outcome for the results file (scored 0, as
            upstream does) but is tried again on resume: it is usually an outage.
    """
    if not isinstance(end_payload, Mapping):
        return False
    reason = end_payload.get("end_reason")
    if not isinstance(reason, Mapping):
        return False  # "abandoned"/"quit" ends written without a runner end reason
    if reason.get("source") == "api":
        if reason.get("kind") in NO_ROW_KINDS:
            return False  # never reached a model: no outcome at all
        if resume and reason.get("kind", "unavailable") in RERUN_KINDS:
            return False
    if reason.get("upstream"):
        return True  # upstream's own harness fails here every time (--observations naacl|head)
    return not (reason.get("source") == "runner" and reason.get("message") in RERUN_MESSAGES)


@dataclass(frozen=True)
class DoneRecording:
    """A finished recording found in the output folder."""

    idx: int
    path: Path
    started_at: str
    session_id: str


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []


def _json(line: str) -> dict[str, Any] | None:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) else None


def find_done(
    directory: Path, *, run_id: str, voided: Collection[str] = ()
) -> dict[int, DoneRecording]:
    """Finished recordings of run ``run_id`` under ``directory``, newest per idx.

    A quick read of each file's first and last line (``crmtui verify`` checks the chains).

    Args:
        directory: The recordings folder.
        run_id: The run (see :mod:`crmtui.agent.run_state`).
        voided: Session ids that no longer count.
    """
    found: dict[int, DoneRecording] = {}
    if not directory.is_dir():
        return found
    for path in directory.rglob("*.jsonl"):
        lines = _read_lines(path)
        if len(lines) < 2:
            continue
        header, last = _json(lines[0]), _json(lines[-1])
        if header is None or last is None or header.get("format") != FORMAT_NAME:
            continue
        if header.get("run_id") != run_id or header.get("session_id") in voided:
            continue
        if last.get("type") != "end" or not is_done_reason(last.get("payload"), resume=True):
            continue
        idx = (header.get("instance") or {}).get("idx")
        started = str(header.get("started_at", ""))
        if isinstance(idx, int) and (idx not in found or started >= found[idx].started_at):
            found[idx] = DoneRecording(idx, path, started, str(header.get("session_id")))
    return found


def result_from_recording(path: Path, gold: Any) -> AgentResult:
    """Rebuild an attempt's result from its recording (when the results file lacks it).

    The chat transcript is not stored as such in a recording, so ``messages`` is rebuilt
    from the model replies and observations only (no system prompt).
    """
    lines = _read_lines(path)
    header = _json(lines[0]) if lines else None
    if header is None:
        raise BatchFileError(f"{path}: not a readable recording")
    instance = header.get("instance") or {}
    strategy = str((header.get("actor") or {}).get("strategy", "")).split("/")[0]
    result = AgentResult(instance.get("idx"), str(instance.get("task", "")), gold, strategy)
    reply = ""
    tool: str | None = None
    for line in lines[1:]:
        event = _json(line)
        if event is None:
            continue
        kind, payload = event.get("type"), event.get("payload") or {}
        if kind == "model_call":
            result.steps += 1
            result.costs.append(payload.get("cost"))
            result.completion_tokens.append(int(payload.get("completion_tokens", 0)))
            result.prompt_tokens.append(int(payload.get("prompt_tokens", 0)))
            reply = str(payload.get("content") or "")
            calls = payload.get("tool_calls") or []
            tool = calls[0].get("name") if calls and isinstance(calls[0], dict) else None
            result.messages.append({"role": "assistant", "content": payload.get("content")})
            result.last_step = LastStep("invalid", reply, tool)
        elif kind == "run_query":
            observation = payload.get("observation")
            if payload.get("error") is None and isinstance(payload.get("rows"), int):
                result.observation_sizes.append(payload["rows"])
            result.messages.append({"role": "user", "content": observation})
            step = "tool" if tool else "execute"
            result.last_step = LastStep(step, reply, tool, observation)
        elif kind == "submit":
            result.reward = payload.get("reward")
            result.answer = payload.get("answer")
            result.scoring = payload.get("scoring")
            result.score_details = dict(payload.get("details") or {})
        elif kind == "end":
            result.end_reason = dict(payload.get("end_reason") or {})
    return result


class ResultsFile:
    """The upstream-shaped results list, kept in memory and rewritten atomically.

    Args:
        path: The ``results_*.json`` file.
        scrubber: Removes secrets from every row before it is written.
    """

    def __init__(self, path: Path, scrubber: Scrubber | None = None) -> None:
        self.path = path
        self.scrubber = scrubber or Scrubber()
        self.entries: dict[Any, dict[str, Any]] = {}
        self._texts: dict[Any, str] = {}

    def load(self) -> dict[Any, dict[str, Any]]:
        """Read an existing file's entries into this object (all of them) and return them.

        Raises:
            BatchFileError: The file exists but is not a JSON list of objects.
        """
        if not self.path.exists():
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise BatchFileError(f"cannot read results file {self.path}: {exc}") from None
        if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
            raise BatchFileError(f"results file {self.path} is not a JSON list of results")
        for entry in data:
            if "task_id" in entry:
                self.set(entry, scrub=False)
        return dict(self.entries)

    def set(self, entry: Mapping[str, Any], *, scrub: bool = True) -> None:
        """Add or replace the entry for ``entry["task_id"]`` (call :meth:`write` after)."""
        key = entry["task_id"]
        self.entries[key] = self.scrubber.value(dict(entry)) if scrub else dict(entry)
        # Serialised once here: rewriting the whole file after every instance then costs one
        # join and one write instead of re-encoding every transcript each time.
        text = json.dumps(self.entries[key], indent=2, ensure_ascii=False, default=str)
        # A lone surrogate (a model's escape that slipped through) cannot be written as
        # UTF-8: it becomes U+FFFD rather than stopping the run at its results file.
        text = encodable(text)
        self._texts[key] = "\n".join("  " + line for line in text.split("\n"))

    def remove(self, task_id: Any) -> None:
        """Drop the entry for ``task_id``, if any (call :meth:`write` after)."""
        self.entries.pop(task_id, None)
        self._texts.pop(task_id, None)

    def ordered(self) -> list[dict[str, Any]]:
        """Entries sorted by ``task_id``."""
        return [self.entries[k] for k in sorted(self.entries, key=_sort_key)]

    def write(self) -> None:
        """Write all entries: temp file in the same folder, fsync, rename over the old one."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            keys = sorted(self.entries, key=_sort_key)
            # Same text as json.dump(list, indent=2): raw newlines never occur inside JSON
            # strings, so indenting every line of each entry by two spaces is exact.
            body = ",\n".join(self._texts[k] for k in keys)
            with tmp.open("w", encoding="utf-8") as handle:
                handle.write(f"[\n{body}\n]\n" if keys else "[]\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()  # never a half-written or empty .tmp left behind
            if isinstance(exc, OSError):
                raise BatchFileError(
                    f"cannot write results file {self.path}: {exc.strerror or exc}"
                ) from None
            raise


def _sort_key(value: Any) -> tuple[int, Any]:
    return (0, value) if isinstance(value, int) else (1, str(value))


@dataclass(frozen=True)
class SummaryRow:
    """One task type (or ``all``): accuracy, the outcome counts, mean cost and turns.

    Attributes:
        task: Task code or ``all``.
        n: Rows.
        accuracy: Mean reward over all rows (F1 for knowledge QA; errors count as 0).
        mean_cost: Mean known cost per row (USD).
        mean_turns: Mean model calls per row.
        right: Rows with reward 1.
        wrong: Scored rows with a lower reward.
        model_errors: Rows that ended in a model error.
        harness_errors: Rows that ended in a harness error.
    """

    task: str
    n: int
    accuracy: float
    mean_cost: float
    mean_turns: float
    right: int = 0
    wrong: int = 0
    model_errors: int = 0
    harness_errors: int = 0


def _reward(value: Any) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, Mapping) and isinstance(value.get("f1"), int | float):
        return float(value["f1"])
    return 0.0


def row_outcome(entry: Mapping[str, Any]) -> str:
    """The outcome of a results row (``right``, ``wrong``, ``model_error``, ...)."""
    facts = entry.get("crmtui")
    if isinstance(facts, Mapping) and isinstance(facts.get("outcome"), str):
        return str(facts["outcome"])
    info = entry.get("agent_info") or {}
    reason = info.get("end_reason") if "end_reason" in info else info
    return outcome_of(reason if isinstance(reason, Mapping) else {}, entry.get("reward"))


def _cost_and_turns(entry: Mapping[str, Any]) -> tuple[float, int]:
    facts = entry.get("crmtui")
    info = facts if isinstance(facts, Mapping) and "usage" in facts else entry.get("agent_info")
    info = info if isinstance(info, Mapping) else {}
    cost = info.get("total_cost") or 0.0
    turns = len((info.get("usage") or {}).get("prompt_tokens") or [])
    return (float(cost) if isinstance(cost, int | float) else 0.0), turns


def summarize(entries: Iterable[Mapping[str, Any]]) -> list[SummaryRow]:
    """One row per task type in leaderboard order, then ``all``.

    Accuracy is the mean reward (F1 for ``knowledge_qa``) over every row, errors as 0;
    turns are model calls.
    """
    from crmtui.data.tasktypes import sort_key

    groups: dict[str, list[Mapping[str, Any]]] = {}
    for entry in entries:
        groups.setdefault(str(entry.get("task_type")), []).append(entry)

    def row(task: str, items: list[Mapping[str, Any]]) -> SummaryRow:
        n = len(items)
        costs_turns = [_cost_and_turns(e) for e in items]
        outcomes = [row_outcome(e) for e in items]
        return SummaryRow(
            task,
            n,
            sum(_reward(e.get("reward")) for e in items) / n if n else 0.0,
            sum(c for c, _ in costs_turns) / n if n else 0.0,
            sum(t for _, t in costs_turns) / n if n else 0.0,
            right=outcomes.count("right"),
            wrong=outcomes.count("wrong"),
            model_errors=outcomes.count("model_error"),
            harness_errors=outcomes.count("harness_error"),
        )

    rows = [row(task, groups[task]) for task in sorted(groups, key=sort_key)]
    if len(rows) > 1:
        rows.append(row("all", [e for task in groups for e in groups[task]]))
    return rows


def rebuild_row(path: Path, gold: Any, facts: Mapping[str, Any]) -> dict[str, Any]:
    """A results row for a finished recording the results file lacks (a crash between the
    recording's end and the results write)."""
    return upstream_row(result_from_recording(path, gold), facts)
