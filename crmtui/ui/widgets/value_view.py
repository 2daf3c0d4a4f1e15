"""A scrolling, word-wrapped view of one long value with find-in-text highlights.

Draws only the rows on screen (Textual's line API): wrapping is one pass over the text
(:func:`crmtui.play.textview.wrap`) redone when the width changes, so a 100 KB value opens
at once.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from crmtui.play.textview import find_all, normalize, row_of, wrap


class ValueView(ScrollView, can_focus=True):
    """The text of a value, wrapped to the widget's width, with matches highlighted."""

    COMPONENT_CLASSES = {"value-view--match", "value-view--current"}
    DEFAULT_CSS = """
    ValueView {
        background: $surface;
        overflow-y: auto;
        overflow-x: hidden;
        /* The width never changes when the scrollbar appears: the text is wrapped once. */
        scrollbar-gutter: stable;
    }
    ValueView > .value-view--match { background: $warning 40%; }
    ValueView > .value-view--current { background: $accent; color: $text; text-style: underline; }
    """
    BINDINGS = [
        Binding("up", "scroll_up", "Up", show=False),
        Binding("down", "scroll_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown,space", "page_down", "Page down", show=False),
        Binding("home", "scroll_home", "Top", show=False),
        Binding("end", "scroll_end", "Bottom", show=False),
    ]

    def __init__(self, text: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rows: list[tuple[int, int]] = []
        self._starts: list[int] = []
        self.matches: list[int] = []
        self.match_length = 0
        self.current = -1
        self._take(text)
        # Styles looked up once per style change, not once per row drawn.
        self._styles: tuple[Style, Style, Style] | None = None

    def _take(self, text: str) -> None:
        self.text = normalize(text)
        self._ascii = self.text.isascii()
        self._wrapped_at = -1
        self.matches = []
        self.match_length = 0
        self.current = -1

    def set_text(self, text: str) -> None:
        """Show ``text`` instead, from its top, with no find highlights.

        Wrapped at once for the current width when the view has been laid out, so a reused
        viewer draws the new value in its next frame without a second layout.
        """
        self._take(text)
        self.scroll_to(0, 0, animate=False, immediate=True)
        width = self.scrollable_content_region.width
        if width > 0:
            self._rewrap(width)
        else:
            self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = None

    def _row_styles(self) -> tuple[Style, Style, Style]:
        if self._styles is None:
            base = self.rich_style
            self._styles = (
                base,
                base + self.get_component_rich_style("value-view--match"),
                base + self.get_component_rich_style("value-view--current"),
            )
        return self._styles

    # -- layout ----------------------------------------------------------------------------

    def _rewrap(self, width: int, *, quiet: bool = False) -> None:
        if width == self._wrapped_at or width <= 0:
            return
        self._wrapped_at = width
        self.rows = wrap(self.text, width)
        self._starts = [start for start, _ in self.rows]
        if quiet:  # during layout: the caller updates the scroll extents itself
            self.set_reactive(ValueView.virtual_size, Size(width, len(self.rows)))
            return
        self.virtual_size = Size(width, len(self.rows))
        self.refresh()

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        # Wrap for the new width while the screen is being laid out, before the scroll
        # extents are set: the first layout already knows the text's height, so opening a
        # value costs one layout and one frame, not a second pass once the text is drawn.
        # (The vertical scrollbar's gutter is stable, so the text width is known here.)
        width = size.width - self.styles.gutter.width - self.styles.scrollbar_size_vertical
        self._rewrap(width, quiet=True)
        return super()._size_updated(size, self.virtual_size, container_size, layout)

    def on_resize(self) -> None:
        self._rewrap(self.scrollable_content_region.width)
        if self.current >= 0:
            self._reveal(self.current)

    # -- find ------------------------------------------------------------------------------

    def find(self, needle: str) -> int:
        """Highlight every match of ``needle`` (case-insensitive); returns how many."""
        self.matches = find_all(self.text, needle)
        self.match_length = len(needle)
        self.current = -1
        self.refresh()
        return len(self.matches)

    def step(self, delta: int) -> int:
        """Move to the next (``delta`` 1) or previous (-1) match, wrapping; returns its index."""
        if not self.matches:
            return -1
        if self.current < 0:
            # The first step goes to the first match on screen or after it (or the one before).
            row = min(self.scroll_offset.y, len(self._starts) - 1)
            top = self._starts[row] if row >= 0 else 0
            after = bisect_left(self.matches, top)
            self.current = (after if delta > 0 else after - 1) % len(self.matches)
        else:
            self.current = (self.current + delta) % len(self.matches)
        self._reveal(self.current)
        self.refresh()
        return self.current

    def _reveal(self, index: int) -> None:
        if not self._starts:
            return
        row = row_of(self._starts, self.matches[index])
        height = self.scrollable_content_region.height
        top = self.scroll_offset.y
        if not top <= row < top + height:
            self.scroll_to(y=max(0, row - height // 3), animate=False)

    # -- drawing ---------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        """Draw screen row ``y`` (the wrapped row at ``scroll_y + y``)."""
        width = self.scrollable_content_region.width
        if self._wrapped_at != width:
            self._rewrap(width)
        index = self.scroll_offset.y + y
        base = self._row_styles()[0]
        if index >= len(self.rows):
            return Strip.blank(width, base)
        start, end = self.rows[index]
        segments = self._segments(start, end, base)
        if self._ascii:  # one cell per character: no need to measure, pad to the width
            pad = width - (end - start)
            if pad > 0:
                segments.append(Segment(" " * pad, base))
            return Strip(segments, max(width, end - start))
        return Strip(segments).crop_extend(0, width, base)

    def _segments(self, start: int, end: int, base: Style) -> list[Segment]:
        text = self.text
        if not self.matches or not self.match_length:
            return [Segment(text[start:end], base)]
        _, match_style, current_style = self._row_styles()
        # Matches that overlap this row: from the last one starting before it onwards.
        first = max(0, row_of(self.matches, start))
        segments: list[Segment] = []
        pos = start
        for i in range(first, len(self.matches)):
            m_start = self.matches[i]
            if m_start >= end:
                break
            m_end = m_start + self.match_length
            if m_end <= start:
                continue
            lo, hi = max(m_start, pos), min(m_end, end)
            if lo > pos:
                segments.append(Segment(text[pos:lo], base))
            style = current_style if i == self.current else match_style
            segments.append(Segment(text[lo:hi], style))
            pos = hi
        if pos < end:
            segments.append(Segment(text[pos:end], base))
        return segments
