"""Times from the logs of an upstream run, for the recordings the importer writes.

A ``crmtui upstream run`` leaves two logs beside upstream's results: the REST shim's request
log (each query's time) and the model hook's log (each model call's start and end). Upstream's
results carry no time at all, so the importer moves a clock (:class:`StepClock`) to these.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["LogTimes", "ModelCall", "ModelTimes", "StepClock", "parse_time", "read_model_log"]


class StepClock:
    """Wall and monotonic clocks the importer moves to each step's time."""

    def __init__(self, start: dt.datetime) -> None:
        self.start = start
        self.now = start

    def wall(self) -> dt.datetime:
        return self.now

    def monotonic(self) -> float:
        return (self.now - self.start).total_seconds()

    def move(self, moment: dt.datetime | None) -> None:
        if moment is not None and moment > self.now:
            self.now = moment


def parse_time(text: Any) -> dt.datetime | None:
    """A log's ``...T...Z`` time as an aware UTC datetime, or None if it is not one."""
    if not isinstance(text, str):
        return None
    try:
        return dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=dt.UTC)
    except ValueError:
        return None


def _query_text(text: str) -> str:
    fenced = re.findall(r"```(?:sql|SQL|soql|SOQL)?([\s\S]+?)```", text)
    return " ".join((fenced[0] if fenced else text).split())


class LogTimes:
    """Query entries of a request log, matched to query steps in order."""

    def __init__(self, entries: list[dict[str, Any]]) -> None:
        self.entries = [e for e in entries if e.get("endpoint") in ("query", "queryAll", "search")]
        self.position = 0

    def match(self, text: str) -> dict[str, Any] | None:
        wanted = _query_text(text)
        for i in range(self.position, len(self.entries)):
            if _query_text(str(self.entries[i].get("query") or "")) == wanted:
                self.position = i + 1
                return self.entries[i]
        return None


@dataclass
class ModelCall:
    """One model call's start and end."""

    start: dt.datetime
    end: dt.datetime


class ModelTimes:
    """Model calls from the hook log, grouped by task index: the agent's and the others'."""

    def __init__(self, entries: list[dict[str, Any]]) -> None:
        self.agent: dict[str, list[ModelCall]] = {}
        self.other: dict[str, list[ModelCall]] = {}
        for entry in entries:
            if entry.get("event") != "model_call" or not entry.get("ok"):
                continue
            start, end = parse_time(entry.get("start")), parse_time(entry.get("end"))
            if start is None or end is None or entry.get("task_id") is None:
                continue
            table = self.agent if entry.get("caller") == "agent" else self.other
            table.setdefault(str(entry["task_id"]), []).append(ModelCall(start, end))

    def for_attempt(
        self, task_id: Any, steps: int
    ) -> tuple[list[ModelCall] | None, list[ModelCall]]:
        """The agent's calls for ``steps`` steps (None unless they match 1:1), and the rest."""
        agent = self.agent.pop(str(task_id), [])
        other = self.other.pop(str(task_id), [])
        return (agent if len(agent) == steps and steps else None), other


def read_model_log(path: str | Path) -> ModelTimes:
    """The model calls a ``crmtui upstream run`` hook log holds (other lines are skipped).

    Raises:
        ConfigError: The file cannot be read.
    """
    from crmtui.rest import read_log

    return ModelTimes(list(read_log(path)))
