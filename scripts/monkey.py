"""Random keys over every screen, at scale: the CI monkey (tests/ui/test_monkey.py) for longer.

Builds the small sample org once, then runs each scene of ``tests/ui/monkey_scenes.py``
with ``--keys`` random keys from ``--seed`` (one scene after another, in one process), and
prints keys, keys per second and CPU per scene. Any crash, hang or crash log stops it with
the scene, the seed and the last keys, exit status 1::

    .venv/bin/python scripts/monkey.py                           # every scene, as in CI
    .venv/bin/python scripts/monkey.py --scene console --keys 20000 --seed 7
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    from tests.ui.test_monkey import KEYS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scene",
        action="append",
        choices=list(KEYS),
        help="a scene name (repeatable; default all)",
    )
    parser.add_argument("--keys", type=int, help="keys per scene (default: CI's, ~20,200 in all)")
    parser.add_argument("--seed", type=int, default=20260301)
    parser.add_argument("--json", help="write the per-scene numbers here")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="crmtui-monkey-"))
    os.environ["CRMTUI_HOME"] = str(work / "home")
    os.chdir(work)  # the palette's "Save screenshot" writes here

    from crmtui.config import PlayConfig
    from crmtui.data.loaders import load_tasks
    from crmtui.org.build import build_org
    from crmtui.org.store import Org
    from crmtui.play.workspace import Workspace
    from tests.fakes.openai_server import FakeOpenAI
    from tests.ui.conftest import FakeClock, FrozenWall  # the UI tests' clocks
    from tests.ui.monkey import MonkeyFailure, run_monkey
    from tests.ui.monkey_scenes import scenes

    org = work / "org" / "sample.db"
    org.parent.mkdir()
    build_org(org, seed=7, scale="small", name="sample")
    workspace = Workspace(
        org=Org.open(org),
        tasks=load_tasks(str(org.with_suffix(".tasks.json"))),
        tasks_label="sample",
    )
    results = {}
    names = args.scene or list(KEYS)
    if "watch" in names:
        from crmtui.agent.client import load_litellm

        load_litellm(online=False)
        os.environ["OPENAI_API_KEY"] = "sk-test-dummy-key"  # the fake server's, never a real one
    print(
        f"{'scene':14} {'keys':>7} {'keys/s':>8} {'CPU s':>7} {'starts':>6} {'checks':>6}  "
        "bursts ended on"
    )
    for name in names:
        folder = work / name
        folder.mkdir()
        config = PlayConfig(annotator="monkey", recordings=folder / "recordings", fsync=False)
        try:
            with FakeOpenAI([]) as server:  # the watched agent's scripted model
                scene = scenes(workspace, config, folder, FakeClock(), FrozenWall(), server)[name]
                report = asyncio.run(
                    run_monkey(
                        scene,
                        args.keys or KEYS[name],
                        args.seed + list(KEYS).index(name),  # CI's seed for the scene
                        home=Path(os.environ["CRMTUI_HOME"]),
                    )
                )
        except MonkeyFailure as failure:
            print(f"FAILED {failure}")
            return 1
        results[name] = report.__dict__ | {"keys_per_second": report.keys_per_second}
        screens = ", ".join(f"{screen} {count}" for screen, count in report.screens.most_common(6))
        print(
            f"{name:14} {report.keys:7,} {report.keys_per_second:8.0f} "
            f"{report.cpu_seconds:7.1f} {report.starts:6} {report.checks:6}  {screens}"
        )
    total = sum(r["keys"] for r in results.values())
    cpu = sum(r["cpu_seconds"] for r in results.values())
    seconds = sum(r["seconds"] for r in results.values())
    print(f"{'all':14} {total:7,} {total / seconds:8.0f} {cpu:7.1f}")
    print(f"load average {os.getloadavg()[0]:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
