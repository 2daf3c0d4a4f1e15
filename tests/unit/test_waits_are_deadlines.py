"""The suite waits for states by deadline, never by a count of pauses.

A loop of N short pauses that stops when a condition holds measures the machine, not the
app: on a loaded machine (CI beside other jobs, a laptop building something) it runs out
before a busy app has drawn, and the suite fails on no bug. tests/waiting.py (and the
scenes' ``wait_for``) wait until a deadline that only guards a hang.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: Where tests and scenes wait for an app, a browser or a child process.
WAITING_CODE = [*sorted((ROOT / "tests").rglob("*.py")), ROOT / "crmtui" / "ui" / "scenes.py"]


def _calls(node: ast.AST) -> set[str]:
    return {
        n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
        for n in ast.walk(node)
        if isinstance(n, ast.Call)
    }


def _counted_waits(tree: ast.AST) -> list[int]:
    """Lines of ``for _ in range(N)`` loops that pause and stop once something holds (a loop
    over named attempts, ``for row in range(20)``, tries one thing after another instead)."""
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.For | ast.AsyncFor) and isinstance(node.iter, ast.Call)):
            continue
        if getattr(node.iter.func, "id", "") != "range" or getattr(node.target, "id", "") != "_":
            continue
        body = ast.Module(body=node.body, type_ignores=[])
        pauses = _calls(body) & {"pause", "sleep", "wait_for_timeout"}
        stops = any(
            isinstance(n, ast.If) and any(isinstance(s, ast.Return | ast.Break) for s in n.body)
            for n in ast.walk(body)
        )
        if pauses and stops:
            found.append(node.lineno)
    return found


def test_no_test_waits_for_a_state_by_counting_pauses() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in WAITING_CODE
        for line in _counted_waits(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert not offenders, "wait with tests/waiting.py (a deadline) instead: " + ", ".join(offenders)


def test_the_check_finds_a_counted_wait() -> None:
    counted = ast.parse(
        "async def f(pilot, ok):\n"
        "    for _ in range(100):\n"
        "        await pilot.pause(0.02)\n"
        "        if ok():\n"
        "            return\n"
    )
    assert _counted_waits(counted) == [2]
