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
    """A :class:`Compositor` whose partial updates render only what they change."""

    _bands: list[Region] | None = None

    def render_partial_update(self) -> Any:
        # The changed areas, those sharing rows merged: a status bar tick in the same frame
        # as a key renders row 0 and the box's rows, not everything in between.
        self._bands = _bands(self._dirty_regions)
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
        widgets = self.visible_widgets.items()
        for band in self._bands:
            # Front to back, as Textual paints: the first strip for a cell wins, so a
            # widget whose part of the band is already covered would be thrown away.
            covered: dict[int, list[tuple[int, int]]] = {}
            for widget, (region, clip) in widgets:
                x, y, width, height = region.intersection(clip).intersection(band)
                if not width or not height:
                    continue  # nothing of it is in this changed area
                rows = range(y, y + height)
                if all(_covers(covered.get(row, ()), x, x + width) for row in rows):
                    continue
                for row in rows:
                    covered.setdefault(row, []).append((x, x + width))
                # The widget's visible columns in the band's rows (cut-aligned: the band only
                # narrows which widgets take part), yielded as the clip so the caller places
                # the strips on exactly those rows and columns.
                x, _, width, _ = region.intersection(clip)
                lines = Region(x - region.x, y - region.y, width, height)
                yield region, Region(x, y, width, height), widget.render_lines(lines)


def _bands(regions: Iterable[Region]) -> list[Region]:
    """``regions`` with those that share a row merged into their bounding region."""
    bands: list[Region] = []
    for region in sorted((r for r in regions if r.width and r.height), key=lambda r: r.y):
        if bands and region.y < bands[-1].bottom:
            bands[-1] = bands[-1].union(region)
        else:
            bands.append(region)
    return bands


def _covers(spans: Iterable[tuple[int, int]], start: int, end: int) -> bool:
    """Whether the ``spans`` (x ranges, end exclusive) cover ``start`` to ``end``."""
    for left, right in sorted(spans):
        if left > start:
            return False
        start = max(start, right)
        if start >= end:
            return True
    return start >= end
