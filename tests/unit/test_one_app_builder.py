"""Every play app is built and run one way, a served copy's included (#33).

``crmtui serve``'s standby copies used to build ``CrmtuiApp`` themselves and repeat
``crmtui.factory.run_app``'s crash and exit-status handling, so a served session could
drift from ``crmtui play --study``. Now one builder and one runner
(:mod:`crmtui.ui.launch`) serve both; this test states it for the whole package.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "crmtui"
LAUNCH = PACKAGE / "ui" / "launch.py"


def _calls(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            names.append(func.id if isinstance(func, ast.Name) else getattr(func, "attr", ""))
    return names


def test_only_the_builder_constructs_the_play_app() -> None:
    building = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "CrmtuiApp" in _calls(path)
    )
    assert building == ["ui/launch.py"]


def test_the_cli_and_the_standby_copies_share_the_builder_and_the_runner() -> None:
    for module in (PACKAGE / "factory.py", PACKAGE / "ui" / "standby.py"):
        calls = _calls(module)
        assert "new_play_app" in calls and "run_to_end" in calls, module.name
    # The standby copy runs the app only through run_to_end: no app.run() of its own.
    standby = ast.parse((PACKAGE / "ui" / "standby.py").read_text(encoding="utf-8"))
    own_runs = [
        node.lineno
        for node in ast.walk(standby)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "run"
        and not node.args
        and not (isinstance(node.func.value, ast.Name) and node.func.value.id == "asyncio")
    ]
    assert own_runs == []
