"""A model's transcript as it stood at one replay frame: replies, thoughts, queries, results."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from crmtui.review.replay import TranscriptLine

#: Only the tail is drawn: a long session would otherwise re-render thousands of lines
#: on every step.
MAX_LINES = 200
MAX_CHARS = 1200

ROLE_STYLES = {
    "model": ("model", "bold cyan"),
    "thought": ("thought", "italic magenta"),
    "query": ("query", "bold yellow"),
    "observation": ("result", "green"),
    "error": ("error", "bold red"),
    "answer": ("answer", "bold"),
    "submit": ("submit", "bold green"),
    "judge": ("judge", "bold blue"),
    "extractor": ("extractor", "bold blue"),
    "end": ("end", "dim"),
}


def transcript_text(lines: Sequence[TranscriptLine]) -> Text:
    """Render transcript lines (the last :data:`MAX_LINES`) as rich text."""
    text = Text()
    shown = lines[-MAX_LINES:]
    if len(lines) > len(shown):
        text.append(f"… {len(lines) - len(shown)} earlier lines\n", style="dim")
    for line in shown:
        label, style = ROLE_STYLES.get(line.role, (line.role, "bold"))
        body = line.text if len(line.text) <= MAX_CHARS else line.text[:MAX_CHARS] + " …"
        text.append(f"#{line.seq} {label}: ", style=style)
        text.append(body + "\n", style="dim" if line.role == "observation" else "")
    return text


class ReplayTranscript(VerticalScroll):
    """Scrollable transcript; the screen sets its lines for the current frame."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Transcript"
        self._shown: int | None = None

    def compose(self) -> Any:
        yield Static(id="transcript-text")

    def show(self, lines: Sequence[TranscriptLine]) -> None:
        """Show ``lines`` and scroll to the newest (skipped when nothing changed)."""
        if self._shown == len(lines):
            return
        self._shown = len(lines)
        if not lines:
            self.query_one(Static).update(Text("Nothing said yet.", style="dim"))
        else:
            self.query_one(Static).update(transcript_text(lines))
        self.scroll_end(animate=False)
