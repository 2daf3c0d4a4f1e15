"""What ``crmtui org info`` prints about an org: :meth:`crmtui.org.store.Org.info`'s summaries.

Kept apart from the store so that opening an org (every command, a cold start of ``crmtui
play`` included) does not create these classes; ``crmtui.org.store`` still names both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class ObjectInfo:
    """Summary of one object for ``crmtui org info``.

    Attributes:
        name: Object API name.
        rows: Number of records.
        date_min: Earliest value over the object's date/datetime columns, if any.
        date_max: Latest value over those columns, if any.
        has_fts: Whether a full-text table exists for the object.
    """

    name: str
    rows: int
    date_min: str | None
    date_max: str | None
    has_fts: bool


@dataclass(frozen=True)
class OrgInfo:
    """Summary of an org: where it is, what it holds and its digest."""

    path: Path
    name: str
    size: int
    digest: str
    has_fts: bool
    meta: dict[str, str]
    objects: list[ObjectInfo] = field(default_factory=list)

    @property
    def total_rows(self) -> int:
        """Records over all objects."""
        return sum(o.rows for o in self.objects)

    @property
    def date_range(self) -> tuple[str | None, str | None]:
        """Earliest and latest date over all objects."""
        lows = [o.date_min for o in self.objects if o.date_min]
        highs = [o.date_max for o in self.objects if o.date_max]
        return (min(lows) if lows else None, max(highs) if highs else None)
