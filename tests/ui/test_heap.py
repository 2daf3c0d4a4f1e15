"""settle_heap: what it freezes is out of the collector's reach until the next call."""

from __future__ import annotations

import gc
import weakref

from crmtui.ui.heap import settle_heap


class _Node:
    """An object in a reference cycle: only the cycle collector frees it."""

    def __init__(self) -> None:
        self.me = self


def test_a_frozen_cycle_survives_collections_until_the_heap_is_settled_again() -> None:
    node = _Node()
    ref = weakref.ref(node)
    try:
        settle_heap()
        assert gc.get_freeze_count() > 0
        del node
        gc.collect()
        assert ref() is not None  # frozen: a collection does not look at it
        settle_heap()  # the next instance: the old screen's objects are collected now
        assert ref() is None
    finally:
        gc.unfreeze()
