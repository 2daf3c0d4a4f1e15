"""History of console queries: recall older/newer entries and search them."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class QueryHistory:
    """Queries run in the console, oldest first, with a recall cursor.

    Re-running the latest query does not duplicate it.
    """

    entries: list[str] = field(default_factory=list)
    limit: int = 500
    _cursor: int | None = None

    def add(self, text: str) -> None:
        """Remember ``text`` (stripped); resets the recall cursor."""
        text = text.strip()
        if text and (not self.entries or self.entries[-1] != text):
            self.entries.append(text)
            del self.entries[: -self.limit]
        self._cursor = None

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
