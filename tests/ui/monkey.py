"""A monkey at the keyboard: random keys over every screen, and what counts as dying.

A :class:`Scene` builds an app (the play app, replay, a compare/report/status viewer) and
brings it to one screen; :func:`run_monkey` then posts random keys (and now and then a
paste) in bursts, without waiting for the screen to be drawn between keys, until it has
sent its share. Keys go anywhere they lead: into dialogs, other screens, the command
palette, the next instance. When the app ends without a crash (a quit key, the palette's
Quit command, the last screen closed) the scene is built again and the monkey goes on.

It fails (:class:`MonkeyFailure`, naming the seed and the last keys) when the app crashes,
when keys stop being handled (a hang), or when any crash log appears (a worker's bug is
shown on screen and survived, but it is still a bug). Shared by tests/ui/test_monkey.py
and scripts/monkey.py.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual import events

LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
PUNCTUATION = " /?[]=.,'-_()*\"<>:;!%"
NAMED = [
    *("enter", "escape", "tab", "shift+tab", "space", "backspace", "delete"),
    *("up", "down", "left", "right", "home", "end", "pageup", "pagedown"),
    *(f"f{n}" for n in range(1, 11)),
    *(f"ctrl+{k}" for k in "aefgklnoprstuvwzc"),
    *("ctrl+space", "ctrl+up", "ctrl+down", "shift+up", "shift+down", "shift+left"),
    "shift+right",
]
#: Keys that end an app on purpose: left out so the monkey spends its keys on screens.
QUIT_KEYS = frozenset({"ctrl+q"})
#: A hang: keys not all handled this long after the last one was sent.
HANG_S = 60.0
#: Bursts between two runs of a scene's check (it reads the recording: not after every one).
CHECK_EVERY = 4
# Screens are drawn at Textual's own rate (60 frames a second). Drawing fewer (4) looked
# cheaper but cost more: a key that waits for the screen's refresh (a dialog's focus, a
# callback after refresh) waited up to a quarter of a second, and the waiting loops ran
# meanwhile. Measured with scripts/monkey.py --keys 500 (every scene): 4 fps 78 CPU s and
# 175 s, 60 fps 68 CPU s and 78 s.


class MonkeyFailure(AssertionError):
    """The app crashed, hung, or logged a crash under the monkey's keys."""


@dataclass
class Scene:
    """One screen to start from.

    Attributes:
        name: For reports.
        size: Terminal size.
        build: Builds a fresh app.
        arrive: Brings a running app (through its pilot) to the screen.
        leave_out: Keys never sent here (e.g. ``q`` where it closes the only screen).
        weights: Extra weight for some keys (a scene about dialogs presses their keys
            more often).
        check: Called with the app, settled, every :data:`CHECK_EVERY` bursts; raises
            AssertionError when what the app holds and what it recorded differ.
    """

    name: str
    size: tuple[int, int]
    build: Callable[[], Any]
    arrive: Callable[[Any], Awaitable[None]]
    leave_out: frozenset[str] = frozenset()
    weights: dict[str, int] = field(default_factory=dict)
    check: Callable[[Any], None] | None = None


@dataclass
class MonkeyReport:
    """What a run did."""

    keys: int = 0
    pastes: int = 0
    starts: int = 0
    #: Times the scene's check compared what the app holds with what it recorded.
    checks: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    #: Bursts ended on each screen (by class name): where the keys led.
    screens: Counter[str] = field(default_factory=Counter)

    @property
    def keys_per_second(self) -> float:
        return self.keys / self.seconds if self.seconds else 0.0


def _alphabet(scene: Scene) -> list[tuple[str, str | None]]:
    from textual.keys import _character_to_key

    keys: list[tuple[str, str | None]] = []
    for character in LETTERS + PUNCTUATION:
        name = "space" if character == " " else _character_to_key(character)
        keys.append((name, character))
    keys += [(name, " " if name == "space" else None) for name in NAMED]
    keys = [(k, c) for k, c in keys if k not in QUIT_KEYS and k not in scene.leave_out]
    for name, extra in scene.weights.items():
        keys += [(name, None)] * extra
    return keys


