"""Which instance a recording is of: its idx and the question it asks, never idx alone.

Every org numbers its instances from 0, and one recordings folder (``CRMTUI_HOME/recordings``)
holds the sessions of every org a person played: idx 11 of the CRMArena sample (a handle
time question) and idx 11 of ``sample-b2b`` (a monthly trend) are different instances. Two
recordings are of one instance when they name the same idx, task type and query: the same
task source, whichever org it was played on (a run imported from a live org beside the
same tasks played on a local copy; an org rebuilt or moved). Compare, report and replay
group by :func:`instance_key`; :func:`instance_place` names the org and task source each
came from, for messages and for choosing with ``compare --org/--tasks``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["InstanceKey", "instance_key", "instance_place"]


@dataclass(frozen=True, order=True)
class InstanceKey:
    """One instance: its idx, task type and (a digest of) its query.

    Attributes:
        idx: The instance's idx in its task source.
        task: The task type's code.
        question: The first 16 hex digits of the query's SHA-256.
    """

    idx: int
    task: str
    question: str


def instance_key(header: dict[str, Any]) -> InstanceKey:
    """The instance a recording header names."""
    instance = header["instance"]
    digest = hashlib.sha256(str(instance.get("query", "")).encode("utf-8")).hexdigest()[:16]
    return InstanceKey(int(instance["idx"]), str(instance.get("task", "")), digest)


def instance_place(header: dict[str, Any]) -> tuple[str, str]:
    """``(org, task source)`` a recording was made on and from: the org's recorded name
    (else its file's stem, else its digest) and the task source as recorded (``sample``:
    the org's own tasks)."""
    org = header.get("org") or {}
    path = org.get("path")
    name = org.get("name") or (Path(str(path)).stem if path else None) or org.get("digest")
    return str(name or "unknown org"), str(header.get("tasks_source") or "unknown source")
