"""Which instance a recording is of: its org, its task source and its idx, never idx alone.

Every org numbers its instances from 0, and one recordings folder (``CRMTUI_HOME/recordings``)
holds the sessions of every org a person played: idx 11 of the CRMArena sample (a handle
time question) and idx 11 of ``sample-b2b`` (a monthly trend) are different instances.
Compare, report and replay group by :func:`instance_key`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["InstanceKey", "instance_key"]


@dataclass(frozen=True, order=True)
class InstanceKey:
    """One instance: the org it was played on, the task source it came from, its idx.

    Attributes:
        org: The org's name (as recorded; else its file's stem, else its digest).
        source: The task source as recorded (``sample``: the org's own tasks).
        idx: The instance's idx in that source.
    """

    org: str
    source: str
    idx: int

    @property
    def label(self) -> str:
        """``idx 11 (sample-b2b, tasks sample)``."""
        return f"idx {self.idx} ({self.org}, tasks {self.source})"


def instance_key(header: dict[str, Any]) -> InstanceKey:
    """The instance a recording header names."""
    org = header.get("org") or {}
    path = org.get("path")
    name = org.get("name") or (Path(str(path)).stem if path else None) or org.get("digest")
    return InstanceKey(
        str(name or "unknown org"),
        str(header.get("tasks_source") or "unknown source"),
        int(header["instance"]["idx"]),
    )
