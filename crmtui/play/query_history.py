"""History of console queries: recall older/newer entries, search them, keep them on disk.

One history per annotator, shared by every instance and session: :meth:`QueryHistory.load`
reads ``CRMTUI_HOME/history/<annotator>.jsonl`` (one JSON line per query run, with the
instance idx and time) and :meth:`QueryHistory.add` appends to it, so yesterday's query is
still there today. A study keeps its own (``<study folder>/history/<annotator>.jsonl``, see
:class:`~crmtui.play.policy.PlayPolicy`), so queries never cross from one study, or from
free play, into another. The file is compacted to the newest distinct entries when it
grows long.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Lines in the history file before it is rewritten with the newest distinct entries.
COMPACT_AFTER = 4000


def history_path(annotator: str, folder: Path | None = None) -> Path:
    """Where ``annotator``'s query history lives (the name made safe for a file name).

    Args:
        annotator: The actor id.
        folder: The histories' folder (None: ``CRMTUI_HOME/history``, free play's).
    """
    safe = re.sub(r"[^\w.-]+", "_", annotator).strip("._") or "annotator"
    if folder is None:
        from crmtui.paths import home

        folder = home() / "history"
    return folder / f"{safe}.jsonl"


@dataclass
class QueryHistory:
    """Queries run in the console, oldest first, with a recall cursor.

    Re-running a query moves it to the newest place instead of repeating it.
    """

    entries: list[str] = field(default_factory=list)
    limit: int = 500
    #: The file new entries are appended to (None: memory only).
    path: Path | None = None
    #: Stored beside every entry appended to the file (e.g. the instance idx).
    context: dict[str, Any] = field(default_factory=dict)
    _cursor: int | None = None

    @classmethod
    def load(cls, path: Path, limit: int = 500) -> QueryHistory:
        """The history kept in ``path`` (empty when the file does not exist yet).

        Unreadable lines are skipped: a history is a convenience, never a reason to fail.
        """
        history = cls(limit=limit, path=path)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            return history
        texts = []
        for line in lines:
            try:
                text = json.loads(line).get("text")
            except (json.JSONDecodeError, AttributeError):
                continue
            if isinstance(text, str):
                texts.append(text)
        history.entries = _distinct_newest(texts, limit)
        if len(lines) > COMPACT_AFTER:
            history._rewrite()
        return history

    def add(self, text: str) -> None:
        """Remember ``text`` (stripped) and append it to the file; resets the recall cursor."""
        text = text.strip()
        if not text:
            return
        if text in self.entries:
            self.entries.remove(text)  # an old query run again moves to the newest place
        self.entries.append(text)
        del self.entries[: -self.limit]
        self._cursor = None
        if self.path is not None:
            self._append({**self.context, "t": _now(), "text": text})

    def _append(self, record: dict[str, Any]) -> None:
        path = self.path
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            line = json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n"
            # One write of one line with O_APPEND: two sessions of one annotator interleave
            # whole lines, never parts of them.
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                os.write(fd, line.encode("utf-8"))
            finally:
                os.close(fd)
        except OSError:
            self.path = None  # read-only home: keep the history in memory

    def _rewrite(self) -> None:
        assert self.path is not None
        tmp = self.path.with_suffix(".tmp")
        try:
            tmp.write_text(
                "".join(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in self.entries),
                encoding="utf-8",
            )
            tmp.replace(self.path)
        except OSError:
            pass  # compaction is an optimisation

    def older(self) -> str | None:
        """Step back through history; None when there is nothing older."""
        if not self.entries:
            return None
        if self._cursor is None:
            self._cursor = len(self.entries) - 1
        elif self._cursor > 0:
            self._cursor -= 1
        else:
            return None
        return self.entries[self._cursor]

    def newer(self) -> str | None:
        """Step forward; returns "" when stepping past the newest entry."""
        if self._cursor is None:
            return None
        if self._cursor < len(self.entries) - 1:
            self._cursor += 1
            return self.entries[self._cursor]
        self._cursor = None
        return ""

    def search(self, needle: str) -> list[str]:
        """Entries containing ``needle`` (case-insensitive), newest first, without repeats."""
        lowered = needle.lower()
        seen: set[str] = set()
        found = []
        for entry in reversed(self.entries):
            if lowered in entry.lower() and entry not in seen:
                seen.add(entry)
                found.append(entry)
        return found


def _distinct_newest(texts: list[str], limit: int) -> list[str]:
    """The last ``limit`` distinct texts, oldest first, each at its newest position."""
    seen: set[str] = set()
    newest_first = []
    for text in reversed(texts):
        text = text.strip()
        if text and text not in seen:
            seen.add(text)
            newest_first.append(text)
        if len(newest_first) >= limit:
            break
    return list(reversed(newest_first))


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
