"""The replay timeline: where we are among the events, with queries, errors and submit marked.

The screen sets the attributes (``position``, ``playing``, ``speed``) and the marks; the
widget only draws them and posts :class:`Timeline.Seeked` when clicked.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

# Mark kinds in drawing priority order: a cell holding several events shows the first.
MARK_STYLES = {
    "error": ("✘", "bold red"),
    "submit": ("◆", "bold green"),
    "query": ("│", "yellow"),
    "scratch": ("•", "cyan"),
}
LEGEND = (
    "←/→ step · Home/End · Space play · +/- speed · q query · e error · s submit"
    " · c view/copy/compute/notes · F2 F3 F4 ^O tabs"
)
#: The legend for a narrow terminal (80 columns): the same keys, shorter words.
SHORT_LEGEND = "←/→ step · Space play · +/- · q query · e error · s submit · c copy · F2 F3 F4"


def format_ms(ms: int) -> str:
    """Milliseconds as ``M:SS.t``."""
    tenths = ms // 100
    minutes, rest = divmod(tenths, 600)
    return f"{minutes}:{rest // 10:02d}.{rest % 10}"


class Timeline(Widget):
    """A one-line scrub bar with markers, a position label and the key legend."""

    DEFAULT_CSS = """
    Timeline {
        height: 3;
        padding: 0 1;
    }
    """

    position: reactive[int] = reactive(0)
    playing: reactive[bool] = reactive(False)
    speed: reactive[float] = reactive(1.0)

    class Seeked(Message):
        """The user clicked the bar: jump to event ``index``."""

        def __init__(self, index: int) -> None:
            self.index = index
            super().__init__()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.total = 0
        self.marks: dict[int, str] = {}
        self.times: list[int] = []
        self.label = ""

    def set_events(self, times: list[int], marks: dict[int, str]) -> None:
        """Set each event's ``ms`` and the marks (event index -> ``query|error|submit|scratch``)."""
        self.times = list(times)
        self.total = len(times)
        self.marks = dict(marks)
        self.refresh()

    def set_label(self, label: str) -> None:
        """The text after the position (current event type and summary)."""
        self.label = label
        self.refresh()

    def _bar_width(self) -> int:
        return max(10, self.content_size.width)

    def _cell(self, index: int, width: int) -> int:
        if self.total <= 1:
            return 0
        return round(index * (width - 1) / (self.total - 1))

    def render(self) -> Text:
        width = self._bar_width()
        cells: list[tuple[str, str]] = [("─", "dim")] * width
        for kind in reversed(list(MARK_STYLES)):  # higher priority drawn last, wins
            glyph, style = MARK_STYLES[kind]
            for index, mark in self.marks.items():
                if mark == kind:
                    cells[self._cell(index, width)] = (glyph, style)
        text = Text()
        here = self._cell(self.position, width) if self.total else 0
        for column, (glyph, style) in enumerate(cells):
            text.append(glyph, style="reverse bold" if column == here and self.total else style)
        state = "▶ playing" if self.playing else "■ paused"
        ms = self.times[self.position] if 0 <= self.position < len(self.times) else 0
        where = f"{self.position + 1}/{self.total}" if self.total else "0/0"
        status = f"{state} {where} · {format_ms(ms)} · ×{self.speed:g}  "
        text.append(f"\n{status}", style="bold")
        # One line: a long query wrapping here would push the key legend off the widget.
        room = width - len(status)
        label = " ".join(self.label.split())
        text.append(label if len(label) <= room else label[: max(0, room - 1)] + "…")
        legend = LEGEND if len(LEGEND) <= self.content_size.width else SHORT_LEGEND
        text.append(f"\n{legend}", style="dim")
        return text

    def on_click(self, event: events.Click) -> None:
        if event.y != 0 or self.total == 0:
            return
        width = self._bar_width()
        column = max(0, min(width - 1, event.x - self.styles.padding.left))
        index = round(column * (self.total - 1) / max(1, width - 1))
        self.post_message(self.Seeked(index))