def _random_text(rng: random.Random) -> str:
    pool = LETTERS + PUNCTUATION + "\n"
    return "".join(rng.choice(pool) for _ in range(rng.randint(1, 40)))


async def _drain(app: Any, recent: deque[str], scene: Scene, seed: int) -> None:
    """Wait until every key sent has been handled (or the app ended)."""
    deadline = time.monotonic() + HANG_S
    while app.is_running and getattr(app, "keys_pending", 0):
        if time.monotonic() > deadline:
            raise MonkeyFailure(
                f"{scene.name} (seed {seed}): keys not handled in {HANG_S:.0f} s "
                f"(hang) after: {' '.join(recent)}"
            )
        await asyncio.sleep(0.005)


async def _settle(app: Any) -> None:
    """Wait until what the last keys set off (an edit on its way to the screen) is done."""
    deadline = time.monotonic() + HANG_S
    while app.is_running and app._unsettled() and time.monotonic() < deadline:
        await asyncio.sleep(0.005)


async def run_monkey(
    scene: Scene, keys: int, seed: int, *, home: Path, burst: int = 12
) -> MonkeyReport:
    """Send ``keys`` random keys to ``scene`` (rebuilt whenever its app ends).

    Raises:
        MonkeyFailure: A crash, a hang or a crash log, with the seed and the last keys.
    """
    return await _run(scene, keys, seed, home, burst)


async def _run(scene: Scene, keys: int, seed: int, home: Path, burst: int) -> MonkeyReport:
    rng = random.Random(seed)
    alphabet = _alphabet(scene)
    report = MonkeyReport()
    recent: deque[str] = deque(maxlen=60)
    started, cpu = time.perf_counter(), time.process_time()
    while report.keys < keys:
        app = scene.build()
        report.starts += 1
        try:
            async with app.run_test(size=scene.size) as pilot:
                await scene.arrive(pilot)
                bursts = 0
                while report.keys < keys and app.is_running:
                    for _ in range(rng.randint(1, burst)):
                        if rng.random() < 0.01:
                            text = _random_text(rng)
                            recent.append(f"paste({text!r})")
                            app.post_message(events.Paste(text))
                            report.pastes += 1
                        else:
                            name, character = rng.choice(alphabet)
                            recent.append(name)
                            app.post_message(events.Key(name, character))
                        report.keys += 1
                    await _drain(app, recent, scene, seed)
                    if not app.is_running:
                        break
                    report.screens[type(app.screen).__name__] += 1
                    bursts += 1
                    if scene.check is not None and bursts % CHECK_EVERY == 0:
                        await _settle(app)
                        try:
                            scene.check(app)
                        except AssertionError as exc:
                            raise MonkeyFailure(
                                f"{scene.name} (seed {seed}): {exc}\nlast keys: {' '.join(recent)}"
                            ) from exc
                        report.checks += 1
                crash = getattr(app, "crash", None)
        except MonkeyFailure:
            raise
        except Exception as exc:
            raise MonkeyFailure(
                f"{scene.name} (seed {seed}): the app died: {type(exc).__name__}: {exc}\n"
                f"last keys: {' '.join(recent)}"
            ) from exc
        if crash is not None or app.return_code:
            raise MonkeyFailure(
                f"{scene.name} (seed {seed}): the app died: {crash}\nlast keys: {' '.join(recent)}"
            )
        logs = sorted((home / "logs").glob("crash-*.txt"))
        if logs:
            raise MonkeyFailure(
                f"{scene.name} (seed {seed}): a crash log was written:\n"
                f"{logs[0].read_text(encoding='utf-8')[-3000:]}\nlast keys: {' '.join(recent)}"
            )
    report.seconds = time.perf_counter() - started
    report.cpu_seconds = time.process_time() - cpu
    return report
