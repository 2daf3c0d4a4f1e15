"""crmtui.startup: the collector is off while a program starts and back on after, and what
waits for the end of start-up (a served copy's turn to start) runs exactly then."""

from __future__ import annotations

import gc

from crmtui.startup import collector_paused, pause_collector, resume_collector, when_started


def test_what_waits_for_start_up_runs_when_it_ends_and_at_once_after() -> None:
    ran: list[str] = []
    assert gc.isenabled()
    pause_collector(max_s=None)
    try:
        assert collector_paused() and not gc.isenabled()
        when_started(lambda: ran.append("first frame"))
        assert ran == []
    finally:
        resume_collector(freeze=False)
    assert ran == ["first frame"] and gc.isenabled() and not collector_paused()
    when_started(lambda: ran.append("later"))
    assert ran == ["first frame", "later"]
