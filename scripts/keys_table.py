"""Print the play screen's and the picker's keys as Markdown, from their bindings.

Usage: python scripts/keys_table.py

The same list F1 shows (:func:`crmtui.ui.keys.key_commands`). ``scripts/gen_docs.py`` writes
these tables into docs/keys.md, and a test checks that page against the bindings.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path


def _markdown(commands: list, title: str) -> list[str]:
    from crmtui.ui.keys import keys_text

    lines = [f"| {title} | keys | what |", "|---|---|---|"]
    group = None
    for command in commands:
        shown = command.group if command.group != group else ""
        group = command.group
        keys = " ".join(f"`{key}`" for key in keys_text(command).split(" "))
        what = command.description + (f" ({command.tooltip})" if command.tooltip else "")
        lines.append(f"| {shown} | {keys} | {what} |")
    return lines


async def _collect() -> list[str]:
    from crmtui.config import PlayConfig
    from crmtui.data.loaders import load_tasks
    from crmtui.factory import build_play_app
    from crmtui.org.sample import open_org_or_sample, sample_tasks_path
    from crmtui.play.workspace import Workspace
    from crmtui.ui.keys import key_commands

    workspace = Workspace(
        open_org_or_sample(None), load_tasks(None, sample_tasks=sample_tasks_path), "sample"
    )
    config = PlayConfig(annotator="keys", recordings=Path(tempfile.mkdtemp()), fsync=False)
    app = build_play_app(config, workspace=workspace)
    async with app.run_test(size=(160, 48)) as pilot:
        while app.screen.__class__.__name__ != "PickerScreen":
            await pilot.pause(0.02)
        picker = key_commands(app.screen)
        app.open_instance(next(iter(workspace.tasks)).idx)
        while app.screen.__class__.__name__ != "PlayScreen":
            await pilot.pause(0.02)
        await pilot.pause(0.2)
        play = key_commands(app.screen)
    return _markdown(play, "play screen") + [""] + _markdown(picker, "instance picker")


def collect_markdown() -> list[str]:
    """The play screen's and the picker's keys as Markdown lines (runs the app headless)."""
    os.environ.setdefault("CRMTUI_HOME", tempfile.mkdtemp(prefix="crmtui-keys-"))
    return asyncio.run(_collect())


def main() -> int:
    print("\n".join(collect_markdown()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
