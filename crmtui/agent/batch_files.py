"""Files of a batch run: which instances are done (from recordings), the results file, summary.

The recordings are the source of truth: an instance is done when a recording of the same
model + strategy + task source ends with a real outcome (an answer, the turn budget, a query
error on the last turn, the time limit). Attempts that were interrupted, stopped, broke in the
harness or failed at the model API are run again. The results file (upstream ``run_tasks.py``
shape, REFERENCE §6) is rewritten atomically after every finished instance, sorted by
``task_id``, so it is the same for any concurrency and never half-written.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crmtui.errors import CrmtuiError
from crmtui.record.format import FORMAT_NAME, slugify
from crmtui.secrets import scrub

__all__ = [
    "RERUN_MESSAGES",
    "DoneRecording",
    "ResultsFile",
    "SummaryRow",
    "entry_from_recording",
    "find_done",
    "is_done_reason",
    "results_filename",
    "summarize",
]

#: End messages (source ``runner``) that do not count as an outcome: run the instance again.
RERUN_MESSAGES = frozenset({"Interrupted", "Stopped", "Harness error"})


class BatchFileError(CrmtuiError):
    """A batch output file cannot be read or written."""


def results_filename(model: str, strategy: str, task_category: str) -> str:
    """``results_{model-slug}_{strategy}_{task_category}.json`` (upstream's naming)."""
    return f"results_{slugify(model)}_{slugify(strategy)}_{slugify(task_category)}.json"


def is_done_reason(end_payload: Mapping[str, Any] | None, *, resume: bool = False) -> bool:
    """Whether an ``end`` event's payload records a real outcome (see module docstring).

    Args:
        end_payload: The ``end`` event's payload.
        resume: Ask whether a resumed run may skip the instance. A model failure
            (``source: api``, after retries) is an outcome for the results file, as upstream
            scores it 0, but it is tried again on resume: it says nothing about the model's
            ability and is usually an outage or a missing key.
    """
    if not isinstance(end_payload, Mapping):
        return False
    reason = end_payload.get("end_reason")
    if not isinstance(reason, Mapping):
        return False  # "abandoned"/"quit" ends written without a runner end reason
    if resume and reason.get("source") == "api":
        return False
    return not (reason.get("source") == "runner" and reason.get("message") in RERUN_MESSAGES)


@dataclass(frozen=True)
class DoneRecording:
    """A finished recording found in the output folder."""

    idx: int
    path: Path
    started_at: str


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
    directory: Path, *, model: str, strategy: str, tasks_source: str
) -> dict[int, DoneRecording]:
    """Finished recordings of ``model``/``strategy`` on ``tasks_source`` under ``directory``.

    A quick read of each file's first and last line (``crmtui verify`` checks the chains);
    the newest recording per idx wins.
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
        actor = header.get("actor") or {}
        if (
            actor.get("kind") != "model"
            or actor.get("id") != model
            or actor.get("strategy") != strategy
            or header.get("tasks_source") != tasks_source
        ):
            continue
        if last.get("type") != "end" or not is_done_reason(last.get("payload"), resume=True):
            continue
        idx = (header.get("instance") or {}).get("idx")
        started = str(header.get("started_at", ""))
        if isinstance(idx, int) and (idx not in found or started >= found[idx].started_at):
            found[idx] = DoneRecording(idx, path, started)
    return found


def entry_from_recording(path: Path, gold: Any) -> dict[str, Any]:
    """Rebuild a results entry from a recording (when the results file lacks it).

    The chat transcript is not stored as such in a recording, so ``traj`` is rebuilt from
    the model replies and observations only (no system prompt).
    """
    lines = _read_lines(path)
    header = _json(lines[0]) if lines else None
    if header is None:
        raise BatchFileError(f"{path}: not a readable recording")
    usage: dict[str, list[Any]] = {
        "cost": [],
        "completion_tokens": [],
        "prompt_tokens": [],
        "total_tokens": [],
    }
    sizes: list[int] = []
    traj: list[dict[str, Any]] = []
    reward: Any = 0
    end_reason: dict[str, Any] = {}
    for line in lines[1:]:
        event = _json(line)
        if event is None:
            continue
        kind, payload = event.get("type"), event.get("payload") or {}
        if kind == "model_call":
            usage["cost"].append(payload.get("cost"))
            usage["completion_tokens"].append(payload.get("completion_tokens", 0))
            usage["prompt_tokens"].append(payload.get("prompt_tokens", 0))
            usage["total_tokens"].append(
                payload.get("prompt_tokens", 0) + payload.get("completion_tokens", 0)
            )
            traj.append({"role": "assistant", "content": payload.get("content")})
        elif kind == "run_query":
            if payload.get("error") is None and isinstance(payload.get("rows"), int):
                sizes.append(payload["rows"])
            traj.append({"role": "user", "content": payload.get("observation")})
        elif kind == "submit":
            reward = payload.get("reward")
        elif kind == "end":
            end_reason = dict(payload.get("end_reason") or {})
    instance = header.get("instance") or {}
    steps = len(usage["cost"])
    strategy = str((header.get("actor") or {}).get("strategy", ""))
    return {
        "task_id": instance.get("idx"),
        "task_type": instance.get("task"),
        "gt_answer": gold,
        "reward": reward,
        "agent_info": {
            "observation_sizes": sizes,
            "end_reason": end_reason,
            "usage": usage,
            "total_cost": float(sum(c for c in usage["cost"] if isinstance(c, int | float))),
            "num_turns": steps if strategy.startswith("tool_call") else [1, steps],
        },
        "traj": traj,
    }


class ResultsFile:
    """The upstream-shaped results list, kept in memory and rewritten atomically.

    Args:
        path: The ``results_*.json`` file.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: dict[Any, dict[str, Any]] = {}
        self._texts: dict[Any, str] = {}

    def load(self) -> dict[Any, dict[str, Any]]:
        """Entries of an existing file by ``task_id`` (empty when there is none).

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
        return {e.get("task_id"): e for e in data}

    def set(self, entry: Mapping[str, Any]) -> None:
        """Add or replace the entry for ``entry["task_id"]`` (call :meth:`write` after)."""
        key = entry["task_id"]
        self.entries[key] = dict(entry)
        # Serialised once here: rewriting the whole file after every instance then costs one
        # join and one write instead of re-encoding every transcript each time.
        text = scrub(json.dumps(self.entries[key], indent=2, ensure_ascii=False, default=str))
        self._texts[key] = "\n".join("  " + line for line in text.split("\n"))

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
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise BatchFileError(f"cannot write results file {self.path}: {exc}") from None


def _sort_key(value: Any) -> tuple[int, Any]:
    return (0, value) if isinstance(value, int) else (1, str(value))


@dataclass(frozen=True)
class SummaryRow:
    """Accuracy, size, mean cost and mean turns of one task type (or ``all``)."""

    task: str
    n: int
    accuracy: float
    mean_cost: float
    mean_turns: float


def _reward(value: Any) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, Mapping) and isinstance(value.get("f1"), int | float):
        return float(value["f1"])
    return 0.0


def summarize(entries: Iterable[Mapping[str, Any]]) -> list[SummaryRow]:
    """One row per task type in leaderboard order, then ``all``.

    Accuracy is the mean reward (F1 for ``knowledge_qa``); turns are model calls.
    """
    from crmtui.data.tasktypes import sort_key

    groups: dict[str, list[Mapping[str, Any]]] = {}
    for entry in entries:
        groups.setdefault(str(entry.get("task_type")), []).append(entry)

    def row(task: str, items: list[Mapping[str, Any]]) -> SummaryRow:
        n = len(items)
        infos = [e.get("agent_info") or {} for e in items]
        costs = [float(i.get("total_cost") or 0.0) for i in infos]
        turns = [len((i.get("usage") or {}).get("prompt_tokens") or []) for i in infos]
        return SummaryRow(
            task,
            n,
            sum(_reward(e.get("reward")) for e in items) / n if n else 0.0,
            sum(costs) / n if n else 0.0,
            sum(turns) / n if n else 0.0,
        )

    rows = [row(task, groups[task]) for task in sorted(groups, key=sort_key)]
    if len(rows) > 1:
        rows.append(row("all", [e for task in groups for e in groups[task]]))
    return rows
