"""What handing keys over in order costs: CPU per key and latency, with and without it.

The play app (160x48, headless, the small sample org) opens an instance, focuses a text
field (the answer box or the console editor) and receives keys two ways:

* ``burst``: ``--keys`` characters posted at once (a paste-like burst, or a terminal
  catching up after a stall): wall and CPU time until the last one is in the field, per key;
* ``typing``: ``--typed`` characters at ``--rate`` keys a second, each timed from its
  arrival until it is in the field (median and 95th percentile), and the CPU time of the
  whole stretch per key (each key drawn on its own, as when a person types).

Each is run with crmtui's key ordering (:mod:`crmtui.ui.key_order`) and with Textual's own
dispatch (the mixin bypassed), ``--rounds`` times alternately. Prints a table, then one
JSON line (``"bench": "keys"``).

Usage::

    .venv/bin/python benchmarks/bench_keys.py [--target answer|console] [--keys 300]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TEXT = "the quick brown fox jumps over the lazy dog 0123456789 "


def _workspace(folder: Path) -> Any:
    from crmtui.data.loaders import load_tasks
    from crmtui.org.build import build_org
    from crmtui.org.store import Org
    from crmtui.play.workspace import Workspace

    org = folder / "sample.db"
    build_org(org, seed=7, scale="small", name="sample")
    tasks = load_tasks(str(org.with_suffix(".tasks.json")))
    return Workspace(org=Org.open(org), tasks=tasks, tasks_label="sample")


def _bypass(ordered: bool) -> None:
    """Use crmtui's key ordering, or Textual's own dispatch (the mixin steps aside)."""
    from textual.app import App

    from crmtui.ui import key_order

    if not hasattr(key_order.OrderedKeys, "_real_on_event"):
        key_order.OrderedKeys._real_on_event = key_order.OrderedKeys.on_event  # type: ignore[attr-defined]

    async def textual_dispatch(self: Any, event: Any) -> None:
        await App.on_event(self, event)

    key_order.OrderedKeys.on_event = (  # type: ignore[method-assign]
        key_order.OrderedKeys._real_on_event if ordered else textual_dispatch  # type: ignore[attr-defined]
    )


async def _measure(workspace: Any, folder: Path, args: argparse.Namespace) -> dict[str, float]:
    from textual import events
    from textual.keys import _character_to_key

    from crmtui.config import PlayConfig
    from crmtui.factory import build_play_app
    from crmtui.ui.screens.play import PlayScreen

    recordings = Path(tempfile.mkdtemp(prefix="recordings-", dir=folder))
    config = PlayConfig(annotator="bench", recordings=recordings, fsync=False, idx=0)
    app = build_play_app(config, workspace=workspace)
    out: dict[str, float] = {}

    def key(character: str) -> Any:
        name = "space" if character == " " else _character_to_key(character)
        return events.Key(name, character)

    async with app.run_test(size=(160, 48)) as pilot:
        deadline = time.monotonic() + 120
        while not (isinstance(app.screen, PlayScreen) and app.screen.is_mounted):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the play screen never opened ({app.screen})")
            await pilot.pause(0.02)
        screen = app.screen
        await pilot.press("f4" if args.target == "answer" else "f3")
        await pilot.pause(0.3)
        field = screen.query_one("#answer-input" if args.target == "answer" else "#console-editor")

        def text() -> str:
            return field.value if args.target == "answer" else field.text

        # burst
        burst = (TEXT * (args.keys // len(TEXT) + 1))[: args.keys]
        start, cpu = time.perf_counter(), time.process_time()
        for character in burst:
            app.post_message(key(character))
        deadline = time.monotonic() + 120
        while not text().endswith(burst):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the burst never arrived whole: {text()[-80:]!r}")
            await asyncio.sleep(0.001)
        out["burst_ms_per_key"] = (time.perf_counter() - start) * 1000 / args.keys
        out["burst_cpu_ms_per_key"] = (time.process_time() - cpu) * 1000 / args.keys
        await pilot.pause(0.3)

        # typing at a steady rate
        latencies = []
        cpu = time.process_time()
        for character in (TEXT * (args.typed // len(TEXT) + 1))[: args.typed]:
            before = len(text())
            sent = time.perf_counter()
            app.post_message(key(character))
            deadline = time.monotonic() + 30
            while len(text()) == before:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{character!r} never arrived: {text()[-80:]!r}")
                await asyncio.sleep(0.0005)
            latencies.append((time.perf_counter() - sent) * 1000)
            await asyncio.sleep(max(0.0, 1 / args.rate - (time.perf_counter() - sent)))
        out["typing_cpu_ms_per_key"] = (time.process_time() - cpu) * 1000 / args.typed
        latencies.sort()
        out["typing_median_ms"] = statistics.median(latencies)
        out["typing_p95_ms"] = latencies[int(len(latencies) * 0.95) - 1]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", choices=["answer", "console"], default="answer")
    parser.add_argument("--keys", type=int, default=300, help="characters in the burst")
    parser.add_argument("--typed", type=int, default=60, help="characters typed one by one")
    parser.add_argument("--rate", type=float, default=10.0, help="keys per second when typing")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    os.environ.setdefault("CRMTUI_HOME", tempfile.mkdtemp(prefix="bench-keys-home-"))
    folder = Path(tempfile.mkdtemp(prefix="bench-keys-"))
    workspace = _workspace(folder)
    results: dict[str, list[dict[str, float]]] = {"ordered": [], "textual": []}
    for _ in range(args.rounds):
        for mode in ("ordered", "textual"):
            _bypass(mode == "ordered")
            results[mode].append(asyncio.run(_measure(workspace, folder, args)))
    _bypass(True)
    summary = {
        mode: {name: statistics.median(r[name] for r in runs) for name in runs[0]}
        for mode, runs in results.items()
    }
    print(f"target: {args.target}; load average {os.getloadavg()[0]:.2f}")
    print(
        f"{'':10} {'burst ms/key':>13} {'burst CPU ms/key':>17} {'typing median':>14} "
        f"{'p95':>7} {'typing CPU ms/key':>18}"
    )
    for mode, row in summary.items():
        print(
            f"{mode:10} {row['burst_ms_per_key']:13.2f} {row['burst_cpu_ms_per_key']:17.2f} "
            f"{row['typing_median_ms']:12.1f}ms {row['typing_p95_ms']:5.1f}ms "
            f"{row['typing_cpu_ms_per_key']:18.2f}"
        )
    print(json.dumps({"bench": "keys", "target": args.target, "results": summary}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
