"""The agent transcript: streamed reply text, then each step's thought, action and result."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from crmtui.secrets import scrub

MAX_OBSERVATION_CHARS = 1500


def _clip(text: str, limit: int = MAX_OBSERVATION_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + f"… ({len(text):,} chars)"


def _cost(cost: float | None) -> str:
    return "cost ?" if cost is None else f"${cost:.5f}"


class Transcript(VerticalScroll):
    """A scrolling log of the agent's steps; the screen pushes entries in (attributes down).

    Each model call first appears as a live entry that grows as text streams in; when the
    step is done the entry is replaced by its thought, action and observation.
    """

    DEFAULT_CSS = """
    Transcript > .transcript-entry {
        padding: 0 0 1 0;
    }
    Transcript > .transcript-live {
        color: $text-muted;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Agent transcript"
        self._live: Static | None = None
        self._live_text = ""
        self._plain: list[str] = []
        self.steps = 0

    @property
    def plain_text(self) -> str:
        """Everything shown, as plain text (finished entries plus the live one)."""
        parts = list(self._plain)
        if self._live is not None:
            parts.append(scrub(self._live_text))
        return "\n".join(parts)

    def _add(self, renderable: Any, plain: str, classes: str = "transcript-entry") -> Static:
        entry = Static(renderable, classes=classes)
        self.mount(entry)
        self._plain.append(plain)
        self.scroll_end(animate=False)
        return entry

    def add_note(self, text: str, style: str = "dim") -> None:
        """A one-line note (start, pause, end reason)."""
        text = scrub(text)
        self._add(Text(text, style=style), text)

    def stream(self, piece: str) -> None:
        """Append streamed reply text to the live entry (created on the first piece).

        The whole live text is scrubbed each time it is drawn: a key the model echoes can
        arrive split over several pieces.
        """
        self._live_text += piece
        if self._live is None:
            self._live = Static(classes="transcript-entry transcript-live")
            self.mount(self._live)
        self._live.update(Text(scrub(self._live_text), style="italic"))
        self.scroll_end(animate=False)

    def add_step(
        self,
        index: int,
        *,
        kind: str,
        content: str,
        thought: str | None,
        result: str | None,
        tokens: tuple[int, int],
        cost: float | None,
        latency_ms: float,
    ) -> None:
        """Replace the live entry by the finished step ``index``."""
        if self._live is not None:
            self._live.remove()
            self._live, self._live_text = None, ""
        self.steps = index
        head = Text()
        head.append(f" Step {index} ", style="bold reverse")
        head.append(
            f"  {tokens[0]}+{tokens[1]} tokens · {_cost(cost)} · {latency_ms:.0f} ms",
            style="dim",
        )
        parts: list[Any] = [head]
        plain = [f"Step {index}"]
        if thought:
            parts.append(Text("thought: ", style="bold").append(thought, style="italic"))
            plain.append(f"thought: {thought}")
        label = {"execute": "▶ execute", "respond": "✔ respond", "tool": "▶ tool"}.get(
            kind, "✘ invalid"
        )
        parts.append(Text(f"{label}: ", style="bold cyan").append(content, style="bold"))
        plain.append(f"{kind}: {content}")
        if result is not None:
            parts.append(Text(_clip(result), style="green" if kind != "invalid" else "yellow"))
            plain.append(f"observation: {result}")
        self._add(Group(*parts), "\n".join(plain))
