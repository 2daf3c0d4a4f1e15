"""A compositor that renders only the screen rows an update covers.

Textual's :class:`~textual._compositor.Compositor` answers a partial update (one key typed
into the answer box: three rows of a 48-row screen) by asking *every* widget whose clip
overlaps the changed area for *all* its visible lines, then keeping the rows that changed.
On the play screen the clip of most widgets is the whole screen, so each keystroke
re-rendered (from cache, through the colour filters) the task context panel, the query
panel, the status bar, the footer and every container: about 250 lines to send three. In a
served session that was most of a key's CPU.

:class:`BandCompositor` asks each of those widgets only for its lines within the rows that
changed (the same columns as before, so the compositor's cuts line up as they did).
Rows outside the update were thrown away by Textual anyway, so the frames sent are the
same; full-screen updates are unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual._compositor import Compositor
from textual.geometry import Region
from textual.strip import Strip


class BandCompositor(Compositor):
    """A :class:`Compositor` whose partial updates render only the changed rows."""

    _bands: list[tuple[int, int]] | None = None

    def render_partial_update(self) -> Any:
        # The rows each changed area covers, merged: a status bar tick in the same frame as
        # a key renders row 0 and the box's rows, not everything in between.
        self._bands = _row_bands(self._dirty_regions)
        try:
            return super().render_partial_update()
        finally:
            self._bands = None

    def _get_renders(
        self, crop: Region | None = None
    ) -> Iterable[tuple[Region, Region, list[Strip]]]:
        if crop is None or not self._bands:
            yield from super()._get_renders(crop)
            return
        overlaps = crop.overlaps
        for widget, (region, clip) in self.visible_widgets.items():
            if not overlaps(clip):  # as Textual decides which widgets take part
                continue
            x, y, width, height = region.intersection(clip)
            if not width:
                continue
            for top, bottom in self._bands:
                first, last = max(y, top), min(y + height, bottom)
                if last <= first:
                    continue
                # The widget's visible columns, in these rows only. Yielded as the clip, so
                # the caller places the strips on exactly these rows and columns.
                rows = Region(x - region.x, first - region.y, width, last - first)
                yield region, Region(x, first, width, last - first), widget.render_lines(rows)


def _row_bands(regions: Iterable[Region]) -> list[tuple[int, int]]:
    """The rows ``regions`` cover, as merged ``(top, bottom)`` ranges (bottom exclusive)."""
    bands: list[tuple[int, int]] = []
    for top, bottom in sorted((r.y, r.bottom) for r in regions if r.height):
        if bands and top <= bands[-1][1]:
            bands[-1] = (bands[-1][0], max(bands[-1][1], bottom))
        else:
            bands.append((top, bottom))
    return bands
