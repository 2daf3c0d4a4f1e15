"""The clock on screen while someone reads: it holds at the idle threshold, never goes back."""

from __future__ import annotations

from crmtui.factory import build_play_app
from crmtui.record.timing import session_times
from crmtui.record.verify import load
from tests.ui.test_play_flow import _open_first, _recording

SIZE = (160, 48)


async def test_reading_past_the_threshold_holds_the_clock_and_the_next_key_keeps_it(
    workspace, play_config, clock, wall
):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    shown: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        bar = screen.query_one("#status-bar")

        async def look() -> None:
            screen._tick()  # the once-a-second refresh, now
            await pilot.pause(0.02)
            shown.append(bar.active_seconds)

        await pilot.press("f4", "a")
        start = bar.active_seconds
        for _ in range(10):  # 100 s of reading a transcript, no input: 60 s count
            clock.advance(10)
            await look()
        await pilot.press("b")  # the next key ends the gap: nothing is taken back
        await look()
        clock.advance(5)
        await look()
    assert shown == sorted(shown), shown
    assert shown[-3] - start == 60 and shown[-2] == shown[-3] and shown[-1] - shown[-2] == 5
    # The recording says the same.
    events = load(_recording(play_config)).events
    assert [e.payload for e in events if e.type == "idle"] == [
        {"seconds": 100.0, "idle_after": 60.0}
    ]
    assert session_times(events).active_ms >= (shown[-1] - 1) * 1000
