"""Keep Python's cycle collector out of the frames a person waits for.

A full collection scans every object the collector tracks. With the workspace and a play
screen loaded that is a long pause, and it landed wherever the allocation count ran out: a
keystroke, the opening of a value. What the app has built by the time an instance is on
screen lives as long as that instance; :func:`settle_heap` collects once and freezes it
(``gc.freeze``), so later collections scan only what was made since (measured:
docs/performance.md).
"""

from __future__ import annotations

import gc


def settle_heap() -> None:
    """Collect once, then leave every object that survives out of later collections.

    Unfreezing first hands back what the previous call froze, so a closed instance's screen
    is collected here instead of staying in memory for the rest of the session.
    """
    gc.unfreeze()
    gc.collect()
    gc.freeze()
