"""What the multi-turn UI tests share: the Pro instance they talk about, the scripted lines,
waiting for the app, and the screen as text. The fixtures (``pro_workspace``,
``user_server``) are in ``tests/ui/conftest.py``."""

from __future__ import annotations

from typing import Any

from tests.fixtures import pro_org as fx
from tests.waiting import until

IDX = 9  # lead_routing; gold U4
OPENING = "Hello, I have a new lead and need to know which agent should get it."
ASK = "<thought>I need the region.</thought><respond>Which state is the lead from?</respond>"
ANSWER = f"<thought>Done.</thought><respond>Route it to {fx.U4}.</respond>"


async def wait(pilot: Any, condition: Any) -> None:
    """Pause ``pilot`` until ``condition()`` holds (a deadline only against a hang)."""
    await until(pilot, condition)


def screen_text(screen: Any) -> str:
    """What ``screen`` shows, line by line."""
    return "\n".join(strip.text for strip in screen._compositor.render_strips())
